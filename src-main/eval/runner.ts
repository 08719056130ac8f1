// Runs a dataset: bounded parallel sessions in this process, one native log per session, a
// result line appended per finished session. Resumable: sessions with a line in results.jsonl
// are never run again (unless `retryErrors` and the line is an error); an interrupted session
// (no line) runs again from the start, and its partial log is kept under another name.
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { retriesText } from '../../src-shared/events.ts';
import { fileErrorText } from '../../src-shared/file-errors.ts';
import { replsOutOfProcess } from '../engine/conversation.ts';
import { sharedSandboxProcess } from '../engine/sandbox-process/sandbox-process.ts';
import type { LmClient } from '../lm/types.ts';
import { loadTaskContext, readDataset, type Dataset } from './dataset.ts';
import { checkConfig, checkDefinition, configKey, EvalConfigError, type EvalDefinition } from './eval-config.ts';
import { ProgressTracker } from './progress.ts';
import { readResults, resultKey, ResultsWriter, type TaskResult } from './results.ts';
import { summarize, summaryMarkdown, type EvalSummary } from './summary.ts';
import { runTaskSession } from './task-session.ts';
import { logNameFor, workUnits, type Shard, type WorkUnit } from './units.ts';

export { EvalConfigError } from './eval-config.ts';

export interface EvalOptions extends EvalDefinition {
  client: LmClient;
  /** Sub-calls' client (another endpoint or sampling); absent: `client`. */
  subClient?: LmClient;
  /** Sessions at once. */
  parallel: number;
  /** Only this part of the dataset (`--shard I/N`). */
  shard?: Shard;
}

export interface EvalRunResult {
  summary: EvalSummary;
  /** Sessions run (finished) in this invocation. */
  ran: number;
  /** Sessions skipped because results.jsonl already had them. */
  skipped: number;
  interrupted: boolean;
  outDir: string;
}

/** A fresh log path; an earlier log of the same session (interrupted, or an error being retried) is renamed, never overwritten. */
export function logPathFor(logsDir: string, name: string, earlier: 'interrupted' | 'retried' = 'interrupted'): string {
  const path = join(logsDir, `${name}.rlm.jsonl`);
  if (existsSync(path)) {
    let k = 1;
    while (existsSync(join(logsDir, `${name}.${earlier}-${k}.rlm.jsonl`))) k++;
    renameSync(path, join(logsDir, `${name}.${earlier}-${k}.rlm.jsonl`));
  }
  return path;
}

/** What a run starts from: the evaluation's folder checked, its sessions, and those still to run. */
export interface EvalPlan {
  dataset: Dataset;
  outDir: string;
  logsDir: string;
  resultsPath: string;
  units: WorkUnit[];
  pending: WorkUnit[];
  /** Lines that count for this run's sessions and need no new run. */
  kept: TaskResult[];
  /** Keys of sessions whose error line is being retried. */
  retrying: Set<string>;
  writer: ResultsWriter;
  unreadable: number;
}

export async function planEval(o: EvalDefinition, shard?: Shard): Promise<EvalPlan> {
  checkDefinition(o);
  const dataset = await readDataset(o.dataset, o.columns);
  const outDir = resolve(o.outDir);
  const logsDir = join(outDir, 'logs');
  try {
    mkdirSync(logsDir, { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ENOTDIR / EEXIST: a file stands where the folder (or one above it) should be.
    const why = code === 'ENOTDIR' || code === 'EEXIST' ? 'a file is in the way' : fileErrorText(err, true);
    throw new EvalConfigError(`--out ${o.outDir}: cannot create the results folder there (${why})`);
  }
  checkConfig(join(outDir, 'eval.json'), configKey(o, dataset), o.baseUrl);
  const resultsPath = join(outDir, 'results.jsonl');
  const previous = readResults(resultsPath);
  const units = workUnits(dataset.tasks, o.repeat ?? 1, shard);
  const byKey = new Map(previous.results.map((r) => [resultKey(r.id, r.repeat ?? 0), r]));
  const kept: TaskResult[] = [];
  const retrying = new Set<string>();
  const pending: WorkUnit[] = [];
  for (const u of units) {
    const r = byKey.get(u.key);
    if (r !== undefined && !(o.retryErrors && r.stopReason === 'error')) kept.push(r);
    else {
      if (r !== undefined) retrying.add(u.key);
      pending.push(u);
    }
  }
  return {
    dataset,
    outDir,
    logsDir,
    resultsPath,
    units,
    pending,
    kept,
    retrying,
    writer: new ResultsWriter(resultsPath),
    unreadable: previous.skipped,
  };
}

/** Rebuilds summary.json and summary.md from results.jsonl, over this run's sessions. */
export function writeSummary(plan: EvalPlan, o: EvalDefinition): EvalSummary {
  const keys = new Set(plan.units.map((u) => u.key));
  const all = readResults(plan.resultsPath).results.filter((r) => keys.has(resultKey(r.id, r.repeat ?? 0)));
  const summary = summarize(all, {
    dataset: plan.dataset.path,
    model: o.model,
    subModel: o.subModel ?? null,
    maxDepth: o.maxDepth ?? 1,
    tasks: new Set(plan.units.map((u) => u.task.id)).size,
    repeats: o.repeat ?? 1,
  });
  writeFileSync(join(plan.outDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  writeFileSync(join(plan.outDir, 'summary.md'), summaryMarkdown(summary));
  return summary;
}

/** The line printed as a session's result is written. */
export function resultLine(r: TaskResult, finished: number, total: number, running: number): string {
  const name = r.repeat ? `${r.id} #${r.repeat}` : r.id;
  return `[${String(finished).padStart(String(total).length)}/${total}] ${r.correct ? '✓' : r.score > 0 ? '~' : '✗'} ${name}  score ${r.score.toFixed(3)}  ${(r.durationMs / 1000).toFixed(2)} s  ${r.usage.calls} calls${r.retries ? ` (${retriesText(r.retries)})` : ''}  ${r.usage.costUsd === null ? 'cost unknown' : `$${r.usage.costUsd.toFixed(6)}`}${r.stopReason !== 'answered' ? `  (${r.stopReason})` : ''}  [${running} running]`;
}

/** Distinct errors told in full; more would bury the progress (every line is in results.jsonl). */
const ERRORS_TOLD = 20;

/**
 * The reason under the result line of the first session that ended in each distinct error
 * ("(error)" alone sent a researcher to the log); the same reason again is not repeated.
 */
export function firstOfEachError(): (r: TaskResult) => string | null {
  const told = new Set<string>();
  return (r) => {
    if (r.stopReason !== 'error' || told.has(r.message ?? '') || told.size > ERRORS_TOLD) return null;
    told.add(r.message ?? '');
    if (told.size > ERRORS_TOLD) return `    (more distinct errors: see the message of each line in results.jsonl)`;
    return `    error: ${r.message || 'no message recorded'}`;
  };
}

/** Rewrites progress.json now and then while nothing finishes, so the app can tell a live run from a dead one. */
export function heartbeat(tracker: ProgressTracker): () => void {
  const timer = setInterval(() => tracker.write('running', true), 5000);
  timer.unref();
  return () => clearInterval(timer);
}

export async function runEval(o: EvalOptions): Promise<EvalRunResult> {
  const plan = await planEval(o, o.shard);
  const { pending, units } = plan;
  // Every Python task (and its children) takes an interpreter; keep one started ahead.
  if (o.repl === 'python' && pending.length > 0) {
    if (o.cpython) void warmCPythonFor(o.cpython.python);
    if (replsOutOfProcess()) sharedSandboxProcess().warmPython();
    else void import('../sandbox/python/pool.ts').then((pool) => pool.warmPython());
  }
  const say = o.onProgress ?? ((): void => undefined);
  const skipped = units.length - pending.length;
  say(
    `eval: ${plan.dataset.tasks.length} task(s) in ${plan.dataset.path}${o.shard ? ` (shard ${o.shard.index}/${o.shard.count}: ${new Set(units.map((u) => u.task.id)).size})` : ''}${(o.repeat ?? 1) > 1 ? `, ${o.repeat} sessions each` : ''}; ${skipped} already finished${plan.unreadable > 0 ? ` (${plan.unreadable} unreadable line(s) in results.jsonl ignored)` : ''}${plan.retrying.size > 0 ? `; retrying ${plan.retrying.size} that ended in an error` : ''}; running ${pending.length}, ${Math.min(o.parallel, pending.length)} at a time`,
  );
  const tracker = new ProgressTracker(plan.outDir, 'local', units.length, plan.kept);
  tracker.write('running', true);
  const stopBeat = heartbeat(tracker);
  const {
    dataset: _d,
    outDir: _o,
    baseUrl: _b,
    parallel: _p,
    onProgress: _op,
    onBar: _ob,
    signal: _s,
    roles: _r,
    repeat: _rp,
    retryErrors: _re,
    shard: _sh,
    scorer,
    ...config
  } = o;

  let finished = skipped;
  const errorFirstSeen = firstOfEachError();
  let running = 0;
  let ran = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < pending.length && !o.signal?.aborted) {
      const unit = pending[next++]!;
      tracker.setRunning(++running);
      o.onBar?.(tracker.line());
      try {
        const result = await runTaskSession({
          unit,
          loadContext: () => loadTaskContext(unit.task, plan.dataset.dir, { flat: o.repl === 'python' }),
          logPath: logPathFor(plan.logsDir, logNameFor(unit), plan.retrying.has(unit.key) ? 'retried' : 'interrupted'),
          config,
          ...(scorer ? { scorer } : {}),
          ...(o.signal ? { signal: o.signal } : {}),
        });
        if (result === null) return; // interrupted: no line, so it runs again on resume
        plan.writer.append(result);
        ran++;
        finished++;
        tracker.finished(result);
        say(resultLine(result, finished, units.length, running - 1));
        const why = errorFirstSeen(result);
        if (why !== null) say(why);
      } finally {
        tracker.setRunning(--running);
        o.onBar?.(tracker.line());
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(o.parallel, pending.length)) }, () => worker()));
  } finally {
    stopBeat();
  }
  const interrupted = o.signal?.aborted ?? false;
  tracker.write(interrupted ? 'interrupted' : 'finished');
  const summary = writeSummary(plan, o);
  say(
    `eval: ${summary.finished}/${summary.sessions} finished, accuracy ${Number.isFinite(summary.accuracy) ? summary.accuracy.toFixed(3) : '–'}, ${summary.correct} correct${interrupted ? ' (interrupted: run the same command again to resume)' : ''}; ${join(plan.outDir, 'summary.md')}`,
  );
  return { summary, ran, skipped, interrupted, outDir: plan.outDir };
}

/** Keeps a CPython interpreter started ahead of the next session; a failure is the sessions' to report. */
async function warmCPythonFor(python: string | undefined): Promise<void> {
  try {
    const [{ findPython }, { warmCPython }] = await Promise.all([
      import('../sandbox/python/python-install.ts'),
      import('../sandbox/python/cpython-process.ts'),
    ]);
    warmCPython(await findPython(python));
  } catch {
    // each session says why it cannot start
  }
}
