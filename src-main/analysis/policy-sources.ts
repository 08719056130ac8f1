// Reads what policy metrics are computed over: one log, a folder of logs (any supported
// format, searched recursively) or an evaluation's --out folder (results.jsonl gives each
// task's log and whether it was correct). Each log is streamed once, folded into a run tree
// without its texts (withoutTexts), and dropped, so a folder of thousands of logs stays small.
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { LogFormat } from '../../src-shared/codecs/detect.ts';
import { formatProblem, type ReadProblem } from '../../src-shared/codecs/lines.ts';
import type { SessionRow } from '../../src-shared/analysis/policy-aggregate.ts';
import { policyMetrics, withoutTexts, type SessionMetrics } from '../../src-shared/analysis/policy-metrics.ts';
import { addByModel } from '../../src-shared/trajectory/by-model.ts';
import { applyEvent, createTrajectoryState } from '../../src-shared/trajectory/reducer.ts';
import { StatsAccumulator, type LogStats } from '../../src-shared/trajectory/log-stats.ts';
import { EvalDirError, isEvalDir, readEvalDir, type ReadEvalOptions } from '../eval/open-dir.ts';
import { expandLogInputs } from '../export/log-inputs.ts';
import { readLogBatches } from '../logs/read-log.ts';

interface LogMetrics {
  path: string;
  format: LogFormat | null;
  /** Events read. */
  events: number;
  /** Today's `stats` numbers for this log. */
  stats: LogStats;
  sessions: SessionMetrics[];
  problems: ReadProblem[];
}

/** One log: the streaming stats and the policy metrics of each of its sessions, in one read. */
async function readLogMetrics(path: string): Promise<LogMetrics> {
  const acc = new StatsAccumulator();
  const state = createTrajectoryState();
  const problems: ReadProblem[] = [];
  let format: LogFormat | null = null;
  let events = 0;
  for await (const batch of readLogBatches(path))
    for (const item of batch) {
      if (item.kind === 'event') {
        events++;
        acc.push(item.event);
        applyEvent(state, withoutTexts(item.event));
      } else if (item.kind === 'problem') problems.push(item.problem);
      else if (item.kind === 'format') format = item.format;
    }
  return { path, format, events, stats: acc.result(), sessions: policyMetrics(state), problems };
}

export interface PolicySource {
  path: string;
  kind: 'log' | 'folder' | 'evaluation';
  /** Logs read (unreadable or unknown files are in `problems`, not here). */
  logs: LogMetrics[];
  rows: SessionRow[];
  /** Today's `stats` numbers summed over the logs. */
  stats: LogStats;
  /** In words, one per problem: files skipped, lines that could not be read, missing logs. */
  problems: string[];
}

function sumStats(all: readonly LogStats[]): LogStats {
  // An accumulator that saw nothing: every counter 0, cost 0 (no call, so not unknown).
  const t = new StatsAccumulator().result();
  for (const s of all) {
    t.sessions += s.sessions;
    t.runs += s.runs;
    t.maxDepth = Math.max(t.maxDepth, s.maxDepth);
    t.iterations += s.iterations;
    t.codeBlocks += s.codeBlocks;
    t.llmCalls += s.llmCalls;
    t.rlmCalls += s.rlmCalls;
    t.errors += s.errors;
    t.inputTokens += s.inputTokens;
    t.outputTokens += s.outputTokens;
    t.cachedInputTokens += s.cachedInputTokens;
    t.reasoningTokens += s.reasoningTokens;
    t.costUsd = (t.costUsd ?? 0) + (s.costUsd ?? 0);
    t.retries += s.retries;
    t.cutReplies += s.cutReplies;
    t.wallMs += s.wallMs;
    addByModel(t.byModel, s.byModel);
  }
  // Unknown when calls were made and none had a price (every model's cost unknown), as for one log.
  const models = Object.values(t.byModel).filter((m) => m.calls > 0);
  if (models.length > 0 && models.every((m) => m.costUsd === null)) t.costUsd = null;
  else if (t.costUsd !== null) t.costUsd = Math.round(t.costUsd * 1e6) / 1e6;
  return t;
}

const oneLine = (s: string, n: number): string => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > n ? `${flat.slice(0, n - 1)}…` : flat;
};

/**
 * The sessions of a log. An evaluation's task groups its repeats by the dataset's task id (the
 * session key `id#k` is not a task); without results, repeats are the same question on the same
 * context size.
 */
function rowsOf(log: LogMetrics, task: { taskId: string; repeat: number; correct: boolean; score: number } | null): SessionRow[] {
  return log.sessions.map((m) => ({
    logFile: log.path,
    rootRunId: m.rootRunId,
    taskId: task?.taskId ?? null,
    repeat: task?.repeat ?? null,
    taskKey: task ? `task:${task.taskId}` : `query:${m.contextChars ?? '?'}:${m.query ?? basename(log.path)}`,
    taskLabel: task ? task.taskId : m.query ? oneLine(m.query, 80) : basename(log.path),
    correct: task?.correct ?? null,
    score: task?.score ?? null,
    metrics: m,
  }));
}

function problemLines(log: LogMetrics): string[] {
  return log.problems.map((p) => `${log.path}: ${p.severity === 'warning' ? 'warning: ' : ''}${formatProblem(p)}`);
}

/** Reads LOG, DIR or an evaluation folder. Throws (with a message naming the path) when `path` does not exist. */
export async function readPolicySource(
  path: string,
  onProgress?: (done: number, total: number) => void,
  options: ReadEvalOptions = {},
): Promise<PolicySource> {
  const isDir = (await stat(path)).isDirectory();
  if (options.scorer !== undefined && !(isDir && isEvalDir(path)))
    throw new EvalDirError(
      'bad_request',
      `${path} is not an evaluation folder: only an evaluation has scores (--scores ${options.scorer})`,
    );
  const problems: string[] = [];
  const logs: LogMetrics[] = [];
  const rows: SessionRow[] = [];
  if (isDir && isEvalDir(path)) {
    const ev = readEvalDir(path, options);
    problems.push(...ev.problems);
    let done = 0;
    for (const task of ev.tasks) {
      onProgress?.(done++, ev.tasks.length);
      if (task.logFile === null) continue;
      const log = await readLogMetrics(task.logFile);
      problems.push(...problemLines(log));
      if (log.format === null) continue;
      logs.push(log);
      rows.push(...rowsOf(log, task));
    }
    return { path, kind: 'evaluation', logs, rows, stats: sumStats(logs.map((l) => l.stats)), problems };
  }
  const inputs = await expandLogInputs([path]);
  let done = 0;
  for (const input of inputs) {
    onProgress?.(done++, inputs.length);
    const log = await readLogMetrics(input.path);
    if (log.format === null && !input.explicit) {
      problems.push(`${input.path}: skipped, not a log in a known format`);
      continue;
    }
    problems.push(...problemLines(log));
    logs.push(log);
    rows.push(...rowsOf(log, null));
  }
  return { path, kind: isDir ? 'folder' : 'log', logs, rows, stats: sumStats(logs.map((l) => l.stats)), problems };
}
