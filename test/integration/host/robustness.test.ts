// Host robustness over real carriers: the WebSocket heartbeat drops dead clients, and the
// debugger's rule for simultaneous stops in batched child runs (continue releases the shown
// stop; the others show in turn; continue all releases every one), with iteration filters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { SessionSummary } from '../../../src-shared/protocol.ts';
import type { Host } from '../../../src-main/host/host.ts';
import type { HostEndpoint } from '../../../src-main/host/endpoint.ts';
import { startWebServer, type WebServer } from '../../../src-main/transport/ws-server.ts';
import { connectWs, demoStart, hostForTests, makeHost, wsUrlOf } from './helpers.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('WebSocket heartbeat', () => {
  let host: Host;
  let web: WebServer;
  let open = 0;
  beforeAll(async () => {
    host = makeHost({ prewarm: false });
    // Counts the host connections the carrier holds open.
    const counting: HostEndpoint = {
      connect: (send, options) => {
        open++;
        const conn = host.connect(send, options);
        return { receive: (m) => conn.receive(m), close: () => (open--, conn.close()) };
      },
    };
    web = await startWebServer({ endpoint: counting, port: 0, staticDir: null, heartbeatMs: 100 });
  });
  afterAll(async () => {
    await web.close();
    await host.close();
  });

  it('keeps a client that answers pings, and drops one that does not (and its host connection)', async () => {
    const healthy = await connectWs(wsUrlOf(web.url));
    const dead = new WebSocket(wsUrlOf(web.url), { autoPong: false });
    await new Promise<void>((r, j) => (dead.once('open', () => r()), dead.once('error', j)));
    let pings = 0;
    dead.on('ping', () => pings++);
    const closed = new Promise<number>((r) => dead.once('close', (code) => r(code)));
    expect(open).toBe(2);
    const t0 = Date.now();
    await closed;
    expect(pings).toBeGreaterThanOrEqual(1);
    expect(Date.now() - t0).toBeLessThan(1500);
    await sleep(350);
    expect(healthy.socket.readyState).toBe(WebSocket.OPEN);
    expect((await healthy.call('hello', { protocol: 1 })).protocol).toBe(1);
    expect(open).toBe(1);
    healthy.closeCarrier();
  });
});

describe('debugger: simultaneous stops in batched child runs', () => {
  const { c } = hostForTests();

  async function pauses(
    id: string,
    release: (n: number) => Promise<unknown>,
  ): Promise<{ pauses: NonNullable<SessionSummary['pause']>[]; end: SessionSummary }> {
    const seen: NonNullable<SessionSummary['pause']>[] = [];
    for (let n = 0; ; n++) {
      const s = await c.status(id, 'paused', 'finished', 'failed', 'cancelled');
      if (s.status !== 'paused') return { pauses: seen, end: s };
      seen.push(s.pause!);
      const before = c.statuses.length;
      await release(n);
      // The next status after the release (a new front stop, running, or the end).
      await c.until(() => c.statuses.slice(before).some((x) => x.sessionId === id) || null, 'a status after the release');
    }
  }

  it('continue releases the shown stop only: every child run that hit the breakpoint shows, once; the iteration filter holds', async () => {
    const { session } = await c.call(
      'session.start',
      demoStart('recursive', { breakpoints: [{ kind: 'before_model_call', depths: [1], iterations: [1] }], limits: { maxConcurrency: 8 } }),
    );
    await c.call('subscribe', { sessionId: session.sessionId, fromSeq: 0 });
    const { pauses: seen, end } = await pauses(session.sessionId, () => c.call('session.continue', { sessionId: session.sessionId }));
    expect(end.status, end.message ?? '').toBe('finished');
    const children = new Set(
      (c.events.get(session.sessionId) ?? []).filter((e) => e.type === 'run.start' && e.depth === 1).map((e) => e.runId),
    );
    expect(children.size).toBeGreaterThan(1);
    expect(seen.every((p) => p.kind === 'before_model_call' && p.depth === 1 && p.iteration === 1)).toBe(true);
    // Each child stopped exactly once, none was released unseen.
    expect(seen.map((p) => p.runId).sort()).toEqual([...children].sort());
  });

  it('continue with all releases every held stop at once', async () => {
    const { session } = await c.call(
      'session.start',
      demoStart('recursive', { breakpoints: [{ kind: 'before_model_call', depths: [1], iterations: [1] }], limits: { maxConcurrency: 8 } }),
    );
    await c.call('subscribe', { sessionId: session.sessionId, fromSeq: 0 });
    const { pauses: seen, end } = await pauses(session.sessionId, () =>
      c.call('session.continue', { sessionId: session.sessionId, all: true }),
    );
    expect(end.status).toBe('finished');
    const children = new Set(
      (c.events.get(session.sessionId) ?? []).filter((e) => e.type === 'run.start' && e.depth === 1).map((e) => e.runId),
    );
    // Fewer stops shown than children: the ones held together were released together.
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(seen.length).toBeLessThan(children.size);
  });
});
