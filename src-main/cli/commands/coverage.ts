// `rlm-studio coverage LOG [--context FILE] [--json]`: which character spans of the session's
// context each model saw (the root's shown REPL output, sub-call prompts, child runs'
// contexts) and which none did. Logs do not carry the context itself (native logs record its
// type and length; reference logs at most a short preview), so the user names the file, or
// for an evaluation's log the task's context is taken from its dataset (eval/task-context.ts).
import { readFile, stat } from 'node:fs/promises';
import type { Command } from 'commander';
import { fileErrorText } from '../../../src-shared/file-errors.ts';
import { type CoverageReport, largestUnseen } from '../../../src-shared/analysis/coverage.ts';
import type { LogFormat } from '../../../src-shared/codecs/detect.ts';
import type { EvalCoverage } from '../../../src-shared/protocol.ts';
import { evaluationCoverage, logCoverage, taskContextText } from '../../analysis/log-coverage.ts';
import { isEvalDir } from '../../eval/open-dir.ts';
import { UsageError } from '../errors.ts';
import { assertReadable, type Output, reportProblems, processOutput } from '../log-inputs.ts';

/** What `--json` prints: the report, with the files it is about. */
export interface CoverageJson extends CoverageReport {
  log: string;
  format: LogFormat | null;
  /** The context file, or which evaluation task's context (`task ID of DATASET`). */
  context: string;
}

async function readContextText(path: string): Promise<string> {
  try {
    const s = await stat(path);
    if (!s.isFile()) throw new UsageError(`--context ${path} is not a file`);
    return await readFile(path, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--context ${path}: ${fileErrorText(err)}`);
  }
}

/** The context's text and what to call it: the file given, or the evaluation task's context. */
async function contextOf(log: string, file: string | undefined): Promise<{ text: string; label: string }> {
  if (file !== undefined) return { text: await readContextText(file), label: file };
  const task = await taskContextText(log);
  if (task === null)
    throw new UsageError("required option '--context <file>' not specified (only an evaluation's logs find their context without it)");
  if ('problem' in task) throw new UsageError(`no --context given, and ${task.problem}`);
  return task;
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
  const unseen = largestUnseen(r.unseen, context, 10);
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
  const contextText = contextPromise.then((x) => x.text);
  // Not waited for when the file is not a log (its problems are reported instead).
  void contextText.catch(() => undefined);
  const c = await logCoverage(path, contextText);
  if (c.report === null) {
    reportProblems(path, c.problems, io, 'no coverage');
    throw new UsageError(`${path}: not a log this reader knows; no coverage`);
  }
  const { text: context, label } = await contextPromise;
  if (c.mismatch) io.err(`rlm-studio: ${label}: warning: ${c.mismatch}\n`);
  const json: CoverageJson = { log: path, format: c.format, context: label, ...c.report };
  io.out(options.json ? `${JSON.stringify(json)}\n` : formatCoverage(c.report, context));
  reportProblems(path, c.problems, io, `coverage above covers the ${c.eventCount} event(s) that could be read`);
  return json;
}

const pctOf = (x: number, of: number): string => (of === 0 ? '–' : `${((100 * x) / of).toFixed(1)}%`);

export function formatEvaluationCoverage(e: EvalCoverage): string {
  const head = ['task', 'correct', 'context chars', 'seen by root', 'sent to sub-calls', 'sent to children', 'unseen'];
  const rows: string[][] = [head];
  for (const t of e.tasks) {
    const f = t.session;
    rows.push(
      f === null
        ? [t.id, t.correct ? 'yes' : 'no', '–', '–', '–', '–', '–']
        : [
            t.id,
            t.correct ? 'yes' : 'no',
            n(f.contextChars),
            pctOf(f.seenByRootChars, f.contextChars),
            pctOf(f.sentToSubcallsChars, f.contextChars),
            pctOf(f.sentToChildrenChars, f.contextChars),
            pctOf(f.unseenChars, f.contextChars),
          ],
    );
  }
  const widths = head.map((_, i) => Math.max(...rows.map((x) => x[i]!.length)));
  const lines = [
    `evaluation ${e.dir}: ${e.tasks.length} task(s)${e.minSpanChars === null ? '' : `; copies of at least ${e.minSpanChars} characters are counted`}`,
  ];
  for (const x of rows) lines.push(x.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
  const unseen = ({ median, n }: { median: number | null; n: number }): string =>
    median === null ? 'none' : `${(median * 100).toFixed(1)}% (${n})`;
  lines.push(`median unseen: correct ${unseen(e.unseen.correct)}, incorrect ${unseen(e.unseen.incorrect)}`);
  for (const t of e.tasks) if (t.problem) lines.push(`${t.id}: ${t.problem}`);
  return `${lines.join('\n')}\n`;
}

/** `coverage DIR`: every task log of an evaluation's --out against its task's context. */
export async function runEvaluationCoverage(dir: string, options: { json?: boolean }, io: Output = processOutput): Promise<EvalCoverage> {
  const e = await evaluationCoverage(dir);
  io.out(options.json ? `${JSON.stringify(e)}\n` : formatEvaluationCoverage(e));
  for (const p of e.problems) io.err(`rlm-studio: ${p}\n`);
  return e;
}

export function registerCoverage(program: Command): void {
  program
    .command('coverage')
    .description(
      'Which character spans of the context each model saw: the root model (context text in the REPL output shown to it), sub-calls (llm_query prompts), child runs (their contexts), and which no model saw. Native or reference-library logs.',
    )
    .argument('<log>', "log file, or an evaluation's --out directory (every task log against its task's context)")
    .option(
      '--context <file>',
      "the context file the session ran on (read as text; logs do not carry it); for a log of an evaluation's --out, the task's context from its dataset when not given",
    )
    .option(
      '--json',
      'print one JSON object: contextChars, minSpanChars, session and runs[] (contextChars, seenByRootChars, sentToSubcallsChars, sentToChildrenChars, seenChars, unseenChars), spans[] (start, end, role root|subcall|child, runId, iteration, block, callId, childRunId) and unseen[] (start, end); for an evaluation: dir, tasks[] (id, kind, sizeTokens, correct, score, log, session: the figures above or null, problem), minSpanChars, unseen (correct and incorrect: median share, n) and problems[]',
    )
    .action(async (log: string, options: { context?: string; json?: boolean }) => {
      if (isEvalDir(log)) {
        if (options.context !== undefined) throw new UsageError(`--context is for one log; each task of the evaluation ${log} has its own`);
        await runEvaluationCoverage(log, options);
      } else await runCoverage(log, options);
    });
}
