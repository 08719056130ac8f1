// Saved logs above `inMemoryLogMaxBytes` stay on disk: subscriptions are served by reading
// the file from the start and skipping to `fromSeq`, so the host holds no copy of the events.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../../src-main/host/host.ts';
import { connectInProcess, demoStart, makeHost, tempDirs, type TestClient } from './helpers.ts';

/** A native log of about `bytes`: a real demo session's events repeated, renumbered. */
export function inflateLog(src: string, dest: string, bytes: number): number {
  const [header, ...lines] = readFileSync(src, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0);
  const events = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const out: string[] = [header!];
  let size = header!.length;
  let seq = 0;
  while (size < bytes) {
    for (const e of events) {
      const line = JSON.stringify({ ...e, seq: seq++ });
      out.push(line);
      size += line.length + 1;
    }
  }
  writeFileSync(dest, `${out.join('\n')}\n`);
  return seq;
}

let host: Host;
let c: TestClient;
let big: string;
let total: number;

beforeAll(async () => {
  const maker = makeHost();
  const mc = connectInProcess(maker);
  const { session } = await mc.call('session.start', demoStart('recursive'));
  await mc.status(session.sessionId, 'finished');
  big = join(tempDirs().runsDir, '..', 'big.rlm.jsonl');
  total = inflateLog(maker.logFileOf(session.sessionId)!, big, 6 * 1024 * 1024);
  await maker.close();
  host = makeHost({ inMemoryLogMaxBytes: 1024 * 1024 });
  c = connectInProcess(host);
});
afterAll(async () => {
  await host.close();
});

describe('large saved logs kept on disk', () => {
  it('streams every event in order from 0 and from the middle, holding none in memory', async () => {
    const { session } = await c.call('session.open', { path: big });
    const id = session.sessionId;
    await c.call('subscribe', { sessionId: id, fromSeq: 0 });
    await c.until(() => (c.events.get(id)?.length ?? 0) >= total || null, 'all events', 60_000);
    const got = c.events.get(id)!;
    expect(got.length).toBe(total);
    expect(got.at(-1)!.seq).toBe(total - 1);
    const list = await c.call('sessions.list', {});
    expect(list.sessions.find((s) => s.sessionId === id)?.eventCount).toBe(total);
    // The host keeps no copy.
    const internal = (host as unknown as { sessions: Map<string, { events: unknown[]; onDisk: boolean }> }).sessions.get(id)!;
    expect(internal.onDisk).toBe(true);
    expect(internal.events.length).toBe(0);

    // A reconnecting client resumes from the middle and gets exactly the rest.
    const c2 = connectInProcess(host);
    const from = Math.floor(total / 2) + 7;
    await c2.call('subscribe', { sessionId: id, fromSeq: from });
    await c2.until(() => (c2.events.get(id)?.length ?? 0) >= total - from || null, 'the rest', 60_000);
    expect(c2.events.get(id)![0]!.seq).toBe(from);
    expect(c2.events.get(id)!.length).toBe(total - from);

    const ex = await c.call('session.export', { sessionId: id, format: 'native' });
    expect(ex.text.split('\n').filter((l) => l.length > 0).length).toBe(total + 1);
  });
});
