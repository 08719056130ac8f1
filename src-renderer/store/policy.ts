// Policy metrics opened from the host (`metrics.open`): by path, with the sources chosen as A
// and B for the success-set intersection and the figure the charts show. A store of its own,
// made with the studio store (one per app): nothing here belongs to a session.
import { createStore } from 'zustand/vanilla';
import type { SessionFigure } from '../../src-shared/analysis/policy-metrics.ts';
import type { PolicyOverview } from '../../src-shared/protocol.ts';

export interface PolicyState {
  sources: Map<string, PolicyOverview>;
  /** Paths being computed on the host. */
  loading: Set<string>;
  /** The source the detail shows: the last computed unless another is chosen. */
  shown: string | null;
  a: string | null;
  b: string | null;
  figure: SessionFigure;
  put(o: PolicyOverview): void;
  setLoading(path: string, on: boolean): void;
  pick(v: Partial<Pick<PolicyState, 'shown' | 'a' | 'b' | 'figure'>>): void;
  /** Forgets a source (a view that failed on it is closed; computing it again asks the host anew). */
  drop(path: string): void;
}

export function createPolicyStore() {
  return createStore<PolicyState>()((set, get) => ({
    sources: new Map(),
    loading: new Set(),
    shown: null,
    a: null,
    b: null,
    figure: 'subcalls',
    put: (o) => {
      const sources = new Map(get().sources);
      sources.set(o.path, o);
      const { a, b } = get();
      set({ sources, shown: o.path, a: a ?? o.path, b: b === null && a !== null && a !== o.path ? o.path : b });
    },
    setLoading: (path, on) => {
      const loading = new Set(get().loading);
      if (on) loading.add(path);
      else loading.delete(path);
      set({ loading });
    },
    pick: (v) => set(v),
    drop: (path) => {
      const sources = new Map(get().sources);
      sources.delete(path);
      const { shown, a, b } = get();
      const keep = (p: string | null): string | null => (p === path ? null : p);
      set({ sources, shown: keep(shown), a: keep(a), b: keep(b) });
    },
  }));
}
