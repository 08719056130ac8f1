// The desktop app's /api/log and /api/context ask the host process where a session's files
// are: RemoteHost.logFileOf / contextOf answered by a real host process (host-process.ts)
// over its IPC channel, and the shared route answer (session-files.ts) serving them.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RemoteHost } from '../../../src-main/transport/remote-host.ts';
import { sessionFileResponse } from '../../../src-main/transport/session-files.ts';
import { connectInProcess, demoStart, tempDirs, type TestClient } from './helpers.ts';

let remote: RemoteHost;
let c: TestClient;
const dir = mkdtempSync(join(tmpdir(), 'rlm-remote-lookups-'));
const contextFile = join(dir, 'notes ü.txt');
const contextText = `${'a line of the context\n'.repeat(500)}NOTE: the code is 7-ALPHA-2931\n`;

beforeAll(async () => {
  writeFileSync(contextFile, contextText);
  remote = new RemoteHost({ ...tempDirs(), demoLatencyMs: 5 });
  c = connectInProcess(remote);
  await c.call('hello', { protocol: 1 });
}, 60_000);

afterAll(async () => {
  c?.closeCarrier();
  await remote?.close();
});

const request = (path: string, range: string | null = null) => ({ url: new URL(path, 'app://rlm-studio'), method: 'GET', range });

describe('RemoteHost lookups from the host process', () => {
  it('logFileOf and contextOf: a session’s log file and its context file; null for an unknown session', async () => {
    const { session } = await c.call(
      'session.start',
      demoStart('needle', { context: { kind: 'file', path: contextFile }, query: 'the code?' }),
    );
    const done = await c.status(session.sessionId, 'finished', 'failed');
    expect(done.logFile).toBeTruthy();
    expect(await remote.logFileOf(session.sessionId)).toBe(done.logFile);
    expect(await remote.contextOf(session.sessionId)).toEqual({ kind: 'file', path: contextFile, name: 'notes ü.txt' });
    expect(await remote.logFileOf('unknown')).toBeNull();
    expect(await remote.contextOf('unknown')).toBeNull();

    // Answered concurrently, each reply to its own request.
    const [a, b, d] = await Promise.all([remote.logFileOf(session.sessionId), remote.contextOf('unknown'), remote.logFileOf('nope')]);
    expect([a, b, d]).toEqual([done.logFile, null, null]);

    // The shared route answer over these lookups: the log's bytes (and a range of them), the context.
    const whole = readFileSync(done.logFile!);
    const log = await sessionFileResponse(request(`/api/log?session=${session.sessionId}`), remote);
    expect(log?.status).toBe(200);
    expect(Buffer.from(await log!.arrayBuffer()).equals(whole)).toBe(true);
    const part = await sessionFileResponse(request(`/api/log?session=${session.sessionId}`, 'bytes=5-14'), remote);
    expect(part?.status).toBe(206);
    expect(Buffer.from(await part!.arrayBuffer()).equals(whole.subarray(5, 15))).toBe(true);
    const ctx = await sessionFileResponse(request(`/api/context?session=${session.sessionId}`), remote);
    expect(await ctx?.text()).toBe(contextText);
    expect((await sessionFileResponse(request('/api/log?session=unknown'), remote))?.status).toBe(404);
  }, 60_000);

  it('a text context from the recipe', async () => {
    const { session } = await c.call(
      'session.start',
      demoStart('needle', { context: { kind: 'text', text: 'just this text' }, query: 'q' }),
    );
    await c.status(session.sessionId, 'finished', 'failed');
    expect(await remote.contextOf(session.sessionId)).toMatchObject({ kind: 'text', text: 'just this text' });
  }, 60_000);
});

describe('RemoteHost lookups without a host process', () => {
  it('fail with the reason, and the route answers 503 naming it', async () => {
    const gone = new RemoteHost({ ...tempDirs(), demoLatencyMs: 5 });
    // Sent before the process stops: the exit fails it rather than leaving it waiting.
    const pending = gone.logFileOf('x');
    await gone.close();
    await expect(pending).rejects.toThrow(/the host process (was killed|exited)/);
    await expect(gone.contextOf('x')).rejects.toThrow('the host process is not running');
    const res = await sessionFileResponse(request('/api/context?session=x'), gone);
    expect([res?.status, await res?.text()]).toEqual([503, 'the host cannot answer for session "x": the host process is not running']);
  }, 60_000);
});
