// Issue 40, defect 8, through the real `rlm-studio serve`: one WebSocket message from a client
// holding the token must not stall the host or take gigabytes. 20 MB of nested brackets had
// taken it from 204 MB to 1.18 GB and left other clients unanswered for seconds. Now: refused
// unread by nesting (close 1008) and by size (close 1009), another client is answered, and the
// host's peak resident memory (VmHWM, which a short spike cannot slip past) stays bounded.
// Big texts the page sends go by POST /api/upload instead, into a file the host keeps.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { cliPath, repoRoot } from '../support/cli.ts';
import { connectWs, tempDirs, wsUrlOf } from './helpers.ts';

let child: ChildProcess;
let url: string;

/** The serve process's peak resident memory so far, in MB. */
function peakRssMb(): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
  return Number(m![1]) / 1024;
}

beforeAll(async () => {
  const dirs = tempDirs();
  child = spawn(
    cliPath,
    ['serve', '--port', '0', '--runs-dir', dirs.runsDir, '--settings-dir', dirs.settingsDir, '--static', dirs.runsDir],
    {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (l) => {
      const m = /(http:\/\/\S+\?token=[\w-]+)/.exec(l);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited early (${code})`)));
  });
});

afterAll(() => {
  child.kill('SIGTERM');
});

/** A raw socket (not the protocol client): sends `payload` and resolves with how the host closed it. */
async function sendRaw(payload: string | Buffer): Promise<{ code: number; reason: string }> {
  const ws = new WebSocket(wsUrlOf(url));
  await new Promise<void>((r, j) => (ws.once('open', () => r()), ws.once('error', j)));
  const closed = new Promise<{ code: number; reason: string }>((r) =>
    ws.once('close', (code, reason) => r({ code, reason: reason.toString() })),
  );
  ws.on('error', () => undefined);
  ws.send(payload);
  return closed;
}

describe('a WebSocket message the host must not parse', () => {
  it('20 MB of nested brackets: refused unread, another client answered, memory bounded', async () => {
    const other = await connectWs(wsUrlOf(url));
    expect((await other.call('hello', { protocol: 1 })).protocol).toBe(1);
    const before = peakRssMb();
    const half = 10 * 1024 * 1024;
    const closed = await sendRaw(`${'['.repeat(half)}${']'.repeat(half)}`);
    expect(closed).toEqual({ code: 1008, reason: 'refused unread: nested deeper than 64 levels' });
    // The other client is still served.
    expect((await other.call('sessions.list')).sessions).toEqual([]);
    // Generous: the 20 MB message itself is held while its frames arrive; parsing it took ~1 GB.
    expect(peakRssMb() - before).toBeLessThan(200);
    other.closeCarrier();
  });

  it('a message over the size limit (40 MB of one string): closed as too big while it arrives, memory bounded', async () => {
    const other = await connectWs(wsUrlOf(url));
    const before = peakRssMb();
    const closed = await sendRaw(
      JSON.stringify({ id: 1, command: { type: 'session.openText', name: 'x', text: 'x'.repeat(40 * 1024 * 1024) } }),
    );
    expect(closed.code).toBe(1009);
    expect((await other.call('hello', { protocol: 1 })).protocol).toBe(1);
    expect(peakRssMb() - before).toBeLessThan(200);
    other.closeCarrier();
  });

  it('a command of ordinary depth and size is still answered', async () => {
    const c = await connectWs(wsUrlOf(url));
    const deepButFine = { kind: 'text', text: '[[[[[[[[[[ brackets in a string do not count ]]]]]]]]]]' };
    await expect(c.call('session.openText', { name: 'not-a-log.txt', text: JSON.stringify(deepButFine) })).rejects.toThrow(/not-a-log/);
    c.closeCarrier();
  });
});

describe('POST /api/upload', () => {
  const uploadUrl = (name: string, token?: string) => {
    const u = new URL(url);
    return `${u.origin}/api/upload?name=${encodeURIComponent(name)}&token=${token ?? u.searchParams.get('token')}`;
  };

  it('keeps a large text as a file the commands that take a path can open', async () => {
    const line = (i: number) => `${JSON.stringify({ type: 'log.note', note: `line ${i} ${'y'.repeat(100)}` })}\n`;
    const text = Array.from({ length: 40_000 }, (_, i) => line(i)).join('');
    const res = await fetch(uploadUrl('../../my log.jsonl'), { method: 'POST', body: text });
    expect(res.status).toBe(200);
    const { path } = (await res.json()) as { path: string };
    // The name reduced to a file name, inside the runs folder's uploads.
    expect(path).toMatch(/\/runs\/uploads\/[\w-]+\/my_log\.jsonl$/);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('asks for the token and for POST', async () => {
    expect((await fetch(uploadUrl('a.txt', 'wrong'), { method: 'POST', body: 'x' })).status).toBe(401);
    expect((await fetch(uploadUrl('a.txt'))).status).toBe(405);
  });
});
