import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { Host } from '../../../src-main/host/host.ts';
import { originAllowed, startWebServer, tokenMatches, type WebServer } from '../../../src-main/transport/ws-server.ts';
import { connectWs, demoStart, makeHost, wsUrlOf } from './helpers.ts';

let host: Host;
let web: WebServer;
beforeAll(async () => {
  host = makeHost();
  web = await startWebServer({ endpoint: host, port: 0, staticDir: null, logFileOf: (id) => host.logFileOf(id) });
});
afterAll(async () => {
  await web.close();
  await host.close();
});

function handshakeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => {
      ws.close();
      resolve(101);
    });
    ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.once('error', reject);
  });
}

describe('serve: who may connect', () => {
  it('prints a loopback URL with a long random token', () => {
    expect(web.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{40,}$/);
  });

  it('refuses a missing or wrong token with 401', async () => {
    const u = new URL(web.url);
    expect(await handshakeStatus(`ws://${u.host}/ws`)).toBe(401);
    expect(await handshakeStatus(wsUrlOf(web.url, 'guess'))).toBe(401);
    expect(await handshakeStatus(wsUrlOf(web.url, web.token.slice(0, -1)))).toBe(401);
  });

  it('refuses a foreign Origin with 403, even with the token', async () => {
    expect(await handshakeStatus(wsUrlOf(web.url), { Origin: 'https://evil.example' })).toBe(403);
    const port = new URL(web.url).port;
    // DNS rebinding: the page's name resolves to us, but it is not a loopback name.
    expect(await handshakeStatus(wsUrlOf(web.url), { Origin: `http://evil.example:${port}`, Host: `evil.example:${port}` })).toBe(403);
    expect(await handshakeStatus(wsUrlOf(web.url), { Origin: `http://127.0.0.1:${Number(port) + 1}` })).toBe(403);
  });

  it('admits the page itself and non-browser clients with the token', async () => {
    const u = new URL(web.url);
    expect(await handshakeStatus(wsUrlOf(web.url), { Origin: `http://${u.host}` })).toBe(101);
    expect(await handshakeStatus(wsUrlOf(web.url))).toBe(101);
  });

  it('serves a page that says the UI is not built, with no-referrer', async () => {
    const res = await fetch(web.url);
    expect(res.status).toBe(200);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await res.text()).toContain("UI isn't built");
  });

  it('checks tokens and origins by rule', () => {
    expect(tokenMatches('abc', 'abc')).toBe(true);
    expect(tokenMatches('abd', 'abc')).toBe(false);
    expect(tokenMatches(null, 'abc')).toBe(false);
    expect(originAllowed(undefined, 'x', '127.0.0.1')).toBe(true);
    expect(originAllowed('http://localhost:5757', 'localhost:5757', '127.0.0.1')).toBe(true);
    expect(originAllowed('http://gpu-box:5757', 'gpu-box:5757', '0.0.0.0')).toBe(true);
    expect(originAllowed('null', '127.0.0.1:5757', '127.0.0.1')).toBe(false);
  });
});

describe('serve: raw log files', () => {
  it("serves a session's log bytes to a token holder only", async () => {
    const c = await connectWs(wsUrlOf(web.url));
    const { session } = await c.call('session.start', demoStart('needle'));
    const done = await c.status(session.sessionId, 'finished');
    const u = new URL(web.url);
    const res = await fetch(`${u.origin}/api/log?session=${session.sessionId}&token=${web.token}`);
    expect(res.status).toBe(200);
    const { readFileSync } = await import('node:fs');
    const whole = readFileSync(done.logFile!);
    expect(await res.text()).toBe(whole.toString('utf8'));
    // One byte range, as the page reads back a long text it left out.
    const part = await fetch(`${u.origin}/api/log?session=${session.sessionId}&token=${web.token}`, { headers: { Range: 'bytes=10-29' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-29/${whole.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(whole.subarray(10, 30))).toBe(true);
    expect(
      (await fetch(`${u.origin}/api/log?session=${session.sessionId}&token=${web.token}`, { headers: { Range: `bytes=${whole.length}-` } }))
        .status,
    ).toBe(416);
    expect(
      (await fetch(`${u.origin}/api/log?session=${session.sessionId}&token=${web.token}`, { headers: { Range: 'bytes=0-1,5-9' } })).status,
    ).toBe(416);
    expect((await fetch(`${u.origin}/api/log?session=${session.sessionId}&token=nope`)).status).toBe(401);
    expect(
      (await fetch(`${u.origin}/api/log?session=${session.sessionId}&token=${web.token}`, { headers: { Origin: 'https://evil.example' } }))
        .status,
    ).toBe(403);
    expect((await fetch(`${u.origin}/api/log?session=unknown&token=${web.token}`)).status).toBe(404);
    c.closeCarrier();
  });
});

describe('serve: the protocol over WebSocket', () => {
  it('answers bad input with bad_request and keeps the connection', async () => {
    const c = await connectWs(wsUrlOf(web.url));
    c.socket.send('not json');
    c.socket.send(JSON.stringify({ id: 7, command: { type: 'session.cancel' } }));
    await expect(c.call('session.cancel', { sessionId: 'nope' })).rejects.toMatchObject({ code: 'not_found' });
    expect((await c.call('hello', { protocol: 1 })).protocol).toBe(1);
    c.closeCarrier();
  });

  it('reconnects with fromSeq and misses nothing', async () => {
    const a = await connectWs(wsUrlOf(web.url));
    const { session } = await a.call('session.start', demoStart('aggregate'));
    await a.call('subscribe', { sessionId: session.sessionId, fromSeq: 0 });
    // Drop the connection partway through the run.
    const seen = await a.until(() => {
      const n = a.events.get(session.sessionId)?.length ?? 0;
      return n >= 5 ? n : null;
    }, 'some events');
    a.closeCarrier();
    const b = await connectWs(wsUrlOf(web.url));
    await b.call('subscribe', { sessionId: session.sessionId, fromSeq: seen });
    const done = await b.status(session.sessionId, 'finished', 'failed');
    const tail = await b.until(() => {
      const n = b.events.get(session.sessionId);
      return n && n.length + seen >= done.eventCount ? n : null;
    }, 'the rest of the events');
    expect(tail[0]?.seq ?? seen).toBe(seen);
    expect(seen + tail.length).toBe(done.eventCount);
    b.closeCarrier();
  });
});
