// Runs a dataset: bounded parallel sessions in this process, one native log per task, a
// result line appended per finished task. Resumable: tasks with a line in results.jsonl are
// never run again; an interrupted task (no line) runs again from the start, and its partial
// log is kept under another name.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { asSessionId } from '../../src-shared/events.ts';
import { makeHeader } from '../../src-shared/codecs/native-lines.ts';
import type { ToolSpec } from '../engine/config.ts';
import { EventRecorder, RlmConversation, type RunOutcome, type ConversationSettings, type WorkedExample } from '../engine/index.ts';
import type { Sampling } from '../lm/sampling.ts';
import type { LmClient } from '../lm/types.ts';
import { NativeLogFile } from '../logs/native-file-sink.ts';
import { loadTaskContext, readDataset, type Dataset } from './dataset.ts';
import { readResults, ResultsWriter, type TaskResult } from './results.ts';
import { summarize, summaryMarkdown, type EvalSummary } from './summary.ts';
import { scoreAnswer } from './tasks/scorers.ts';
import type { EvalTask } from './tasks/types.ts';

export interface EvalOptions extends ConversationSettings {
  /** Replaces the built-in system prompt of every task's session (`{tools}` filled in). */
  systemPrompt?: string;
  /** Custom tools for every task's session. */
  tools?: Record<string, ToolSpec>;
  /** Worked examples shown to every task's root run. */
  examples?: WorkedExample[];
  dataset: string;
  outDir: string;
  client: LmClient;
  /** Sub-calls' client (another endpoint or sampling); absent: `client`. */
  subClient?: LmClient;
  /** The sampling of each role, recorded in eval.json (a resumed run must not change them). */
  roles?: { sampling: Sampling; sub: { baseUrl: string; sampling: Sampling } | null };
  /** Recorded in eval.json so a resumed run can refuse a different configuration. */
  baseUrl: string;
  model: string;
  /** Sessions at once. */
  parallel: number;
  onProgress?: (line: string) => void;
  signal?: AbortSignal;
}

export class EvalConfigError extends Error {
  override name = 'EvalConfigError';
}

export interface EvalRunResult {
  summary: EvalSummary;
  /** Tasks run (finished) in this invocation. */
  ran: number;
  /** Tasks skipped because results.jsonl already had them. */
  skipped: number;
  interrupted: boolean;
  outDir: string;
}

/** What must match for a resumed run to continue the same evaluation. */
function configKey(o: EvalOptions, dataset: Dataset): Record<string, unknown> {
  return {
    dataset: dataset.path,
    model: o.model,
    subModel: o.subModel ?? null,
    maxDepth: o.maxDepth ?? 1,
    maxIterations: o.maxIterations ?? null,
    childLlmModel: o.childLlmModel ?? 'sub',
    finalPatterns: o.finalPatterns ?? false,
    repl: o.repl ?? 'javascript',
    // The prompt by its hash (eval.json stays small), the tools by their names.
    systemPrompt: o.systemPrompt === undefined ? null : createHash('sha256').update(o.systemPrompt).digest('hex').slice(0, 16),
    tools: o.tools === undefined ? null : Object.keys(o.tools).sort(),
    // Each example by its file and the hash of its rendering (which the budget shapes).
    examples:
      o.examples === undefined || o.examples.length === 0
        ? null
        : o.examples.map((e) => ({ source: e.source, text: createHash('sha256').update(e.text).digest('hex').slice(0, 16) })),
    // Absent (null) when unset, so evaluations recorded before these existed still resume.
    sampling: o.roles && Object.keys(o.roles.sampling).length > 0 ? o.roles.sampling : null,
    subCalls: o.roles?.sub ?? null,
  };
}

function checkConfig(metaPath: string, key: Record<string, unknown>, baseUrl: string): void {
  if (!existsSync(metaPath)) {
    writeFileSync(metaPath, `${JSON.stringify({ ...key, baseUrl, createdAt: new Date().toISOString() }, null, 2)}\n`);
    return;
  }
  // Evaluations recorded before Python ran JavaScript (and routed a child's llm_query to the sub model).
  const prev: Record<string, unknown> = {
    repl: 'javascript',
    childLlmModel: 'sub',
    ...(JSON.parse(readFileSync(metaPath, 'utf8')) as Record<string, unknown>),
  };
  const diff = Object.keys(key).filter((k) => JSON.stringify(prev[k] ?? null) !== JSON.stringify(key[k] ?? null));
  if (diff.length > 0) {
    throw new EvalConfigError(
      `${metaPath} records a different evaluation (${diff.map((k) => `${k}: ${JSON.stringify(prev[k] ?? null)} there, ${JSON.stringify(key[k] ?? null)} now`).join('; ')}); resume with the same settings or use another --out`,
    );
  }
}

const safeName = (id: string): string => id.replace(/[^\w.-]+/g, '_').slice(0, 120);

/** A fresh log path for a task; an earlier partial log (interrupted run) is renamed, never overwritten. */
function logPathFor(logsDir: string, id: string): string {
  const path = join(logsDir, `${safeName(id)}.rlm.jsonl`);
  if (existsSync(path)) {
    let k = 1;
    while (existsSync(join(logsDir, `${safeName(id)}.interrupted-${k}.rlm.jsonl`))) k++;
    renameSync(path, join(logsDir, `${safeName(id)}.interrupted-${k}.rlm.jsonl`));
  }
  return path;
}

export async function runEval(o: EvalOptions): Promise<EvalRunResult> {
  // Refused here, not task by task: every session would fail the same way.
  if ((o.examples?.length ?? 0) > 0 && o.maxDepth === 0)
    throw new EvalConfigError('worked examples need a REPL: maxDepth 0 is a direct call with no code to write');
  const dataset = await readDataset(o.dataset);
  const outDir = resolve(o.outDir);
  const logsDir = join(outDir, 'logs');
  mkdirSync(logsDir, { recursive: true });
  checkConfig(join(outDir, 'eval.json'), configKey(o, dataset), o.baseUrl);

  const resultsPath = join(outDir, 'results.jsonl');
  const previous = readResults(resultsPath);
  const writer = new ResultsWriter(resultsPath, previous.torn);
  const done = new Set(previous.results.map((r) => r.id));
  const pending = dataset.tasks.filter((t) => !done.has(t.id));
  const skipped = dataset.tasks.length - pending.length;
  // Every Python task (and its children) takes an interpreter; keep one started ahead.
  if (o.repl === 'python' && pending.length > 0) void import('../sandbox/python/pool.ts').then((pool) => pool.warmPython());
  const say = o.onProgress ?? ((): void => undefined);
  say(
    `eval: ${dataset.tasks.length} task(s) in ${dataset.path}; ${skipped} already finished${previous.skipped > 0 ? ` (${previous.skipped} unreadable line(s) in results.jsonl ignored)` : ''}; running ${pending.length}, ${Math.min(o.parallel, pending.length)} at a time`,
  );

  let finished = skipped;
  let running = 0;
  let ran = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < pending.length && !o.signal?.aborted) {
      const task = pending[next++]!;
      running++;
      try {
        const result = await runTask(task, dataset, logsDir, o);
        if (result === null) return; // interrupted: no line, so it runs again on resume
        writer.append(result);
        ran++;
        finished++;
        say(
          `[${String(finished).padStart(String(dataset.tasks.length).length)}/${dataset.tasks.length}] ${result.correct ? '✓' : result.score > 0 ? '~' : '✗'} ${task.id}  score ${result.score.toFixed(3)}  ${(result.durationMs / 1000).toFixed(2)} s  ${result.usage.calls} calls  $${(result.usage.costUsd ?? 0).toFixed(6)}${result.stopReason !== 'answered' ? `  (${result.stopReason})` : ''}  [${running - 1} running]`,
        );
      } finally {
        running--;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.parallel, pending.length)) }, () => worker()));

  const all = readResults(resultsPath).results;
  const summary = summarize(all, {
    dataset: dataset.path,
    model: o.model,
    subModel: o.subModel ?? null,
    maxDepth: o.maxDepth ?? 1,
    tasks: dataset.tasks.length,
  });
  writeFileSync(join(outDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  writeFileSync(join(outDir, 'summary.md'), summaryMarkdown(summary));
  const interrupted = o.signal?.aborted ?? false;
  say(
    `eval: ${summary.finished}/${summary.tasks} finished, accuracy ${Number.isFinite(summary.accuracy) ? summary.accuracy.toFixed(3) : '–'}, ${summary.correct} correct${interrupted ? ' (interrupted: run the same command again to resume)' : ''}; ${join(outDir, 'summary.md')}`,
  );
  return { summary, ran, skipped, interrupted, outDir };
}

/** Runs one task to a result; null when the evaluation was interrupted meanwhile. */
async function runTask(task: EvalTask, dataset: Dataset, logsDir: string, o: EvalOptions): Promise<TaskResult | null> {
  const base = {
    id: task.id,
    kind: task.kind,
    sizeTokens: task.sizeTokens ?? null,
    scorer: task.scorer,
    expected: task.expected,
    model: o.model,
  };
  const failed = (message: string): TaskResult => ({
    ...base,
    score: 0,
    correct: false,
    scoreDetail: 'not run',
    answer: null,
    stopReason: 'error',
    message,
    iterations: 0,
    durationMs: 0,
    usage: { inputTokens: 0, outputTokens: 0, calls: 0, costUsd: 0 },
    logFile: null,
    finishedAt: new Date().toISOString(),
  });
  let context;
  try {
    context = await loadTaskContext(task, dataset.dir);
  } catch (err) {
    return failed((err as Error).message);
  }
  const sessionId = asSessionId(randomUUID());
  const log = new NativeLogFile(logPathFor(logsDir, task.id), makeHeader(sessionId, new Date(), undefined, o.repl ?? 'javascript'));
  const recorder = new EventRecorder((e) => log.append(e));
  let outcome: RunOutcome;
  let session: RlmConversation | null = null;
  try {
    const {
      dataset: _dataset,
      outDir: _outDir,
      baseUrl: _baseUrl,
      parallel: _parallel,
      onProgress: _onProgress,
      signal: _signal,
      roles: _roles,
      ...config
    } = o;
    session = new RlmConversation(config, { sink: recorder });
    outcome = await session.completion(context, task.query, o.signal ? { signal: o.signal } : {});
  } catch (err) {
    return { ...failed((err as Error).message), logFile: log.path };
  } finally {
    session?.close();
    log.close();
  }
  if (outcome.stopReason === 'cancelled' && o.signal?.aborted) return null;
  const score = scoreAnswer(task.scorer, task.expected, outcome.answer);
  return {
    ...base,
    score: score.score,
    correct: score.correct,
    scoreDetail: score.detail,
    answer: outcome.answer,
    stopReason: outcome.stopReason,
    message: outcome.message,
    iterations: outcome.iterations,
    durationMs: outcome.durationMs,
    usage: outcome.usage,
    logFile: log.path,
    finishedAt: new Date().toISOString(),
  };
}
