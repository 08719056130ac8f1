// The stores beside the studio store that hold something per session (coverage maps, labels,
// paused drafts, streaming replies) are made with it and told when a session closes; they
// refuse a late write (a worker's or the host's answer) for a session no longer open.

/** Whether a session is open in the studio store. */
export type IsOpen = (sessionId: string) => boolean;

/** Removes `key` from a Map held in a store: the new Map, or null when it was not there. */
export function without<K, V>(map: Map<K, V>, key: K): Map<K, V> | null {
  if (!map.has(key)) return null;
  const next = new Map(map);
  next.delete(key);
  return next;
}
