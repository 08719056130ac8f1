// The shared protocol client over an in-memory carrier that plays the host by hand.
import { describe, expect, it } from 'vitest';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import type { SessionSummary } from '../../../src-shared/protocol.ts';
import { ProtocolClient, ProtocolError, type CarrierState, type PushMessage } from '../../../src-shared/protocol-client.ts';
import { MemoryCarrier } from '../../support/memory-carrier.ts';

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

function events(from: number, to: number): TrajectoryEvent[] {
  const out: TrajectoryEvent[] = [];
  for (let seq = from; seq < to; seq++)
    out.push({ type: 'run.output', seq, runId: 'r', ts: '2026-01-01T00:00:00.000Z', text: `e${seq}` } as unknown as TrajectoryEvent);
  return out;
}

function openClient(): { c: MemoryCarrier; client: ProtocolClient; pushes: PushMessage[] } {
  const c = new MemoryCarrier();
  c.setState('open');
  const client = new ProtocolClient(c);
  const pushes: PushMessage[] = [];
  client.onPush((m) => pushes.push(m));
  return { c, client, pushes };
}

describe('ProtocolClient', () => {
  it('correlates replies with their commands, whatever order they come in', async () => {
    const { c, client } = openClient();
    const a = client.call('session.open', { path: '/a' });
    const b = client.call('sessions.list');
    const [ma, mb] = [c.of('session.open')[0]!, c.of('sessions.list')[0]!];
    expect(ma.id).not.toBe(mb.id);
    c.reply(mb, { sessions: [] });
    c.reply(ma, { session: summary });
    await expect(a).resolves.toEqual({ session: summary });
    await expect(b).resolves.toEqual({ sessions: [] });
  });

  it('says hello on open and keeps the host name', async () => {
    const { c, client } = openClient();
    expect(c.sent[0]!.command).toEqual({ type: 'hello', protocol: 1 });
    c.reply(c.sent[0]!, { protocol: 1, host: 'test host' });
    expect(client.hostName).toBe('test host');
  });

  it('rejects with a ProtocolError carrying the host error code', async () => {
    const { c, client } = openClient();
    const p = client.call('session.open', { path: '/nope' });
    c.deliver({ kind: 'reply', id: c.sent.at(-1)!.id, ok: false, error: { code: 'not_found', message: 'no such file' } });
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect(err).toMatchObject({ code: 'not_found', message: 'no such file' });
  });

  it('fails commands in flight as disconnected when the carrier closes, and everything after close()', async () => {
    const { c, client } = openClient();
    const p = client.call('sessions.list');
    c.setState('closed');
    await expect(p).rejects.toMatchObject({ code: 'disconnected' });
    client.close();
    expect(c.closed).toBe(true);
    await expect(client.call('sessions.list')).rejects.toBeInstanceOf(ProtocolError);
  });

  it('queues commands while connecting and sends them, in order, after hello once open', async () => {
    const c = new MemoryCarrier();
    const client = new ProtocolClient(c);
    const states: CarrierState[] = [];
    client.onState((s) => states.push(s));
    const p = client.call('runs.recent', { limit: 5 });
    const q = client.call('profiles.list');
    expect(c.sent).toHaveLength(0);
    c.setState('open');
    expect(c.sent.map((m) => m.command.type)).toEqual(['hello', 'runs.recent', 'profiles.list']);
    expect(states).toEqual(['open']);
    c.reply(c.sent[1]!, { runs: [] });
    c.reply(c.sent[2]!, { profiles: [] });
    await expect(p).resolves.toEqual({ runs: [] });
    await expect(q).resolves.toEqual({ profiles: [] });
  });

  it('keeps queued commands through a failed connection attempt', async () => {
    const c = new MemoryCarrier();
    const client = new ProtocolClient(c);
    const p = client.call('sessions.list');
    c.setState('closed');
    c.setState('connecting');
    c.setState('open');
    c.reply(c.of('sessions.list')[0]!, { sessions: [] });
    await expect(p).resolves.toEqual({ sessions: [] });
  });

  it('resumes subscriptions from the next seq after a reconnect, without loss or duplicate', async () => {
    const { c, client, pushes } = openClient();
    const sub = client.call('subscribe', { sessionId: 'S', fromSeq: 0 });
    c.reply(c.of('subscribe')[0]!, { session: summary, header: null });
    await sub;
    c.deliver({ kind: 'events', sessionId: 'S', events: events(0, 10) });
    expect(client.lastSeq('S')).toBe(9);
    c.setState('closed');
    c.setState('connecting');
    c.setState('open');
    expect(c.of('subscribe').at(-1)!.command).toEqual({ type: 'subscribe', sessionId: 'S', fromSeq: 10 });
    // The host resends an overlapping range: only the new events come through, once.
    c.deliver({ kind: 'events', sessionId: 'S', events: events(5, 20) });
    c.deliver({ kind: 'events', sessionId: 'S', events: events(15, 20) });
    const seqs = pushes.flatMap((m) => (m.kind === 'events' ? m.events.map((e) => e.seq) : []));
    expect(seqs).toEqual(events(0, 20).map((e) => e.seq));
  });

  it('sends a subscribe queued while offline once, not also as a resumption', () => {
    const { c, client } = openClient();
    void client.call('subscribe', { sessionId: 'S', fromSeq: 0 }).catch(() => {});
    c.setState('closed');
    c.setState('connecting');
    void client.call('subscribe', { sessionId: 'T', fromSeq: 4 }).catch(() => {});
    c.setState('open');
    const after = c.sent.slice(c.sent.findLastIndex((m) => m.command.type === 'hello'));
    expect(after.filter((m) => m.command.type === 'subscribe').map((m) => m.command)).toEqual([
      { type: 'subscribe', sessionId: 'S', fromSeq: 0 },
      { type: 'subscribe', sessionId: 'T', fromSeq: 4 },
    ]);
  });

  it('forgets a subscription the host refused or the caller ended, and drops its events', async () => {
    const { c, client, pushes } = openClient();
    const p = client.call('subscribe', { sessionId: 'missing' });
    c.deliver({ kind: 'reply', id: c.sent.at(-1)!.id, ok: false, error: { code: 'not_found', message: 'no such session' } });
    await expect(p).rejects.toMatchObject({ code: 'not_found' });
    expect(client.lastSeq('missing')).toBeUndefined();
    void client.call('subscribe', { sessionId: 'S' }).catch(() => {});
    expect(client.lastSeq('S')).toBe(-1);
    void client.call('unsubscribe', { sessionId: 'S' }).catch(() => {});
    c.deliver({ kind: 'events', sessionId: 'S', events: events(0, 3) });
    expect(pushes).toEqual([]);
    c.setState('closed');
    c.setState('open');
    expect(c.of('subscribe')).toHaveLength(2);
  });

  it('hands session, progress and events pushes to every listener until it unsubscribes', () => {
    const { c, client, pushes } = openClient();
    const second: PushMessage[] = [];
    const off = client.onPush((m) => second.push(m));
    void client.call('subscribe', { sessionId: 'S' }).catch(() => {});
    const session: PushMessage = { kind: 'session', session: summary };
    const progress: PushMessage = { kind: 'progress', sessionId: 'S', bytesRead: 5, totalBytes: 10 };
    c.deliver(session);
    c.deliver(progress);
    c.deliver({ kind: 'events', sessionId: 'S', events: events(0, 2) });
    off();
    c.deliver({ kind: 'progress', sessionId: 'S', bytesRead: 10, totalBytes: 10 });
    expect(pushes.map((m) => m.kind)).toEqual(['session', 'progress', 'events', 'progress']);
    expect(second).toEqual(pushes.slice(0, 3));
  });
});
