import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readLogFile } from '../../../src-main/logs/read-log.ts';
import { connectInProcess, demoStart, hostPerTest } from './helpers.ts';

const newHost = hostPerTest();
describe('host sessions', () => {
  it('runs a demo session in a worker, pushes its events and writes its log', async () => {
    const host = newHost();
    const c = connectInProcess(host);
    expect((await c.call('hello', { protocol: 1 })).protocol).toBe(1);
    const { session } = await c.call('session.start', {
      params: { profile: 'demo', context: { kind: 'demo', name: 'needle' }, query: null, limits: {}, breakpoints: [], startPaused: false },
    });
    await c.call('subscribe', { sessionId: session.sessionId, fromSeq: 0 });
    const done = await c.status(session.sessionId, 'finished', 'failed');
    expect(done.status, done.message ?? '').toBe('finished');
    const events = await c.until(() => {
      const ev = c.events.get(session.sessionId);
      return ev && ev.length === done.eventCount ? ev : null;
    });
    const last = events.at(-1)!;
    expect(last.type).toBe('run.end');
    const log = await readLogFile(done.logFile!);
    expect(log.events.length).toBe(events.length);
    expect(log.header?.sessionId).toBe(session.sessionId);
    expect(readFileSync(done.logFile!, 'utf8')).not.toContain('no-key');
  });
});

describe('many sessions', () => {
  it('runs sessions concurrently and cancels one without disturbing the others', async () => {
    const host = newHost({ demoLatencyMs: 20 });
    const c = connectInProcess(host);
    const names = ['recursive', 'needle', 'aggregate', 'recursive'] as const;
    const started = await Promise.all(names.map((n) => c.call('session.start', demoStart(n))));
    const ids = started.map((r) => r.session.sessionId);
    expect(new Set(ids).size).toBe(4);
    const victim = ids[3]!;
    await c.call('session.cancel', { sessionId: victim });
    const ends = await Promise.all(ids.map((id) => c.status(id, 'finished', 'failed', 'cancelled')));
    expect(ends.map((e) => e.status)).toEqual(['finished', 'finished', 'finished', 'cancelled']);
    const list = (await c.call('sessions.list')).sessions;
    expect(list.filter((s) => ids.includes(s.sessionId)).length).toBe(4);
    // Each session's log is its own, complete for the finished ones.
    for (const e of ends.slice(0, 3)) {
      const log = await readLogFile(e.logFile!);
      expect(log.events.length).toBe(e.eventCount);
      expect(log.events.at(-1)?.type).toBe('run.end');
    }
    const recent = (await c.call('runs.recent', { limit: 10 })).runs;
    expect(recent.length).toBe(4);
  });

  it('marks a session failed when its worker dies, and carries on serving', async () => {
    const host = newHost();
    const c = connectInProcess(host);
    const { session } = await c.call('session.start', demoStart('needle', { startPaused: true }));
    await c.paused(session.sessionId);
    process.kill(host.workerPid(session.sessionId)!, 'SIGKILL');
    const failed = await c.status(session.sessionId, 'failed');
    expect(failed.message).toMatch(/worker process was killed \(SIGKILL\)/);
    const other = await c.call('session.start', demoStart('aggregate'));
    expect((await c.status(other.session.sessionId, 'finished', 'failed')).status).toBe('finished');
  });

  it('opens a saved log read-only, pushing progress, and exports it', async () => {
    const host = newHost();
    const c = connectInProcess(host);
    const { session } = await c.call('session.start', demoStart('aggregate'));
    const done = await c.status(session.sessionId, 'finished');
    const opened = (await c.call('session.open', { path: done.logFile! })).session;
    expect(opened).toMatchObject({ status: 'saved', readOnly: true, format: 'native' });
    await c.call('subscribe', { sessionId: opened.sessionId, fromSeq: 0 });
    await c.until(() => (c.events.get(opened.sessionId)?.length ?? 0) === done.eventCount || null, 'all events');
    expect(c.progress.some((p) => p.sessionId === opened.sessionId && p.bytesRead === p.totalBytes)).toBe(true);
    await expect(c.call('session.pause', { sessionId: opened.sessionId })).rejects.toMatchObject({ code: 'read_only' });
    const native = await c.call('session.export', { sessionId: opened.sessionId, format: 'native' });
    expect(native.text).toBe(readFileSync(done.logFile!, 'utf8'));
    const py = await c.call('session.export', { sessionId: opened.sessionId, format: 'rlm-python' });
    const back = (await c.call('session.openText', { name: py.fileName, text: py.text })).session;
    expect(back.format).toBe('rlm-python');
    await expect(c.call('session.open', { path: '/nonexistent/x.rlm.jsonl' })).rejects.toMatchObject({
      code: 'not_found',
      message: 'cannot open /nonexistent/x.rlm.jsonl: no such file',
    });
    await expect(c.call('session.openText', { name: 'junk', text: 'hello\n' })).rejects.toMatchObject({ code: 'bad_request' });
  });

  it('keeps profiles in the settings folder, never a key', async () => {
    const host = newHost({ env: { MY_KEY: 'sk-secret-value' } });
    const c = connectInProcess(host);
    const { profiles } = await c.call('profiles.save', {
      profile: { name: 'local', baseUrl: 'http://127.0.0.1:2/v1', model: 'm', subModel: null, apiKeyRef: 'MY_KEY', prices: {} },
    });
    expect(profiles.map((p) => p.name)).toEqual(['demo', 'local']);
    const { readdirSync } = await import('node:fs');
    const { join } = await import('node:path');
    const dir = (host as unknown as { opts: { settingsDir: string } }).opts.settingsDir;
    const saved = readdirSync(dir)
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('');
    expect(saved).toContain('MY_KEY');
    expect(saved).not.toContain('sk-secret-value');
    await expect(
      c.call('profiles.save', {
        profile: { name: 'demo', baseUrl: 'http://x/v1', model: 'm', subModel: null, apiKeyRef: null, prices: {} },
      }),
    ).rejects.toMatchObject({ code: 'bad_request' });
    // Deleted: gone from the list and from the file; the environment variable it named is the user's.
    await c.call('profiles.save', {
      profile: { name: 'other', baseUrl: 'http://127.0.0.1:2/v1', model: 'm2', subModel: null, apiKeyRef: null, prices: {} },
    });
    expect((await c.call('profiles.delete', { profile: 'local' })).profiles.map((p) => p.name)).toEqual(['demo', 'other']);
    const after = readdirSync(dir)
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('');
    expect(after).not.toContain('MY_KEY');
    expect(after).toContain('"other"');
    await expect(c.call('profiles.delete', { profile: 'local' })).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringContaining('"local"'),
    });
    await expect(c.call('profiles.delete', { profile: 'demo' })).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/built-in/),
    });
    expect((await c.call('profiles.list', {})).profiles.map((p) => p.name)).toEqual(['demo', 'other']);
    await expect(
      c.call('session.start', {
        params: { profile: 'nope', context: { kind: 'text', text: 'x' }, query: 'q', limits: {}, breakpoints: [], startPaused: false },
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});
