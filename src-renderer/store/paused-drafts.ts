// Code edited in the paused editor and not yet run, by session and pause. The editor is
// unmounted whenever the researcher looks elsewhere (another iteration, panel or session)
// while the session waits; its own state went with it and the edits were lost. Made with the
// studio store and owned by it: a closed session's drafts go with it.
import { createStore } from 'zustand/vanilla';
import type { PauseInfo } from '../../src-shared/protocol.ts';
import { without } from './session-owned.ts';

/** Where a draft belongs: the run and iteration paused at, and the code the paused reply had (a new reply is a new draft). */
export interface DraftSite {
  runId: string;
  iteration: number;
  blocks: readonly string[];
}

export interface PausedDraftsState {
  /** Session id → pause (`siteKey`) → the blocks as edited. */
  bySession: Map<string, Map<string, string[]>>;
  /** Sets block `i` of the draft at `at` (the pause's own `blocks` until first edited). */
  edit(sessionId: string, at: DraftSite, i: number, code: string): void;
  /** Drops the draft at `at`: its edits were sent. */
  drop(sessionId: string, at: DraftSite): void;
  forgetSession(sessionId: string): void;
}

const siteKey = (at: DraftSite): string => JSON.stringify([at.runId, at.iteration, at.blocks]);

export function createPausedDraftsStore() {
  return createStore<PausedDraftsState>()((set, get) => {
    const put = (sessionId: string, drafts: Map<string, string[]>): void => {
      const bySession = new Map(get().bySession);
      if (drafts.size > 0) bySession.set(sessionId, drafts);
      else bySession.delete(sessionId);
      set({ bySession });
    };
    return {
      bySession: new Map(),
      edit: (sessionId, at, i, code) => {
        const drafts = new Map(get().bySession.get(sessionId));
        const key = siteKey(at);
        const prev = drafts.get(key) ?? at.blocks;
        drafts.set(
          key,
          prev.map((p, j) => (j === i ? code : p)),
        );
        put(sessionId, drafts);
      },
      drop: (sessionId, at) => {
        const drafts = get().bySession.get(sessionId);
        const next = drafts && without(drafts, siteKey(at));
        if (next) put(sessionId, next);
      },
      forgetSession: (sessionId) => {
        const next = without(get().bySession, sessionId);
        if (next) set({ bySession: next });
      },
    };
  });
}

/** The draft of the pause at `at`, as edited; undefined until its first edit. */
export function draftOf(s: PausedDraftsState, sessionId: string, at: DraftSite): string[] | undefined {
  return s.bySession.get(sessionId)?.get(siteKey(at));
}

/** The draft site of `pause`; null when it carries no reply (a pause before the model call). */
export function draftSiteOf(pause: PauseInfo | null): DraftSite | null {
  return pause?.reply ? { runId: pause.runId, iteration: pause.iteration, blocks: pause.reply.blocks } : null;
}

/** The blocks of the paused reply at `at` edited in its draft and not run yet, by index; null when none differ. */
export function pendingEdits(s: PausedDraftsState, sessionId: string, at: DraftSite): Record<string, string> | null {
  const draft = draftOf(s, sessionId, at);
  if (!draft) return null;
  const edits: Record<string, string> = {};
  draft.forEach((code, i) => {
    if (code !== at.blocks[i]) edits[String(i)] = code;
  });
  return Object.keys(edits).length > 0 ? edits : null;
}
