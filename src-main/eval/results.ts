// results.jsonl: one line per finished task, appended with a single write as each task ends
// and never rewritten, so an interrupted evaluation resumes from it. A kill mid-write can
// leave one partial last line: readers skip it, and the next writer starts a fresh line.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { StopReason } from '../../src-shared/events.ts';
import type { UsageByModel } from '../../src-shared/trajectory/by-model.ts';
import type { Expected, ScorerName } from './tasks/types.ts';

export interface TaskResult {
  id: string;
  kind: string;
  sizeTokens: number | null;
  scorer: ScorerName;
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
  logFile: string | null;
  model: string;
  finishedAt: string;
}

export interface ResultsFile {
  results: TaskResult[];
  /** Lines that could not be parsed (a torn last line after a kill). */
  skipped: number;
  /** The file does not end with a newline: the next append must start a new line. */
  torn: boolean;
}

export function readResults(path: string): ResultsFile {
  if (!existsSync(path)) return { results: [], skipped: 0, torn: false };
  const text = readFileSync(path, 'utf8');
  const byId = new Map<string, TaskResult>();
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const r = JSON.parse(line) as TaskResult;
      if (typeof r.id !== 'string' || typeof r.score !== 'number') throw new Error('not a result');
      // First record wins: a task is never run again once it has one.
      if (!byId.has(r.id)) byId.set(r.id, r);
    } catch {
      skipped++;
    }
  }
  return { results: [...byId.values()], skipped, torn: text.length > 0 && !text.endsWith('\n') };
}

export class ResultsWriter {
  readonly path: string;
  private needsNewline: boolean;

  constructor(path: string, torn: boolean) {
    this.path = path;
    this.needsNewline = torn;
  }

  append(r: TaskResult): void {
    const line = `${this.needsNewline ? '\n' : ''}${JSON.stringify(r)}\n`;
    this.needsNewline = false;
    // One append(2) per task: a kill leaves whole lines before it.
    appendFileSync(this.path, line);
  }
}
