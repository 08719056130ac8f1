// A live session's replies while they stream (issue 38): the worker sends the pieces, the host
// pushes them (`kind: 'live'`) to the session's subscribers only, never into the log; joined
// they are the logged reply. The mock holds the first reply after its first piece, so the
// test sees a push while nothing of that reply is logged.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { LiveReplyDelta } from '../../../src-shared/live-reply.ts';
import { Host } from '../../../src-main/host/host.ts';
import { connectInProcess, mockLlmForTests, mockProfile, tempDirs } from './helpers.ts';

let release: () => void = () => undefined;
const mock = mockLlmForTests({
  reasoning: 'reasoning_content',
  streamChunkChars: 16,
  holdStream: (n) => (n === 1 ? new Promise<void>((r) => (release = r)) : Promise.resolve()),
});

describe('live replies through the host', () => {
  it('pushes the pieces of a streaming reply to subscribers, and logs the reply once, whole', async () => {
    const host = new Host({ ...tempDirs(), prewarm: false });
    const c = connectInProcess(host);
    const other = connectInProcess(host);
    const pieces: LiveReplyDelta[] = [];
    const elsewhere: unknown[] = [];
    c.onPush((m) => {
      if (m.kind === 'live') pieces.push(...m.deltas);
    });
    other.onPush((m) => {
      if (m.kind === 'live') elsewhere.push(m);
    });
    try {
      await c.call('profiles.save', { profile: mockProfile('m', mock.url) });
      const { session } = await c.call('session.start', {
        params: { profile: 'm', context: { kind: 'demo', name: 'needle' }, query: null },
      });
      await c.call('subscribe', { sessionId: session.sessionId, fromSeq: 0 });
      // (Polled: the client's own waiters run before this test's listener sees a push.)
      await expect.poll(() => pieces.length, { timeout: 60_000 }).toBeGreaterThan(0);
      expect(pieces[0]).toMatchObject({ iteration: 1, purpose: 'turn', depth: 0, content: '', reasoning: 'Turn 1: let me p', tokens: 4 });
      expect((c.events.get(session.sessionId) ?? []).some((e) => e.type === 'model.reply')).toBe(false);
      release();
      const done = await c.status(session.sessionId, 'finished', 'failed', 'cancelled');
      expect(done.status, done.message ?? '').toBe('finished');
      const events = c.events.get(session.sessionId) ?? [];
      const replies = events.filter((e) => e.type === 'model.reply');
      for (const r of replies) {
        if (r.type !== 'model.reply') continue;
        const mine = pieces.filter((p) => p.runId === r.runId && p.iteration === r.iteration && p.purpose === r.purpose);
        expect(mine.map((p) => p.content).join('')).toBe(r.text);
        expect(mine.map((p) => p.reasoning).join('')).toBe(r.reasoning?.text);
      }
      expect(elsewhere).toEqual([]); // not subscribed: no pieces
      const log = readFileSync(done.logFile!, 'utf8');
      expect(log).not.toContain('"live"');
      expect(log.split('\n').filter((l) => l.includes('"model.reply"'))).toHaveLength(replies.length);
    } finally {
      release();
      await host.close();
    }
  });
});
