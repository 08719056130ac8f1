// `rlm-studio coverage LOG [--context FILE] [--json]`: which character spans of the session's
// context each model saw (the root's shown REPL output, sub-call prompts, child runs'
// contexts) and which none did. Logs do not carry the context itself (native logs record its
// type and length; reference logs at most a short preview), so the user names the file, or
// for an evaluation's log the task's context is taken from its dataset (eval/task-context.ts).
import { readFile, stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { fileErrorText } from '../../../src-shared/file-errors.ts';
import { AnchorIndex } from '../../../src-shared/analysis/anchor-index.ts';
import {
  coverageRuns,
  coverageSources,
  sourceSpans,
  summarizeCoverage,
  type CoverageReport,
} from '../../../src-shared/analysis/coverage.ts';
import type { ReadProblem } from '../../../src-shared/codecs/lines.ts';
import type { LogFormat } from '../../../src-shared/codecs/detect.ts';
import { applyEvent, createTrajectoryState } from '../../../src-shared/trajectory/reducer.ts';
import type { TrajectoryState } from '../../../src-shared/trajectory/types.ts';
import { evalTaskContext } from '../../eval/task-context.ts';
import { readLogBatches } from '../../logs/read-log.ts';
import { UsageError } from '../errors.ts';
import { assertReadable, type Output, reportProblems, processOutput } from '../log-inputs.ts';

/** What `--json` prints: the report, with the files it is about. */
export interface CoverageJson extends CoverageReport {
  log: string;
  format: LogFormat | null;
  /** The context file, or which evaluation task's context (`task ID of DATASET`). */
  context: string;
}

async function readContextText(path: string, what = `--context ${path}`): Promise<string> {
  try {
    const s = await stat(path);
    if (!s.isFile()) throw new UsageError(`${what} is not a file`);
    return await readFile(path, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${what}: ${fileErrorText(err)}`);
  }
}

/** The context's text and what to call it: the file given, or the evaluation task's context. */
async function contextOf(log: string, file: string | undefined): Promise<{ text: string; label: string }> {
  if (file !== undefined) return { text: await readContextText(file), label: file };
  const found = await evalTaskContext(log);
  if (found === null)
    throw new UsageError("required option '--context <file>' not specified (only an evaluation's logs find their context without it)");
  if (!found.found) throw new UsageError(`no --context given, and ${found.why}`);
  const c = found.source;
  if (c.kind === 'text') return { text: c.text, label: found.label };
  if (c.kind === 'json') return { text: c.json, label: found.label };
  if (c.kind === 'file') return { text: await readContextText(c.path, `the context file of ${found.label}, ${c.path},`), label: c.path };
  throw new UsageError(`no --context given, and ${found.label} has no context of its own`);
}

/** A string context the log says had another length was probably another file: say so. */
function contextMismatch(state: TrajectoryState, chars: number): string | null {
  for (const id of state.roots) {
    const meta = state.runs.get(id)?.start?.context;
    if (meta?.type === 'string' && meta.totalChars !== chars) {
      return `the log's context had ${meta.totalChars.toLocaleString('en-US')} characters, this file has ${chars.toLocaleString('en-US')}; is it the session's context?`;
    }
  }
  return null;
}

const n = (x: number): string => x.toLocaleString('en-US');
const pct = (x: number, of: number): string => (of === 0 ? '' : ` (${((100 * x) / of).toFixed(1)}%)`);

function preview(context: string, start: number, end: number): string {
  const s = context.slice(start, Math.min(end, start + 60)).replace(/\s+/g, ' ');
  return JSON.stringify(end - start > 60 ? `${s}…` : s);
}

export function formatCoverage(r: CoverageReport, context: string): string {
  const lines: string[] = [`context: ${n(r.session.contextChars)} characters; copies of at least ${r.minSpanChars} characters are counted`];
  const head = ['', 'seen by root', 'sent to sub-calls', 'sent to children', 'unseen'];
  const rows: string[][] = [head];
  const row = (label: string, f: CoverageReport['session']): string[] => [
    label,
    n(f.seenByRootChars) + pct(f.seenByRootChars, f.contextChars),
    n(f.sentToSubcallsChars) + pct(f.sentToSubcallsChars, f.contextChars),
    n(f.sentToChildrenChars) + pct(f.sentToChildrenChars, f.contextChars),
    n(f.unseenChars) + pct(f.unseenChars, f.contextChars),
  ];
  rows.push(row('session', r.session));
  for (const run of r.runs) rows.push(row(`${'  '.repeat(run.depth + 1)}run ${run.runId}`, run));
  const widths = head.map((_, i) => Math.max(...rows.map((x) => x[i]!.length)));
  for (const x of rows) lines.push(x.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
  const unseen = [...r.unseen].sort((a, b) => b.end - b.start - (a.end - a.start)).slice(0, 10);
  if (unseen.length > 0) {
    lines.push('largest spans no model saw:');
    for (const u of unseen) lines.push(`  [${n(u.start)}, ${n(u.end)})  ${n(u.end - u.start)} chars  ${preview(context, u.start, u.end)}`);
  }
  const shown = r.spans.slice(0, 40);
  if (shown.length > 0) {
    lines.push('spans (context range, who, where):');
    for (const s of shown) {
      const where = s.callId !== null ? `call ${s.callId}` : s.block === null ? 'direct call' : `block ${s.block}`;
      const who =
        s.role === 'root' ? 'seen by the model of' : s.role === 'subcall' ? 'sent to a sub-call by' : `given to child ${s.childRunId} by`;
      lines.push(`  [${n(s.start)}, ${n(s.end)})  ${who} run ${s.runId}, iteration ${s.iteration}, ${where}`);
    }
    if (r.spans.length > shown.length) lines.push(`  … and ${n(r.spans.length - shown.length)} more (--json lists them all)`);
  }
  return `${lines.join('\n')}\n`;
}

export async function runCoverage(
  path: string,
  options: { context?: string; json?: boolean },
  io: Output = processOutput,
): Promise<CoverageJson> {
  await assertReadable(path);
  // The file is read while the log is (the read is on the thread pool).
  const contextPromise = contextOf(path, options.context);
  void contextPromise.catch(() => undefined);
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
  if (format === null) reportProblems(path, problems, io, 'no coverage');
  const { text: context, label } = await contextPromise;
  const index = new AnchorIndex(context);
  const warning = contextMismatch(state, context.length);
  if (warning) io.err(`rlm-studio: ${label}: warning: ${warning}\n`);
  const spans = coverageSources(state).flatMap((s) => sourceSpans(index, s));
  const report = summarizeCoverage(context.length, coverageRuns(state), spans);
  const json: CoverageJson = { log: path, format, context: label, ...report };
  io.out(options.json ? `${JSON.stringify(json)}\n` : formatCoverage(report, context));
  reportProblems(path, problems, io, `coverage above covers the ${state.eventCount} event(s) that could be read`);
  return json;
}

export function registerCoverage(program: Command): void {
  program
    .command('coverage')
    .description(
      'Which character spans of the context each model saw: the root model (context text in the REPL output shown to it), sub-calls (llm_query prompts), child runs (their contexts), and which no model saw. Native or reference-library logs.',
    )
    .argument('<log>', 'log file')
    .option(
      '--context <file>',
      "the context file the session ran on (read as text; logs do not carry it); for a log of an evaluation's --out, the task's context from its dataset when not given",
    )
    .option(
      '--json',
      'print one JSON object: contextChars, minSpanChars, session and runs[] (contextChars, seenByRootChars, sentToSubcallsChars, sentToChildrenChars, seenChars, unseenChars), spans[] (start, end, role root|subcall|child, runId, iteration, block, callId, childRunId) and unseen[] (start, end)',
    )
    .action(async (log: string, options: { context?: string; json?: boolean }) => {
      await runCoverage(log, options);
    });
}
