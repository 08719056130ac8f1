// Replies while they stream, per session and model call: the pieces the host pushes (never
// logged) joined in order. A call's entry goes when its model.reply (or model.error, or its
// run's end) arrives: from then on the view shows the logged reply, once, whole. Made with
// the studio store and owned by it: a closed session's replies (and its ended calls) go with it.
import { createStore } from 'zustand/vanilla';
import type { TrajectoryEvent } from '../../src-shared/events.ts';
import type { LiveReplyDelta } from '../../src-shared/live-reply.ts';
import { without, type IsOpen } from './session-owned.ts';

export interface LiveReply {
  model: string;
  purpose: LiveReplyDelta['purpose'];
  /** The reply text so far, as sent (a <think> section included). */
  content: string;
  /** Thinking so far, from a field of its own. */
  reasoning: string;
  tokens: number;
  elapsedMs: number;
}

export interface LiveRepliesState {
  /** Session id → call key (`liveKey`) → the reply so far. */
  bySession: Map<string, Map<string, LiveReply>>;
  add(sessionId: string, deltas: readonly LiveReplyDelta[]): void;
  /** Drops the calls these events end; pieces of an ended call that come late are ignored. */
  settle(sessionId: string, events: readonly TrajectoryEvent[]): void;
  forgetSession(sessionId: string): void;
}

/** The key of a model call: its run, iteration and purpose. */
export function liveKey(runId: string, iteration: number, purpose: string): string {
  return `${runId}\u0000${iteration}\u0000${purpose}`;
}

export function createLiveRepliesStore(isOpen: IsOpen) {
  /** Calls whose logged end arrived (per session): late pieces of them must not start a new entry. */
  const ended = new Map<string, Set<string>>();
  return createStore<LiveRepliesState>()((set, get) => ({
    bySession: new Map(),
    add(sessionId, deltas) {
      if (!isOpen(sessionId)) return;
      const done = ended.get(sessionId);
      const calls = new Map(get().bySession.get(sessionId) ?? []);
      let changed = false;
      for (const d of deltas) {
        const key = liveKey(d.runId, d.iteration, d.purpose);
        if (done?.has(key)) continue;
        const was = calls.get(key);
        calls.set(key, {
          model: d.model,
          purpose: d.purpose,
          content: (was?.content ?? '') + d.content,
          reasoning: (was?.reasoning ?? '') + d.reasoning,
          tokens: d.tokens,
          elapsedMs: d.elapsedMs,
        });
        changed = true;
      }
      if (!changed) return;
      const bySession = new Map(get().bySession);
      bySession.set(sessionId, calls);
      set({ bySession });
    },
    settle(sessionId, events) {
      if (!isOpen(sessionId)) return;
      let done = ended.get(sessionId);
      const calls = get().bySession.get(sessionId);
      let next: Map<string, LiveReply> | null = null;
      for (const e of events) {
        let keys: string[];
        if (e.type === 'model.reply' || e.type === 'model.error') keys = [liveKey(e.runId, e.iteration, e.purpose)];
        else if (e.type === 'run.end' && calls) keys = [...calls.keys()].filter((k) => k.startsWith(`${e.runId}\u0000`));
        else continue;
        if (!done) ended.set(sessionId, (done = new Set()));
        for (const k of keys) {
          done.add(k);
          if (calls?.has(k)) {
            next ??= new Map(calls);
            next.delete(k);
          }
        }
      }
      if (next === null) return;
      const bySession = new Map(get().bySession);
      bySession.set(sessionId, next);
      set({ bySession });
    },
    forgetSession(sessionId) {
      ended.delete(sessionId);
      const next = without(get().bySession, sessionId);
      if (next) set({ bySession: next });
    },
  }));
}

/** The reply streaming in this iteration of this run, if any (the latest call of it). */
export function liveReplyOf(s: LiveRepliesState, sessionId: string, runId: string, iteration: number): LiveReply | null {
  const calls = s.bySession.get(sessionId);
  if (!calls) return null;
  let found: LiveReply | null = null;
  for (const [k, v] of calls) if (k.startsWith(`${runId}\u0000${iteration}\u0000`)) found = v;
  return found;
}
