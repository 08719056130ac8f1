// What the page keeps per session beside its trajectory (coverage map, labels, paused drafts,
// streaming replies) belongs to the app that made the studio store, and goes when the session
// is closed: another session's entries stay, another app sees none of them, and a late answer
// for a closed session is not written back.
import { act } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { asRunId } from '../../../src-shared/events.ts';
import type { PauseInfo, SessionLabels } from '../../../src-shared/protocol.ts';
import { loadLabels } from '../../../src-renderer/app/label-services.ts';
import { draftOf } from '../../../src-renderer/store/paused-drafts.ts';
import { createStudioStore } from '../../../src-renderer/store/studio.ts';
import { connectedServices, hostSummary, ScriptedHost, type HostCommand } from './helpers.ts';

const PAUSE: PauseInfo = {
  kind: 'after_reply',
  runId: 'r0',
  depth: 0,
  iteration: 1,
  block: null,
  reply: { text: 't', blocks: ['a()'] },
};
const AT = { runId: 'r0', iteration: 1, blocks: ['a()'] };

const labelsOf = (sessionId: string): SessionLabels => ({
  sessionId,
  sidecar: null,
  writable: false,
  reason: 'test',
  set: null,
  setProblem: null,
  targets: [],
  problems: [],
});

class LabelsHost extends ScriptedHost {
  protected override answer(c: HostCommand, id: number): boolean {
    if (c.type === 'labels.get') this.replyTo(id, { labels: labelsOf(c.sessionId) });
    else if (c.type === 'unsubscribe') this.replyTo(id, {});
    else return false;
    return true;
  }
}

function twoSessions() {
  const carrier = new LabelsHost();
  const paused = { status: 'paused', readOnly: false, pause: PAUSE } as const;
  const { store, svc } = connectedServices(carrier, hostSummary('h1', paused), hostSummary('h2', paused));
  return { store, svc, carrier };
}

async function fill(ctx: ReturnType<typeof twoSessions>, id: string): Promise<void> {
  const { store, svc, carrier } = ctx;
  store.coverage.getState().set(id, { status: 'working', fileName: 'context.txt' });
  await act(async () => loadLabels(svc, id));
  store.drafts.getState().edit(id, AT, 0, `a(${id})`);
  const delta = {
    runId: asRunId('r0'),
    depth: 0,
    iteration: 1,
    purpose: 'turn' as const,
    model: 'm',
    content: 'so far',
    reasoning: '',
    tokens: 2,
    elapsedMs: 60,
  };
  act(() => carrier.deliver({ kind: 'live', sessionId: id, deltas: [delta] }));
}

/** Which of the four session-owned stores hold an entry for `id`. */
function held(store: ReturnType<typeof createStudioStore>, id: string): string[] {
  const out: string[] = [];
  if (store.coverage.getState().bySession.has(id)) out.push('coverage');
  if (store.labels.getState().bySession.has(id)) out.push('labels');
  if (draftOf(store.drafts.getState(), id, AT)) out.push('draft');
  if (store.liveReplies.getState().bySession.has(id)) out.push('live');
  return out;
}

describe('session-owned UI state', () => {
  it('closing a session clears its coverage, labels, draft and streaming reply; the other session keeps its own', async () => {
    const ctx = twoSessions();
    await fill(ctx, 'h1');
    await fill(ctx, 'h2');
    const all = ['coverage', 'labels', 'draft', 'live'];
    expect(held(ctx.store, 'h1')).toEqual(all);
    expect(held(ctx.store, 'h2')).toEqual(all);
    await act(async () => ctx.svc.closeSession('h1'));
    expect(held(ctx.store, 'h1')).toEqual([]);
    expect(held(ctx.store, 'h2')).toEqual(all);
  });

  it('another app (another studio store) shares none of it', async () => {
    const ctx = twoSessions();
    await fill(ctx, 'h1');
    const other = createStudioStore();
    other.getState().upsertSummary(hostSummary('h1'));
    expect(held(other, 'h1')).toEqual([]);
    expect(other.policy).not.toBe(ctx.store.policy);
  });

  it('a late answer for a session no longer open is not written back', () => {
    const store = createStudioStore();
    store.getState().addLocalSession('local-1', 'dropped.jsonl');
    store.coverage.getState().set('local-1', { status: 'working', fileName: 'context.txt' });
    store.getState().closeSession('local-1');
    expect(store.coverage.getState().bySession.has('local-1')).toBe(false);
    // The coverage worker (or the host's labels reply) answers after the close.
    store.coverage.getState().set('local-1', { status: 'error', fileName: 'context.txt', message: 'late' });
    store.labels.getState().set('local-1', { kind: 'loading' });
    expect(held(store, 'local-1')).toEqual([]);
  });
});
