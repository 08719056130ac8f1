// A trajectory is mutated in place: what a view derives from it is computed again when its
// revision moves (or another input changes), and not on a render where none did.
import { renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { useTrajectoryMemo } from '../../../src-renderer/lib/use-trajectory-memo.ts';

describe('useTrajectoryMemo', () => {
  it('recomputes on a new revision of the same (mutated) object or a changed input, and only then', () => {
    const traj = { events: [1, 2] };
    let computed = 0;
    const { result, rerender } = renderHook(
      ({ rev, q }: { rev: number; q: number }) =>
        useTrajectoryMemo(traj, rev, (t) => (computed++, t.events.filter((e) => e > q).length), [q]),
      { initialProps: { rev: 1, q: 0 } },
    );
    expect(result.current).toBe(2);
    rerender({ rev: 1, q: 0 });
    expect(computed).toBe(1);
    traj.events.push(3);
    rerender({ rev: 2, q: 0 });
    expect([result.current, computed]).toEqual([3, 2]);
    rerender({ rev: 2, q: 2 });
    expect([result.current, computed]).toEqual([1, 3]);
  });
});
