// A run's label: one line saying what it is about, and siblings' shared heads cut off. Its own
// module so that the tree rows and the per-run derivations both use it without importing each
// other.
import type { RunNode, TrajectoryState } from '../../src-shared/trajectory/index.ts';

/** The text a run's label is made from (see `runLabel`). */
export function labelSource(state: TrajectoryState, run: RunNode): string {
  const call = run.spawnedBy ? state.calls.get(run.spawnedBy.callId) : undefined;
  return run.start?.query || call?.start.prompt || run.start?.messages.find((m) => m.role === 'user')?.content || '';
}

/**
 * What a run is about, in one line: its query, else (a child run) the prompt its parent sent
 * it, else its first user message; the model name only when there is nothing else. Child
 * runs of one fan-out share a model, so the model alone tells them apart from nothing.
 */
export function runLabel(state: TrajectoryState, run: RunNode, max = 80): string {
  const text = labelSource(state, run);
  // Only the head is shown: flattening a whole prompt (it may carry a context chunk) per row render cost 70 ms per commit on a big tree.
  const flat = text
    .slice(0, max * 4)
    .replace(/\s+/g, ' ')
    .trim();
  if (flat === '') return run.start?.model ?? run.id;
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Siblings' labels are compared over this many characters; a shorter shared head is kept. */
export const SHARED_HEAD_SCAN = 200;

export const MIN_SHARED_HEAD = 12;

/** `label` without its first `head` characters, cut at a word where one is near, marked with "…". */
export function withoutHead(label: string, head: number): string {
  if (head === 0) return label;
  const space = label.lastIndexOf(' ', head);
  const cut = space > head - 16 ? space + 1 : head;
  const rest = label.slice(cut).trim();
  return rest === '' ? label : `…${rest}`;
}
