// Closing a session in the page: a dropped file's events are let go; a host session stops
// being followed, stays listed, and opening it again reads it afresh.
import { Blob as NodeBlob } from 'node:buffer';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { encodeNative } from '../../../src-shared/codecs/native.ts';
import { makeHeader } from '../../../src-shared/codecs/native-lines.ts';
import { asSessionId } from '../../../src-shared/events.ts';
import { App } from '../../../src-renderer/App.tsx';
import { ServicesProvider } from '../../../src-renderer/app/context.tsx';
import { Services } from '../../../src-renderer/app/services.ts';
import { createStudioStore } from '../../../src-renderer/store/studio.ts';
import type { MemoryCarrier } from '../../support/memory-carrier.ts';
import { fixtureEvents, ScriptedHost, type HostCommand, hostSummary } from './helpers.ts';

const events = fixtureEvents('c_recursive.jsonl');
const log = [...encodeNative(makeHeader(asSessionId('t'), new Date(0)), events)].join('');
const SUMMARY = hostSummary('H1', { title: 'on the host', eventCount: events.length });

/** Plays the host: one saved session, whose events it sends on each subscribe. */
class OneSessionHost extends ScriptedHost {
  override sessions = [SUMMARY];
  protected override answer(c: HostCommand, id: number): boolean {
    if (c.type === 'subscribe') {
      this.replyTo(id, { session: SUMMARY, header: null });
      queueMicrotask(() => this.deliver({ kind: 'events', sessionId: 'H1', events: events.slice(c.fromSeq) }));
    } else if (c.type === 'unsubscribe') this.replyTo(id, {});
    else return false;
    return true;
  }
}

function mount(carrier: MemoryCarrier | null) {
  const store = createStudioStore();
  const svc = new Services(store, carrier, () => null);
  render(
    <ServicesProvider services={svc}>
      <App />
    </ServicesProvider>,
  );
  return { store, svc };
}

describe('closing a session', () => {
  it('lets a dropped file go and shows the session before it', async () => {
    const { store, svc } = mount(null);
    const file = (name: string) => Object.assign(new NodeBlob([log]) as unknown as Blob, { name });
    const a = await svc.openFile(file('a.rlm.jsonl'));
    const b = await svc.openFile(file('b.rlm.jsonl'));
    await act(async () => store.getState().flushEvents());
    expect(store.getState().activeId).toBe(b);
    await act(async () => fireEvent.click(screen.getByTestId('session-close')));
    expect(store.getState().sessions.has(b)).toBe(false);
    expect(store.getState().order).toEqual([a]);
    expect(store.getState().activeId).toBe(a);
    await act(async () => fireEvent.click(screen.getByTestId('session-close')));
    expect(store.getState().sessions.size).toBe(0);
    expect(screen.getByTestId<HTMLButtonElement>('session-close').disabled).toBe(true);
  });

  it('stops following a host session, keeps it listed, and reads it afresh when opened again', async () => {
    const carrier = new OneSessionHost();
    carrier.setState('open');
    const { store, svc } = mount(carrier);
    await act(async () => svc.openSession('H1'));
    await waitFor(() => {
      store.getState().flushEvents();
      expect(store.getState().sessions.get('H1')?.events.length).toBe(events.length);
    });
    await act(async () => fireEvent.click(screen.getByTestId('session-close')));
    await waitFor(() => expect(carrier.sent.some((m) => m.command.type === 'unsubscribe')).toBe(true));
    expect(store.getState().order).toContain('H1');
    expect(store.getState().sessions.get('H1')?.events.length).toBe(0);
    await act(async () => svc.openSession('H1'));
    const subscribes = carrier.sent.filter((m) => m.command.type === 'subscribe').map((m) => (m.command as { fromSeq: number }).fromSeq);
    expect(subscribes).toEqual([0, 0]);
    await waitFor(() => {
      store.getState().flushEvents();
      expect(store.getState().sessions.get('H1')?.events.length).toBe(events.length);
    });
  });
});
