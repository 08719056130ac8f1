// The context coverage maps computed in this page, by session, and the sub-call a click on
// the strip asked the run view to open. A store of its own (nothing else reads them, and a
// map is recomputed from the context file whenever the user picks one), made with the studio
// store and owned by it: a closed session's map goes with it.
import { createStore } from 'zustand/vanilla';
import type { CoverageReport } from '../../src-shared/analysis/coverage.ts';
import type { UnseenPreview } from '../lib/coverage-messages.ts';
import { without, type IsOpen } from './session-owned.ts';

type CoverageEntry =
  | { status: 'working'; fileName: string }
  | { status: 'done'; fileName: string; report: CoverageReport; largestUnseen: UnseenPreview[]; ms: number }
  | { status: 'error'; fileName: string; message: string };

/** Which spans the strip shows: the whole session, the selected run's, the selected iteration's. */
export type CoverageScope = 'session' | 'run' | 'iteration';

export interface CoverageState {
  bySession: Map<string, CoverageEntry>;
  /** A sub-call to open (and scroll to) in the run view. */
  focusCall: string | null;
  /** Sets (or with null drops) a session's map; ignored once the session is closed (a worker may answer late). */
  set(sessionId: string, entry: CoverageEntry | null): void;
  focus(callId: string | null): void;
  forgetSession(sessionId: string): void;
}

export function createCoverageStore(isOpen: IsOpen) {
  return createStore<CoverageState>()((set, get) => {
    const drop = (sessionId: string): void => {
      const next = without(get().bySession, sessionId);
      if (next) set({ bySession: next });
    };
    return {
      bySession: new Map(),
      focusCall: null,
      set: (sessionId, entry) => {
        if (!entry) return drop(sessionId);
        if (!isOpen(sessionId)) return;
        const next = new Map(get().bySession);
        next.set(sessionId, entry);
        set({ bySession: next });
      },
      focus: (callId) => set({ focusCall: callId }),
      forgetSession: drop,
    };
  });
}
