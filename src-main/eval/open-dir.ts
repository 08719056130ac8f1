// Reads an evaluation directory for viewing (`eval.open`, `rlm-studio view DIR`): settings
// from eval.json, one row per task from results.jsonl. Tolerant, unlike the runner's resume
// path: a torn or malformed line is reported by line number and skipped, never fatal, since
// the evaluation may still be running or may have been killed mid-write.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import type { EvalOverview, EvalProgress, EvalSettings, EvalTaskRow } from '../../src-shared/protocol.ts';
import { resultKey, supersedes } from './results.ts';
import { readScores, SCORES_FILE } from './scores.ts';

export class EvalDirError extends Error {
  override name = 'EvalDirError';
  readonly code: 'not_found' | 'bad_request';
  constructor(code: 'not_found' | 'bad_request', message: string) {
    super(message);
    this.code = code;
  }
}

/** The fields a view needs; anything else on the line is ignored (older or newer writers). */
const ModelUsage = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  calls: z.number(),
  costUsd: z.number().nullable(),
  cachedInputTokens: z.number().optional(),
  reasoningTokens: z.number().optional(),
});
const ByModel = z.record(z.string(), ModelUsage);

const ResultLine = z.looseObject({
  id: z.string().min(1),
  repeat: z.number().int().nonnegative().default(0),
  kind: z.string().default('unknown'),
  sizeTokens: z.number().nullable().default(null),
  score: z.number(),
  correct: z.boolean().default(false),
  stopReason: z.string().default('unknown'),
  iterations: z.number().default(0),
  durationMs: z.number().default(0),
  usage: z
    .looseObject({
      calls: z.number().default(0),
      costUsd: z.number().nullable().default(null),
      byModel: ByModel.nullable().catch(null).default(null),
    })
    .default({ calls: 0, costUsd: null, byModel: null }),
  retries: z.number().int().nonnegative().catch(0).default(0),
  logFile: z.string().nullable().default(null),
});

const str = z.string().nullable().catch(null);
const num = z.number().nullable().catch(null);
const EvalJson = z.looseObject({
  dataset: str.default(null),
  model: str.default(null),
  subModel: str.default(null),
  maxDepth: num.default(null),
  maxIterations: num.default(null),
  baseUrl: str.default(null),
  createdAt: str.default(null),
});

const ProgressJson = z.object({
  state: z.enum(['running', 'finished', 'interrupted']),
  mode: z.enum(['local', 'queue']),
  total: z.number(),
  done: z.number(),
  failed: z.number(),
  running: z.number(),
  costUsd: z.number().nullable(),
  perMinute: z.number(),
  etaMs: z.number().nullable(),
  startedAt: z.string(),
  updatedAt: z.string(),
  host: z.string(),
  pid: z.number(),
}) satisfies z.ZodType<EvalProgress>;

/** A running evaluation rewrites progress.json at least this often (the runner's heartbeat); older means it died. */
const LIVE_WITHIN_MS = 15_000;

function readProgress(dir: string, problems: string[]): EvalOverview['progress'] {
  const path = join(dir, 'progress.json');
  if (!existsSync(path)) return null;
  try {
    const p = ProgressJson.parse(JSON.parse(readFileSync(path, 'utf8')));
    return { ...p, live: p.state === 'running' && Date.now() - Date.parse(p.updatedAt) < LIVE_WITHIN_MS };
  } catch (err) {
    problems.push(`progress.json is unreadable (${(err as Error).message.split('\n')[0]})`);
    return null;
  }
}

export function isEvalDir(path: string): boolean {
  try {
    return statSync(path).isDirectory() && (existsSync(join(path, 'results.jsonl')) || existsSync(join(path, 'eval.json')));
  } catch {
    return false;
  }
}

/**
 * The task's log: DIR/logs/<name> when there (so a copied or moved directory shows its own
 * logs), else the path as recorded; null when neither exists.
 */
function resolveLog(dir: string, logFile: string | null): string | null {
  if (logFile === null) return null;
  const own = join(dir, 'logs', basename(logFile));
  if (existsSync(own)) return own;
  return existsSync(logFile) ? resolve(logFile) : null;
}

export interface ReadEvalOptions {
  /**
   * Read correctness and scores from this scorer's lines of scores.jsonl (`rlm-studio score`)
   * instead of results.jsonl's; a session it has not scored keeps its result's (a note says how many).
   */
  scorer?: string;
}

export function readEvalDir(path: string, options: ReadEvalOptions = {}): EvalOverview {
  const dir = resolve(path);
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw new EvalDirError('not_found', `cannot open the evaluation ${path}: no such directory`);
  }
  if (!isDir) throw new EvalDirError('bad_request', `${path} is not a directory (an evaluation is the --out directory of rlm-studio eval)`);
  const resultsPath = join(dir, 'results.jsonl');
  const metaPath = join(dir, 'eval.json');
  if (!existsSync(resultsPath) && !existsSync(metaPath)) {
    throw new EvalDirError(
      'bad_request',
      `${path} is not an evaluation directory: it has neither results.jsonl nor eval.json (written by rlm-studio eval --out)`,
    );
  }
  const problems: string[] = [];

  let settings: EvalSettings = {
    dataset: null,
    model: null,
    subModel: null,
    maxDepth: null,
    maxIterations: null,
    baseUrl: null,
    createdAt: null,
  };
  if (existsSync(metaPath)) {
    try {
      const m = EvalJson.parse(JSON.parse(readFileSync(metaPath, 'utf8')));
      settings = {
        dataset: m.dataset,
        model: m.model,
        subModel: m.subModel,
        maxDepth: m.maxDepth,
        maxIterations: m.maxIterations,
        baseUrl: m.baseUrl,
        createdAt: m.createdAt,
      };
    } catch (err) {
      problems.push(`eval.json is unreadable (${(err as Error).message.split('\n')[0]}); settings unknown`);
    }
  } else problems.push('no eval.json: settings unknown');

  let datasetTasks: number | null = null;
  try {
    const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as { tasks?: unknown };
    if (typeof s.tasks === 'number') datasetTasks = s.tasks;
  } catch {
    // No summary yet (the evaluation is running or was killed): the total is unknown.
  }

  const rows = new Map<string, EvalTaskRow & { stopReason: string }>();
  const text = existsSync(resultsPath) ? readFileSync(resultsPath, 'utf8') : '';
  const lines = text.split('\n');
  let missingLogs = 0;
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const last = i === lines.length - 1; // no newline after it: a write may have been cut short
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      problems.push(
        last
          ? `results.jsonl line ${i + 1} is incomplete (cut off mid-write?) and was skipped`
          : `results.jsonl line ${i + 1} is not JSON and was skipped`,
      );
      return;
    }
    const r = ResultLine.safeParse(raw);
    if (!r.success) {
      const issue = r.error.issues[0];
      problems.push(
        `results.jsonl line ${i + 1} is not a task result (${issue ? `${issue.path.join('.') || 'line'}: ${issue.message}` : 'invalid'}) and was skipped`,
      );
      return;
    }
    const d = r.data;
    // The runner's rule: the first line of a session wins, unless it was an error that was retried.
    const key = resultKey(d.id, d.repeat);
    const prev = rows.get(key);
    if (prev !== undefined && !supersedes(prev, d)) return;
    const logFile = resolveLog(dir, d.logFile);
    if (d.logFile !== null && logFile === null) missingLogs++;
    rows.set(key, {
      id: key,
      taskId: d.id,
      repeat: d.repeat,
      kind: d.kind,
      sizeTokens: d.sizeTokens,
      score: d.score,
      correct: d.correct,
      stopReason: d.stopReason,
      costUsd: d.usage.costUsd,
      durationMs: d.durationMs,
      calls: d.usage.calls,
      ...(d.retries > 0 ? { retries: d.retries } : {}),
      iterations: d.iterations,
      logFile,
      sessionId: null,
      byModel: d.usage.byModel,
    });
  });
  if (missingLogs > 0) problems.push(`${missingLogs} task log(s) named in results.jsonl are missing`);
  const scores = readScores(dir);
  if (scores.skipped > 0) problems.push(`${scores.skipped} line(s) of ${SCORES_FILE} are not scores and were skipped`);
  if (options.scorer !== undefined) {
    const chosen = scores.byScorer.get(options.scorer);
    if (!chosen)
      throw new EvalDirError(
        'bad_request',
        `${path} has no scores by "${options.scorer}"${scores.scorers.length > 0 ? ` (${SCORES_FILE} has: ${scores.scorers.join(', ')})` : ` (no ${SCORES_FILE}: score it with rlm-studio score)`}`,
      );
    let unscored = 0;
    for (const [key, row] of rows) {
      const s = chosen.get(key);
      if (!s) {
        unscored++;
        continue;
      }
      row.score = s.score;
      row.correct = s.correct;
    }
    if (unscored > 0)
      problems.push(
        `${unscored} session(s) have no score by "${options.scorer}" (finished after it ran?): their results.jsonl score is used`,
      );
  }
  const progress = readProgress(dir, problems);
  return {
    dir,
    name: basename(dir),
    settings,
    datasetTasks: datasetTasks ?? progress?.total ?? null,
    tasks: [...rows.values()],
    problems,
    progress,
    scorers: scores.scorers,
    scorer: options.scorer ?? null,
  };
}
