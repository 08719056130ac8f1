import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readLogFile } from '../../../src-main/logs/read-log.ts';
import type { Host } from '../../../src-main/host/session-manager.ts';
import { connectInProcess, makeHost } from './helpers.ts';

let host: Host | null = null;
afterEach(async () => {
  await host?.close();
  host = null;
});

describe('host sessions', () => {
  it('runs a demo session in a worker, pushes its events and writes its log', async () => {
    host = makeHost();
    const c = connectInProcess(host);
    expect((await c.call('hello', { protocol: 1 })).protocol).toBe(1);
    const { session } = await c.call('session.start', { params: { profile: 'demo', context: { kind: 'demo', name: 'needle' }, query: null, limits: {}, breakpoints: [], startPaused: false } });
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
