// Code edited in the paused editor is kept per pause and is sent when the session goes on by
// Continue or Step (the toolbar buttons, F8, F10), not only by the editor's own button.
import { act } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { PauseInfo } from '../../../src-shared/protocol.ts';
import { createPausedDraftsStore, pendingEdits } from '../../../src-renderer/store/paused-drafts.ts';
import { connectedServices, ScriptedHost, type HostCommand, hostSummary } from './helpers.ts';

const PAUSE: PauseInfo = {
  kind: 'after_reply',
  runId: 'r0',
  depth: 0,
  iteration: 2,
  block: null,
  reply: { text: 't', blocks: ['a()', 'b()'] },
};
const AT = { runId: 'r0', iteration: 2, blocks: ['a()', 'b()'] };
const running = hostSummary('h1', { status: 'running', readOnly: false });
const paused = hostSummary('h1', { status: 'paused', readOnly: false, pause: PAUSE });

/** Answers the edit and the controls; records every command in `sent`. */
class ControlHost extends ScriptedHost {
  protected override answer(c: HostCommand, id: number): boolean {
    if (c.type === 'session.edit') this.replyTo(id, { session: paused });
    else if (c.type === 'session.continue' || c.type === 'session.step' || c.type === 'session.pause')
      this.replyTo(id, { session: running });
    else return false;
    return true;
  }
}

function mount(session: string) {
  const carrier = new ControlHost();
  const { svc } = connectedServices(carrier, hostSummary(session, { status: 'paused', readOnly: false, pause: PAUSE }));
  const sent = () => carrier.sent.map((m) => m.command).filter((c) => c.type.startsWith('session.'));
  const drafts = svc.store.drafts;
  return { svc, sent, drafts, pending: () => pendingEdits(drafts.getState(), session, AT) };
}

describe('paused drafts', () => {
  it('keeps the edited blocks of one pause and reports only those that differ', () => {
    const drafts = createPausedDraftsStore();
    drafts.getState().edit('d1', AT, 1, 'b(1)');
    expect(pendingEdits(drafts.getState(), 'd1', AT)).toEqual({ '1': 'b(1)' });
    // Another pause (another reply at the same place) has no draft, nor has another session.
    expect(pendingEdits(drafts.getState(), 'd1', { ...AT, blocks: ['a()', 'c()'] })).toBeNull();
    expect(pendingEdits(drafts.getState(), 'd2', AT)).toBeNull();
    drafts.getState().edit('d1', AT, 1, 'b()');
    expect(pendingEdits(drafts.getState(), 'd1', AT)).toBeNull();
  });

  it('sends the edited code before Continue and Step', async () => {
    const { svc, sent, drafts } = mount('h1');
    drafts.getState().edit('h1', AT, 0, 'a(42)');
    await act(async () => svc.control('h1', 'continue'));
    expect(sent()).toEqual([
      { type: 'session.edit', sessionId: 'h1', edit: { blocks: { '0': 'a(42)' } } },
      { type: 'session.continue', sessionId: 'h1' },
    ]);
  });

  it('sends the edits once: a later pause on the same reply does not send them again', async () => {
    const { svc, sent, drafts, pending } = mount('h3');
    drafts.getState().edit('h3', AT, 1, 'b(7)');
    await act(async () => svc.control('h3', 'step'));
    expect(pending()).toBeNull();
    await act(async () => svc.store.getState().upsertSummary(hostSummary('h3', { status: 'paused', readOnly: false, pause: PAUSE })));
    await act(async () => svc.control('h3', 'continue'));
    expect(sent()).toEqual([
      { type: 'session.edit', sessionId: 'h3', edit: { blocks: { '1': 'b(7)' } } },
      { type: 'session.step', sessionId: 'h3' },
      { type: 'session.continue', sessionId: 'h3' },
    ]);
  });

  it('sends no edit when the code was not changed', async () => {
    const { svc, sent } = mount('h2');
    await act(async () => svc.control('h2', 'step'));
    expect(sent()).toEqual([{ type: 'session.step', sessionId: 'h2' }]);
  });
});
