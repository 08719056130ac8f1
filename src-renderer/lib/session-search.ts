// Full-text search across a session: prompts, replies, reasoning, code, output, sub-calls, answers.
import type { RunId } from '../../src-shared/events.ts';
import { blocksOf, walkRuns, type TrajectoryState } from '../../src-shared/trajectory/index.ts';
import { errorLineOf } from './block-output.ts';

type HitField = 'prompt' | 'reply' | 'reasoning' | 'code' | 'output' | 'subcall' | 'answer';

export interface SearchHit {
  runId: RunId;
  iteration: number | null;
  field: HitField;
  /** Text around the match (plain text; rendered as text). */
  snippet: string;
  at: number;
  /** Occurrences in this text (the hit shows the first): a count of hits alone undercounts. */
  count: number;
}

/** Occurrences of `q` in `lower` from `at` on, not overlapping. */
function occurrences(lower: string, q: string, at: number): number {
  let n = 0;
  for (let i = at; i >= 0; i = lower.indexOf(q, i + q.length)) n++;
  return n;
}

function snippet(text: string, at: number, len: number): string {
  const from = Math.max(0, at - 40);
  return (from > 0 ? '…' : '') + text.slice(from, at + len + 60).replace(/\s+/g, ' ') + (at + len + 60 < text.length ? '…' : '');
}

/** One hit per text that holds the query (its first occurrence, and how many there are), at most `limit`. */
export function searchSession(state: TrajectoryState, query: string, limit = 500): SearchHit[] {
  const q = query.toLowerCase();
  if (q.length < 2) return [];
  const hits: SearchHit[] = [];
  const look = (text: string | null | undefined, runId: RunId, iteration: number | null, field: HitField): void => {
    if (!text || hits.length >= limit) return;
    const lower = text.toLowerCase();
    const at = lower.indexOf(q);
    if (at >= 0) hits.push({ runId, iteration, field, snippet: snippet(text, at, q.length), at, count: occurrences(lower, q, at) });
  };
  for (const run of walkRuns(state)) {
    // The run's initial messages are shown with its first iteration: a jump there shows the match.
    const first = run.iterations[0]?.iteration ?? null;
    for (const m of run.start?.messages ?? []) look(m.content, run.id, first, 'prompt');
    for (const it of run.iterations) {
      for (const m of [...(it.start?.appended ?? []), ...(it.reply?.transient ?? [])]) look(m.content, run.id, it.iteration, 'prompt');
      look(it.reply?.text, run.id, it.iteration, 'reply');
      look(it.reply?.reasoning?.text, run.id, it.iteration, 'reasoning');
      for (const b of blocksOf(it)) {
        look(b.start?.code, run.id, it.iteration, 'code');
        look(b.end?.stdout, run.id, it.iteration, 'output');
        look(b.end?.stderr, run.id, it.iteration, 'output');
        look(b.end ? errorLineOf(b.end) : null, run.id, it.iteration, 'output');
        for (const cid of b.calls) {
          const c = state.calls.get(cid);
          look(c?.start.prompt, run.id, it.iteration, 'subcall');
          look(c?.end?.response, run.id, it.iteration, 'subcall');
          look(c?.end?.reasoning?.text, run.id, it.iteration, 'reasoning');
        }
      }
    }
    look(run.end?.answer, run.id, null, 'answer');
    if (hits.length >= limit) break;
  }
  return hits;
}

/** The search's count line: occurrences, and the texts they are in when that differs. */
export function matchSummary(hits: readonly SearchHit[], limit = 500): string {
  const more = hits.length >= limit ? '+' : '';
  const total = hits.reduce((n, h) => n + h.count, 0);
  if (total === hits.length) return `${total}${more} ${total === 1 ? 'match' : 'matches'}`;
  return `${total}${more} matches in ${hits.length}${more} ${hits.length === 1 ? 'place' : 'places'}`;
}
