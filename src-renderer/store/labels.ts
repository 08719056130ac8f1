// Labels of the sessions shown, as the host last sent them (host-side data: replaced whole on
// every read or change, like session summaries). Kept apart from the studio store: nothing
// else depends on them.
import { create } from 'zustand';
import type { SessionLabels } from '../../src-shared/protocol.ts';

/** What the page knows of a session's labels: the host's answer, or why there is none. */
type LabelsEntry = { kind: 'loaded'; labels: SessionLabels } | { kind: 'unavailable'; reason: string } | { kind: 'loading' };

interface LabelsStore {
  bySession: Map<string, LabelsEntry>;
  set(sessionId: string, entry: LabelsEntry): void;
}

export const useLabelsStore = create<LabelsStore>()((set) => ({
  bySession: new Map(),
  set: (sessionId, entry) =>
    set((s) => {
      const next = new Map(s.bySession);
      next.set(sessionId, entry);
      return { bySession: next };
    }),
}));
