import { describe, expect, it } from 'vitest';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import type { SessionSummary } from '../../../src-shared/protocol.ts';
import { MemoryCarrier, parseHostMessage } from '../../../src-renderer/transport/carrier.ts';
import { HostClient, HostError } from '../../../src-renderer/transport/host-client.ts';
import { fixtureEvents } from './helpers.ts';

const summary = {
  sessionId: 'S',
  title: 't',
  status: 'running',
  logFile: null,
  format: 'native',
  readOnly: false,
  createdAt: '',
  model: null,
  pause: null,
  forkOf: null,
  eventCount: 0,
} satisfies SessionSummary;

describe('HostClient', () => {
  it('queues commands until the carrier opens, then says hello first', async () => {
    const c = new MemoryCarrier();
    const client = new HostClient(c);
    const p = client.request({ type: 'runs.recent', limit: 5 });
    expect(c.sent).toHaveLength(0);
    c.setState('open');
    expect(c.sent.map((m) => m.command.type)).toEqual(['hello', 'runs.recent']);
    const id = c.sent[1]!.id;
    c.deliver({ kind: 'reply', id, ok: true, result: { runs: [] } });
    await expect(p).resolves.toEqual({ runs: [] });
  });

  it('rejects with the host error code', async () => {
    const c = new MemoryCarrier();
    c.setState('open');
    const client = new HostClient(c);
    const p = client.request({ type: 'session.open', path: '/nope' });
    const id = c.sent.at(-1)!.id;
    c.deliver({ kind: 'reply', id, ok: false, error: { code: 'not_found', message: 'no such file' } });
    await expect(p).rejects.toMatchObject({ code: 'not_found', message: 'no such file' });
  });

  it('resubscribes from the next seq after a reconnect and drops duplicates', async () => {
    const events = fixtureEvents('c_recursive.jsonl');
    const got: TrajectoryEvent[] = [];
    const c = new MemoryCarrier();
    c.setState('open');
    const client = new HostClient(c, { events: (_id, evs) => got.push(...evs) });
    const sub = client.subscribe('S', 0);
    c.deliver({ kind: 'reply', id: c.sent.at(-1)!.id, ok: true, result: { session: summary, header: null } });
    await sub;
    c.deliver({ kind: 'events', sessionId: 'S', events: events.slice(0, 10) });
    c.setState('closed');
    c.setState('open');
    const resub = c.sent.filter((m) => m.command.type === 'subscribe').at(-1)!;
    expect(resub.command).toEqual({ type: 'subscribe', sessionId: 'S', fromSeq: events[10]!.seq });
    // The host resends an overlapping range: only new events come through, once.
    c.deliver({ kind: 'events', sessionId: 'S', events: events.slice(5, 20) });
    expect(got.map((e) => e.seq)).toEqual(events.slice(0, 20).map((e) => e.seq));
  });

  it('fails commands in flight when the connection drops', async () => {
    const c = new MemoryCarrier();
    c.setState('open');
    const client = new HostClient(c);
    const p = client.request({ type: 'sessions.list' });
    c.setState('closed');
    await expect(p).rejects.toBeInstanceOf(HostError);
  });

  it('ignores malformed host messages', () => {
    expect(parseHostMessage({ kind: 'events', sessionId: 'S', events: [{ type: 'x' }] })).toBeNull();
    expect(parseHostMessage('<script>')).toBeNull();
    expect(parseHostMessage({ kind: 'evil' })).toBeNull();
  });
});
