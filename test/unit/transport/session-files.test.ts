// The /api/log and /api/context answer shared by web mode and the desktop app's app://
// handler, as web Responses over real files (no server, no Electron).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionContext } from '../../../src-main/host/endpoint.ts';
import { sessionFileReply, sessionFileResponse, type SessionFileLookups } from '../../../src-main/transport/session-files.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlm-session-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const log = join(dir, 'run.rlm.jsonl');
const logText = Array.from({ length: 200 }, (_, i) => JSON.stringify({ seq: i, type: 'x', text: 'ü漢' })).join('\n') + '\n';
writeFileSync(log, logText);
const logBytes = readFileSync(log);
const contextFile = join(dir, 'notes ü.txt');
writeFileSync(contextFile, 'the context, with ü\n'.repeat(100));
const emptyLog = join(dir, 'empty.rlm.jsonl');
writeFileSync(emptyLog, '');

const contexts: Record<string, SessionContext> = {
  S: { kind: 'file', path: contextFile, name: 'notes ü.txt' },
  T: { kind: 'text', text: 'just this text ü', name: 'inline' },
  GONE: { kind: 'file', path: join(dir, 'nope.txt'), name: 'nope.txt' },
};
const logs: Record<string, string> = { S: log, E: emptyLog, GONE: join(dir, 'nope.rlm.jsonl') };
// Asynchronous, as a RemoteHost answers.
const lookups: SessionFileLookups = {
  logFileOf: async (id) => logs[id] ?? null,
  contextOf: async (id) => contexts[id] ?? null,
};

async function get(path: string, init: { method?: string; range?: string } = {}, with_ = lookups): Promise<Response> {
  const res = await sessionFileResponse(
    { url: new URL(path, 'app://rlm-studio'), method: init.method ?? 'GET', range: init.range ?? null },
    with_,
  );
  if (res === null) throw new Error(`${path} was not answered`);
  return res;
}

describe('/api/log', () => {
  it('200: the whole file, as NDJSON, ranges accepted', async () => {
    const res = await get('/api/log?session=S');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers.get('content-length')).toBe(String(logBytes.length));
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await res.arrayBuffer()).equals(logBytes)).toBe(true);
  });

  it('206: one byte range, inclusive, its end clamped to the file; open-ended to the end', async () => {
    const part = await get('/api/log?session=S', { range: 'bytes=10-29' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-29/${logBytes.length}`);
    expect(part.headers.get('content-length')).toBe('20');
    expect(Buffer.from(await part.arrayBuffer()).equals(logBytes.subarray(10, 30))).toBe(true);

    const tail = await get('/api/log?session=S', { range: `bytes=${logBytes.length - 5}-` });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(logBytes.subarray(logBytes.length - 5))).toBe(true);
    const over = await get('/api/log?session=S', { range: `bytes=3-${logBytes.length + 100}` });
    expect(over.headers.get('content-range')).toBe(`bytes 3-${logBytes.length - 1}/${logBytes.length}`);
  });

  it('416: a range past the end, reversed, several, or not bytes, with the size in Content-Range', async () => {
    for (const range of [`bytes=${logBytes.length}-`, 'bytes=30-10', 'bytes=0-1,5-9', 'bytes=-5', 'lines=1-2', 'garbage']) {
      const res = await get('/api/log?session=S', { range });
      expect(res.status, range).toBe(416);
      expect(res.headers.get('content-range')).toBe(`bytes */${logBytes.length}`);
      expect(await res.text()).toContain('not one satisfiable byte range');
    }
    // An empty file has no satisfiable range, and a plain GET of it is empty.
    expect((await get('/api/log?session=E', { range: 'bytes=0-' })).status).toBe(416);
    const empty = await get('/api/log?session=E');
    expect([empty.status, empty.headers.get('content-length'), await empty.text()]).toEqual([200, '0', '']);
  });

  it('HEAD: the headers without the bytes', async () => {
    const res = await get('/api/log?session=S', { method: 'HEAD' });
    expect([res.status, res.headers.get('content-length'), await res.text()]).toEqual([200, String(logBytes.length), '']);
  });

  it('404 naming the session when it is unknown or its log is gone; 400 without one; 405 for other methods', async () => {
    const unknown = await get('/api/log?session=nobody');
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe('no session "nobody" with a log on this host');
    const gone = await get('/api/log?session=GONE');
    expect([gone.status, await gone.text()]).toEqual([404, 'the log of session "GONE" is no longer on disk']);
    // A server without the lookup knows no session.
    expect((await get('/api/log?session=S', {}, {})).status).toBe(404);
    const bare = await get('/api/log');
    expect([bare.status, await bare.text()]).toEqual([400, '/api/log needs ?session=ID']);
    const post = await get('/api/log?session=S', { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('503 naming the reason when the lookup fails (a host process that is gone)', async () => {
    const res = await get(
      '/api/log?session=S',
      {},
      {
        logFileOf: () => Promise.reject(new Error('the host process is not running')),
      },
    );
    expect([res.status, await res.text()]).toEqual([503, 'the host cannot answer for session "S": the host process is not running']);
  });
});

describe('/api/context', () => {
  it('a context file as text, its name in X-Context-Name', async () => {
    const res = await get('/api/context?session=S');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(decodeURIComponent(res.headers.get('x-context-name') ?? '')).toBe('notes ü.txt');
    expect(await res.text()).toBe(readFileSync(contextFile, 'utf8'));
    const head = await get('/api/context?session=S', { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), await head.text()]).toEqual([
      200,
      String(readFileSync(contextFile).length),
      '',
    ]);
  });

  it('a text context from the recipe, its length in bytes', async () => {
    const res = await get('/api/context?session=T');
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength('just this text ü')));
    expect(await res.text()).toBe('just this text ü');
  });

  it('unknown: 404 naming the session to a GET, 204 to a HEAD (a probe, not an error); a path in the request is ignored', async () => {
    const res = await get('/api/context?session=nobody');
    expect([res.status, await res.text()]).toEqual([404, 'no context known for session "nobody"']);
    const probe = await get('/api/context?session=nobody', { method: 'HEAD' });
    expect([probe.status, probe.headers.get('x-context-name')]).toEqual([204, null]);
    const gone = await get('/api/context?session=GONE');
    expect([gone.status, await gone.text()]).toEqual([404, 'the context file of session "GONE" (nope.txt) is no longer on disk']);
    expect((await get('/api/context?session=GONE', { method: 'HEAD' })).status).toBe(204);
    expect(await (await get(`/api/context?session=T&path=${encodeURIComponent(contextFile)}`)).text()).toBe('just this text ü');
  });
});

it('other paths are not answered here', async () => {
  const req = { method: 'GET', range: null };
  expect(await sessionFileReply({ ...req, url: new URL('app://rlm-studio/index.html') }, lookups)).toBeNull();
  expect(await sessionFileReply({ ...req, url: new URL('app://rlm-studio/api/logs?session=S') }, lookups)).toBeNull();
});
