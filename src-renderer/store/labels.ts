// Labels of the sessions shown, as the host last sent them (host-side data: replaced whole on
// every read or change, like session summaries). A store of its own (nothing else depends on
// them), made with the studio store and owned by it: a closed session's labels go with it.
import { createStore } from 'zustand/vanilla';
import type { SessionLabels } from '../../src-shared/protocol.ts';
import { without, type IsOpen } from './session-owned.ts';

/** What the page knows of a session's labels: the host's answer, or why there is none. */
type LabelsEntry = { kind: 'loaded'; labels: SessionLabels } | { kind: 'unavailable'; reason: string } | { kind: 'loading' };

export interface LabelsState {
  bySession: Map<string, LabelsEntry>;
  /** Ignored once the session is closed (the host may answer after). */
  set(sessionId: string, entry: LabelsEntry): void;
  forgetSession(sessionId: string): void;
}

export function createLabelsStore(isOpen: IsOpen) {
  return createStore<LabelsState>()((set, get) => ({
    bySession: new Map(),
    set: (sessionId, entry) => {
      if (!isOpen(sessionId)) return;
      const next = new Map(get().bySession);
      next.set(sessionId, entry);
      set({ bySession: next });
    },
    forgetSession: (sessionId) => {
      const next = without(get().bySession, sessionId);
      if (next) set({ bySession: next });
    },
  }));
}
