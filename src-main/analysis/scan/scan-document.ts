// What a scanner reads about one log: the session document of tree queries (runs, iterations,
// sub-calls, labels; docs/queries.md) and, when the root context is known, its length, head
// and tail, so a rule can ask whether a model ever saw the end of it.
import type { SessionDoc } from '../../../src-shared/analysis/query-document.ts';

/** How much of the context's start and end a scan document carries. */
const CONTEXT_EDGE_CHARS = 256;

export interface ScanContext {
  chars: number;
  /** The first and last CONTEXT_EDGE_CHARS characters (the whole text when shorter). */
  head: string;
  tail: string;
}

export type ScanDocument = SessionDoc & { context: ScanContext | null };

export function scanContext(text: string | null): ScanContext | null {
  if (text === null) return null;
  return { chars: text.length, head: text.slice(0, CONTEXT_EDGE_CHARS), tail: text.slice(-CONTEXT_EDGE_CHARS) };
}
