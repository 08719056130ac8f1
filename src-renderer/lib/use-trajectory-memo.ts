// What a view derives from a trajectory, memoised. A session's trajectory is the shared
// reducer's state, mutated in place by every event (copying it per event would be quadratic):
// its identity stays while its content changes, and its revision (`viewRev`, `traj.revision`)
// is what says it changed. React's `useMemo` would need its dependency check silenced for
// that at every use; this hook says it once instead.
import { useRef } from 'react';

/**
 * `compute(traj)`, computed again only when `traj`, its revision `rev` or one of `deps` (what
 * else `compute` reads) changes, each compared with `Object.is`.
 */
export function useTrajectoryMemo<S, T>(traj: S, rev: number, compute: (traj: S) => T, deps: readonly unknown[] = []): T {
  const cache = useRef<{ keys: readonly unknown[]; value: T } | null>(null);
  const keys = [traj, rev, ...deps];
  const was = cache.current;
  if (was !== null && was.keys.length === keys.length && was.keys.every((k, i) => Object.is(k, keys[i]))) return was.value;
  const value = compute(traj);
  cache.current = { keys, value };
  return value;
}
