// GET /api/context: the context a session ran on, as the host knows it (a live session's
// recipe or built-in demo, the recipe beside a saved log), for the app's coverage map; nothing else.
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoContext } from '../../../src-main/host/demo.ts';
import type { Host } from '../../../src-main/host/host.ts';
import { recipePathFor } from '../../../src-main/host/session-recipe.ts';
import { startWebServer, type WebServer } from '../../../src-main/transport/ws-server.ts';
import { connectWs, demoStart, makeHost, wsUrlOf } from './helpers.ts';

let host: Host;
let web: WebServer;
const dir = mkdtempSync(join(tmpdir(), 'rlm-context-route-'));
const contextFile = join(dir, 'notes ü.txt');
const contextText = `${'line of the context, with ü and 漢字\n'.repeat(2000)}NOTE: the code is 7-ALPHA-2931\n`;

beforeAll(async () => {
  writeFileSync(contextFile, contextText);
  host = makeHost();
  web = await startWebServer({
    endpoint: host,
    port: 0,
    staticDir: null,
    logFileOf: (id) => host.logFileOf(id),
    contextOf: (id) => host.contextOf(id),
  });
}, 60_000);

afterAll(async () => {
  await web?.close();
  await host?.close();
});

const url = (sessionId: string, token = web.token): string =>
  `${new URL(web.url).origin}/api/context?session=${encodeURIComponent(sessionId)}&token=${token}`;

describe('GET /api/context', () => {
  it('serves a live session’s context file as its recipe names it, and the recipe beside its log once reopened', async () => {
    const c = await connectWs(wsUrlOf(web.url));
    const { session } = await c.call(
      'session.start',
      demoStart('needle', { context: { kind: 'file', path: contextFile }, query: 'the code?' }),
    );
    const done = await c.status(session.sessionId, 'finished', 'failed');
    const res = await fetch(url(session.sessionId));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(decodeURIComponent(res.headers.get('x-context-name') ?? '')).toBe('notes ü.txt');
    expect(await res.text()).toBe(contextText);
    const head = await fetch(url(session.sessionId), { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length')]).toEqual([200, String(Buffer.byteLength(contextText))]);

    // The saved log opened again (a new session on the host): the recipe beside it says the same.
    expect(readFileSync(recipePathFor(done.logFile!), 'utf8')).toContain(contextFile);
    const copy = join(dir, 'copy.rlm.jsonl');
    copyFileSync(done.logFile!, copy);
    copyFileSync(recipePathFor(done.logFile!), recipePathFor(copy));
    const reopened = await c.call('session.open', { path: copy });
    expect(await (await fetch(url(reopened.session.sessionId))).text()).toBe(contextText);
    // Without a recipe beside it, the host does not know the context.
    const bare = join(dir, 'bare.rlm.jsonl');
    copyFileSync(done.logFile!, bare);
    const alone = await c.call('session.open', { path: bare });
    expect((await fetch(url(alone.session.sessionId))).status).toBe(404);
    // Asking whether there is one is answered without an error status (a page's console logs those).
    const probe = await fetch(url(alone.session.sessionId), { method: 'HEAD' });
    expect(probe.status).toBe(204);
    expect(probe.headers.get('X-Context-Name')).toBeNull();
    c.closeCarrier();
  }, 60_000);

  it('serves a text context from the recipe and a built-in demo’s; an unknown session, a wrong token or a foreign origin get nothing', async () => {
    const c = await connectWs(wsUrlOf(web.url));
    const { session } = await c.call(
      'session.start',
      demoStart('needle', { context: { kind: 'text', text: 'just this text' }, query: 'q' }),
    );
    await c.status(session.sessionId, 'finished', 'failed');
    expect(await (await fetch(url(session.sessionId))).text()).toBe('just this text');
    const demo = await c.call('session.start', demoStart('needle'));
    await c.status(demo.session.sessionId, 'finished', 'failed');
    // The demo's context as the worker made it (a list would be JSON), named after the demo.
    const served = await fetch(url(demo.session.sessionId));
    expect([served.status, decodeURIComponent(served.headers.get('x-context-name') ?? '')]).toEqual([200, 'demo-needle.txt']);
    expect(await served.text()).toBe(demoContext('needle'));
    expect((await fetch(url('unknown'))).status).toBe(404);
    expect((await fetch(url(session.sessionId, 'nope'))).status).toBe(401);
    expect((await fetch(url(session.sessionId), { headers: { Origin: 'https://evil.example' } })).status).toBe(403);
    // The route takes no path: a `path` parameter is ignored, the session's own context is served.
    expect(await (await fetch(`${url(session.sessionId)}&path=/etc/passwd`)).text()).toBe('just this text');
    c.closeCarrier();
  }, 60_000);
});
