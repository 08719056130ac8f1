// results.jsonl: one line per finished task, appended with a single write as each task ends
// and never rewritten, so an interrupted evaluation resumes from it. A kill mid-write can
// leave one partial last line: readers skip it, and the next writer starts a fresh line.
// A task run K times (`--repeat K`) has one line per session, told apart by `repeat`.
import { existsSync, readFileSync } from 'node:fs';
import { appendLineSync } from '../logs/append-line.ts';
import type { StopReason } from '../../src-shared/events.ts';
import type { UsageByModel } from '../../src-shared/trajectory/by-model.ts';
import type { Expected, ScorerName } from './tasks/types.ts';

export interface TaskResult {
  id: string;
  /** Which of the task's sessions (from 0) under `--repeat K`; absent for the first, as in results written before repeats. */
  repeat?: number;
  kind: string;
  sizeTokens: number | null;
  /** The task's scorer, or the id of the `--scorer` module that scored it. */
  scorer: ScorerName | string;
  score: number;
  correct: boolean;
  scoreDetail: string;
  /** The answer as submitted (long answers are kept whole: pairs can be thousands of lines). */
  answer: string | null;
  expected: Expected;
  stopReason: StopReason;
  message: string | null;
  iterations: number;
  durationMs: number;
  /** `byModel` is absent in results written before it existed. */
  usage: { inputTokens: number; outputTokens: number; calls: number; costUsd: number | null; byModel?: UsageByModel };
  /** Requests the endpoint refused or failed before it answered (the client's retries); absent when none. */
  retries?: number;
  logFile: string | null;
  model: string;
  finishedAt: string;
}

export interface ResultsFile {
  results: TaskResult[];
  /** Lines that could not be parsed (a torn last line after a kill). */
  skipped: number;
}

/** One session of one task: the task's id, with `#k` for repeats after the first. */
export function resultKey(id: string, repeat = 0): string {
  return repeat === 0 ? id : `${id}#${repeat}`;
}

/** Which of two lines of the same session counts: the first, unless it ended in an error and a later one did not (`--retry-errors`). */
export function supersedes(earlier: { stopReason: string }, later: { stopReason: string }): boolean {
  return earlier.stopReason === 'error' && later.stopReason !== 'error';
}

export function readResults(path: string): ResultsFile {
  if (!existsSync(path)) return { results: [], skipped: 0 };
  const text = readFileSync(path, 'utf8');
  const byId = new Map<string, TaskResult>();
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const r = JSON.parse(line) as TaskResult;
      if (typeof r.id !== 'string' || typeof r.score !== 'number') throw new Error('not a result');
      const key = resultKey(r.id, r.repeat ?? 0);
      const prev = byId.get(key);
      // First record wins (a session is never run again once it has one), except over an error that was retried.
      if (prev === undefined || supersedes(prev, r)) byId.set(key, r);
    } catch {
      skipped++;
    }
  }
  return { results: [...byId.values()], skipped };
}

export class ResultsWriter {
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  append(r: TaskResult): void {
    // One append(2) per task: a kill leaves whole lines before it, and after a torn line the
    // next result starts a line of its own.
    appendLineSync(this.path, `${JSON.stringify(r)}\n`);
  }
}
