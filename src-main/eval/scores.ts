// DIR/scores.jsonl: scores given after the fact by `rlm-studio score` (a scorer module or a
// model judge), beside results.jsonl, which is never rewritten. One line per scored session,
// named by its scorer's id; scoring again appends, and for a scorer and session the last line
// counts (the earlier ones stay, as history). `stats --scores ID` and the app read one scorer's.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendLineSync } from '../logs/append-line.ts';
import { resultKey } from './results.ts';

export const SCORES_FILE = 'scores.jsonl';

/** What a model judge said of one session. */
export interface JudgeRecord {
  model: string;
  /** The verdict read from the reply; null when it gave none (scored 0). */
  verdict: 'correct' | 'incorrect' | null;
  /** The reply without its verdict line. */
  reasoning: string;
  /** The judge call's native log (relative to DIR), recorded like any model call. */
  logFile: string;
  costUsd: number | null;
}

export interface ScoreLine {
  scorer: string;
  id: string;
  /** Which session of the task (absent for the first), as in results.jsonl. */
  repeat?: number;
  score: number;
  correct: boolean;
  detail: string;
  scoredAt: string;
  judge?: JudgeRecord;
}

/** Appends every line in one write: a scorer that fails part-way leaves the file as it was. */
export function appendScores(dir: string, lines: readonly ScoreLine[]): void {
  if (lines.length === 0) return;
  appendLineSync(join(dir, SCORES_FILE), lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
}

export interface ScoresFile {
  /** Scorer ids in the order they first appear. */
  scorers: string[];
  /** Per scorer, the last line of each session (by its result key, `id` or `id#k`). */
  byScorer: Map<string, Map<string, ScoreLine>>;
  /** Lines that are not a score (a torn last line after a kill). */
  skipped: number;
}

function isScoreLine(v: unknown): v is ScoreLine {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return (
    typeof o['scorer'] === 'string' &&
    typeof o['id'] === 'string' &&
    typeof o['score'] === 'number' &&
    typeof o['correct'] === 'boolean' &&
    (o['repeat'] === undefined || typeof o['repeat'] === 'number')
  );
}

export function readScores(dir: string): ScoresFile {
  const path = join(dir, SCORES_FILE);
  const out: ScoresFile = { scorers: [], byScorer: new Map(), skipped: 0 };
  if (!existsSync(path)) return out;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      out.skipped++;
      continue;
    }
    if (!isScoreLine(v)) {
      out.skipped++;
      continue;
    }
    let m = out.byScorer.get(v.scorer);
    if (!m) {
      m = new Map();
      out.byScorer.set(v.scorer, m);
      out.scorers.push(v.scorer);
    }
    m.set(resultKey(v.id, v.repeat ?? 0), v);
  }
  return out;
}
