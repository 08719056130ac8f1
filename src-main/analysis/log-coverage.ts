// Context coverage of logs on disk: one log against the text of its context, and every task
// log of an evaluation against its task's context (found through the evaluation,
// eval/task-context.ts), beside whether the task was answered correctly: did the sessions that
// failed look at less of their context?
import { readFile } from 'node:fs/promises';
import { AnchorIndex } from '../../src-shared/analysis/anchor-index.ts';
import { coverageRuns, coverageSources, sourceSpans, summarizeCoverage, type CoverageReport } from '../../src-shared/analysis/coverage.ts';
import type { LogFormat } from '../../src-shared/codecs/detect.ts';
import { formatProblem, type ReadProblem } from '../../src-shared/codecs/lines.ts';
import { fileErrorText } from '../../src-shared/file-errors.ts';
import type { EvalCoverage, EvalCoverageTask } from '../../src-shared/protocol.ts';
import { quartiles } from '../../src-shared/trajectory/distributions.ts';
import { applyEvent, createTrajectoryState } from '../../src-shared/trajectory/reducer.ts';
import type { TrajectoryState } from '../../src-shared/trajectory/types.ts';
import { readEvalDir } from '../eval/open-dir.ts';
import { evalTaskContext } from '../eval/task-context.ts';
import { readLogBatches } from '../logs/read-log.ts';

export interface LogCoverage {
  format: LogFormat | null;
  /** Null when the file is not a log (`problems` say why); the context is then not waited for. */
  report: CoverageReport | null;
  problems: ReadProblem[];
  /** Events read (all of them unless `problems` says otherwise). */
  eventCount: number;
  /** The log's context had another length than this text: probably not its context. */
  mismatch: string | null;
}

/** A string context the log says had another length was probably another file: say so. */
function contextMismatch(state: TrajectoryState, chars: number): string | null {
  for (const id of state.roots) {
    const meta = state.runs.get(id)?.start?.context;
    if (meta?.type === 'string' && meta.totalChars !== chars) {
      return `the log's context had ${meta.totalChars.toLocaleString('en-US')} characters, this one has ${chars.toLocaleString('en-US')}; is it the session's context?`;
    }
  }
  return null;
}

/** Which spans of `context` each model of the log at `path` saw (the context may be read meanwhile). */
export async function logCoverage(path: string, contextText: string | Promise<string>): Promise<LogCoverage> {
  const state = createTrajectoryState();
  const problems: ReadProblem[] = [];
  let format: LogFormat | null = null;
  for await (const batch of readLogBatches(path))
    for (const item of batch) {
      if (item.kind === 'event') applyEvent(state, item.event);
      else if (item.kind === 'header') state.header = item.header;
      else if (item.kind === 'format') format = item.format;
      else if (item.kind === 'problem') problems.push(item.problem);
    }
  if (format === null) return { format, report: null, problems, eventCount: state.eventCount, mismatch: null };
  const context = await contextText;
  const index = new AnchorIndex(context);
  const spans = coverageSources(state).flatMap((s) => sourceSpans(index, s));
  return {
    format,
    report: summarizeCoverage(context.length, coverageRuns(state), spans),
    problems,
    eventCount: state.eventCount,
    mismatch: contextMismatch(state, context.length),
  };
}

/**
 * The text of an evaluation log's task context and what to call it (the context file, or
 * `task ID of DATASET`); or why there is none; null when the log is not an evaluation's.
 */
export async function taskContextText(log: string): Promise<{ text: string; label: string } | { problem: string } | null> {
  const found = await evalTaskContext(log);
  if (found === null) return null;
  if (!found.found) return { problem: found.why };
  const c = found.source;
  if (c.kind === 'text') return { text: c.text, label: found.label };
  if (c.kind === 'json') return { text: c.json, label: found.label };
  if (c.kind === 'file') {
    try {
      return { text: await readFile(c.path, 'utf8'), label: c.path };
    } catch (err) {
      return { problem: `the context file of ${found.label}, ${c.path}: ${fileErrorText(err)}` };
    }
  }
  return { problem: `${found.label} has no context of its own` };
}

/** Every task log of the evaluation in `dir` against its task's context, in results order. */
export async function evaluationCoverage(dir: string): Promise<EvalCoverage> {
  const ev = readEvalDir(dir);
  const problems = [...ev.problems];
  const tasks: EvalCoverageTask[] = [];
  let minSpanChars: number | null = null;
  for (const t of ev.tasks) {
    const row = { id: t.id, kind: t.kind, sizeTokens: t.sizeTokens, correct: t.correct, score: t.score, log: t.logFile };
    if (t.logFile === null) {
      tasks.push({ ...row, session: null, problem: 'no log' });
      continue;
    }
    const context = (await taskContextText(t.logFile)) ?? { problem: 'not in the evaluation’s logs folder' };
    if ('problem' in context) {
      tasks.push({ ...row, session: null, problem: context.problem });
      continue;
    }
    const c = await logCoverage(t.logFile, context.text);
    for (const p of c.problems) problems.push(`${t.logFile}: ${formatProblem(p)}`);
    if (c.report === null) {
      tasks.push({ ...row, session: null, problem: 'not a readable log' });
      continue;
    }
    minSpanChars = c.report.minSpanChars;
    tasks.push({ ...row, session: c.report.session, problem: c.mismatch });
  }
  // The question a policy's author asks first: did the failures look at less of their context?
  const unseenOf = (correct: boolean): { median: number | null; n: number } => {
    const xs = tasks.flatMap((t) =>
      t.correct === correct && t.session && t.session.contextChars > 0 ? [t.session.unseenChars / t.session.contextChars] : [],
    );
    return { median: xs.length > 0 ? quartiles(xs).p50 : null, n: xs.length };
  };
  return { dir: ev.dir, tasks, minSpanChars, unseen: { correct: unseenOf(true), incorrect: unseenOf(false) }, problems };
}
