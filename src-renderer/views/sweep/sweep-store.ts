// The sweeps the Sweep view has open, and which two configurations it compares. Its own small
// store, so the view keeps what it showed across tab switches without touching the studio store.
import { create } from 'zustand';
import type { SweepOverview } from '../../../src-shared/analysis/sweep.ts';

interface SweepState {
  sweeps: Map<string, SweepOverview>;
  active: string | null;
  /** Configuration ids compared as A and B (null: not chosen). */
  a: string | null;
  b: string | null;
  show: (s: SweepOverview) => void;
  pick: (p: Partial<Pick<SweepState, 'active' | 'a' | 'b'>>) => void;
}

export const useSweeps = create<SweepState>((set) => ({
  sweeps: new Map(),
  active: null,
  a: null,
  b: null,
  show: (s) =>
    set((st) => {
      const sweeps = new Map(st.sweeps);
      sweeps.set(s.dir, s);
      const ids = s.summary.configs.map((c) => c.id);
      const keep = st.active === s.dir;
      // A new sweep compares its first two configurations until others are picked.
      return {
        sweeps,
        active: s.dir,
        a: keep && st.a !== null && ids.includes(st.a) ? st.a : (ids[0] ?? null),
        b: keep && st.b !== null && ids.includes(st.b) ? st.b : (ids[1] ?? null),
      };
    }),
  pick: (p) => set(p),
}));
