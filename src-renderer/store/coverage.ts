// The context coverage maps computed in this page, by session, and the sub-call a click on
// the strip asked the run view to open. Not in the studio store: nothing else reads them,
// and a map is recomputed from the context file whenever the user picks one.
import { create } from 'zustand';
import type { CoverageReport } from '../../src-shared/analysis/coverage.ts';
import type { UnseenPreview } from '../lib/coverage-messages.ts';

type CoverageEntry =
  | { status: 'working'; fileName: string }
  | { status: 'done'; fileName: string; report: CoverageReport; largestUnseen: UnseenPreview[]; ms: number }
  | { status: 'error'; fileName: string; message: string };

/** Which spans the strip shows: the whole session, the selected run's, the selected iteration's. */
export type CoverageScope = 'session' | 'run' | 'iteration';

interface CoverageStore {
  bySession: Map<string, CoverageEntry>;
  /** A sub-call to open (and scroll to) in the run view. */
  focusCall: string | null;
  set(sessionId: string, entry: CoverageEntry | null): void;
  focus(callId: string | null): void;
}

export const useCoverage = create<CoverageStore>((set) => ({
  bySession: new Map(),
  focusCall: null,
  set: (sessionId, entry) =>
    set((s) => {
      const next = new Map(s.bySession);
      if (entry) next.set(sessionId, entry);
      else next.delete(sessionId);
      return { bySession: next };
    }),
  focus: (callId) => set({ focusCall: callId }),
}));
