// Code edited in the paused editor and not yet run, by pause. The editor is unmounted
// whenever the researcher looks elsewhere (another iteration, panel or session) while the
// session waits; its own state went with it and the edits were lost.
import { create } from 'zustand';
import type { PauseInfo } from '../../src-shared/protocol.ts';

interface PausedDrafts {
  drafts: Map<string, string[]>;
  /** Sets block `i` of the draft under `key` (the pause's own `blocks` until first edited). */
  edit(key: string, blocks: readonly string[], i: number, code: string): void;
  /** Drops the draft under `key`: its edits were sent. */
  drop(key: string): void;
}

export const usePausedDrafts = create<PausedDrafts>((set) => ({
  drafts: new Map(),
  edit: (key, blocks, i, code) =>
    set((s) => {
      const prev = s.drafts.get(key) ?? blocks;
      const drafts = new Map(s.drafts);
      drafts.set(
        key,
        prev.map((p, j) => (j === i ? code : p)),
      );
      return { drafts };
    }),
  drop: (key) =>
    set((s) => {
      if (!s.drafts.has(key)) return s;
      const drafts = new Map(s.drafts);
      drafts.delete(key);
      return { drafts };
    }),
}));

/** One pause: the session, the run and iteration paused at, and the code the reply had (a new reply is a new draft). */
export function draftKey(sessionId: string, runId: string, iteration: number, blocks: readonly string[]): string {
  return JSON.stringify([sessionId, runId, iteration, blocks]);
}

/** Where a draft belongs: the run and iteration paused at, and the code the paused reply had. */
export interface DraftSite {
  runId: string;
  iteration: number;
  blocks: readonly string[];
}

/** The draft site of `pause`; null when it carries no reply (a pause before the model call). */
export function draftSiteOf(pause: PauseInfo | null): DraftSite | null {
  return pause?.reply ? { runId: pause.runId, iteration: pause.iteration, blocks: pause.reply.blocks } : null;
}

/** The blocks of the paused reply at `at` edited in its draft and not run yet, by index; null when none differ. */
export function pendingEdits(sessionId: string, at: DraftSite): Record<string, string> | null {
  const draft = usePausedDrafts.getState().drafts.get(draftKey(sessionId, at.runId, at.iteration, at.blocks));
  if (!draft) return null;
  const edits: Record<string, string> = {};
  draft.forEach((code, i) => {
    if (code !== at.blocks[i]) edits[String(i)] = code;
  });
  return Object.keys(edits).length > 0 ? edits : null;
}

/** Forgets the draft of the paused reply at `at`: its edits were sent. */
export function dropDraft(sessionId: string, at: DraftSite): void {
  usePausedDrafts.getState().drop(draftKey(sessionId, at.runId, at.iteration, at.blocks));
}
