// A session with a sub-call profile: the host's worker sends root turns to the root profile's
// endpoint with its sampling and sub-calls to the sub-call profile's, with its key, model and
// sampling. Two real mock-llm servers record what reached each.
import { describe, expect, it } from 'vitest';
import { Host } from '../../../src-main/host/host.ts';
import { connectInProcess, mockLlmForTests, mockProfile, tempDirs } from './helpers.ts';

const rootMock = mockLlmForTests({ recordRequests: true });
const subMock = mockLlmForTests({ recordRequests: true });

describe('sub-call profile', () => {
  it('runs root turns on the root profile and sub-calls on the sub-call profile, each with its sampling', async () => {
    const host = new Host({ ...tempDirs(), prewarm: false, env: { SUB_KEY: 'sub-key' } });
    const c = connectInProcess(host);
    try {
      await c.call('profiles.save', {
        profile: mockProfile('root', rootMock.url, { sampling: { temperature: 0.1, seed: 5 } }),
      });
      const saved = await c.call('profiles.save', {
        profile: mockProfile('subs', subMock.url, {
          model: 'mock-sub',
          apiKeyRef: 'SUB_KEY',
          sampling: { topP: 0.5, maxOutputTokens: 300 },
        }),
      });
      expect(saved.profiles.find((p) => p.name === 'subs')?.sampling).toEqual({ topP: 0.5, maxOutputTokens: 300 });
      const { session } = await c.call('session.start', {
        params: { profile: 'root', subProfile: 'subs', context: { kind: 'demo', name: 'needle' }, query: null },
      });
      await c.call('subscribe', { sessionId: session.sessionId, fromSeq: 0 });
      const done = await c.status(session.sessionId, 'finished', 'failed', 'cancelled');
      expect(done.status, done.message ?? '').toBe('finished');
      const onRoot = rootMock.requests();
      const onSub = subMock.requests();
      expect(onRoot.length).toBeGreaterThanOrEqual(2);
      for (const r of onRoot) expect(r).toMatchObject({ model: 'mock-root', params: { temperature: 0.1, seed: 5 } });
      expect(onRoot.every((r) => r.messages[0]?.role === 'system')).toBe(true);
      expect(onSub.length).toBeGreaterThanOrEqual(1);
      // The sub-call profile's model is the sub-model; only its own sampling applies.
      for (const r of onSub)
        expect(r).toMatchObject({ model: 'mock-sub', params: { top_p: 0.5, max_completion_tokens: 300 }, messages: [{ role: 'user' }] });
      for (const r of onSub) expect(r.params).not.toHaveProperty('temperature');
      const start = c.events.get(session.sessionId)?.find((e) => e.type === 'run.start');
      expect(start).toMatchObject({ model: 'mock-root', subModel: 'mock-sub' });

      // A fork keeps the sub-call profile unless told otherwise; `null` puts sub-calls back on the root profile.
      const rootPlain = (): number => rootMock.requests().filter((r) => r.messages[0]?.role !== 'system').length;
      const ended = async (id: string): Promise<void> => {
        await c.call('subscribe', { sessionId: id, fromSeq: 0 });
        const s = await c.until(() => {
          const x = c.latest(id);
          return x && ['finished', 'failed', 'cancelled'].includes(x.status) ? x : null;
        }, 'the fork to end');
        expect(s.status, s.message ?? '').toBe('finished');
      };
      const kept = await c.call('session.fork', { params: { sessionId: session.sessionId, runId: start!.runId, iteration: 2 } });
      const subBefore = subMock.requests().length;
      await ended(kept.session.sessionId);
      expect(subMock.requests().length).toBeGreaterThan(subBefore);
      expect(rootPlain()).toBe(0);
      const dropped = await c.call('session.fork', {
        params: { sessionId: session.sessionId, runId: start!.runId, iteration: 2, subProfile: null },
      });
      await ended(dropped.session.sessionId);
      expect(rootPlain()).toBeGreaterThan(0);
    } finally {
      await host.close();
    }
  });

  it('refuses an unknown sub-call profile by name', async () => {
    const host = new Host({ ...tempDirs(), prewarm: false });
    const c = connectInProcess(host);
    try {
      await expect(
        c.call('session.start', {
          params: { profile: 'demo', subProfile: 'nope', context: { kind: 'demo', name: 'needle' }, query: null },
        }),
      ).rejects.toMatchObject({
        code: 'not_found',
        message: expect.stringMatching(/no endpoint profile named "nope"/),
      });
      await expect(
        c.call('profiles.save', {
          profile: mockProfile('bad', rootMock.url, { model: 'm', sampling: { temperature: -1 } }),
        }),
      ).rejects.toMatchObject({ code: 'bad_request', message: expect.stringMatching(/temperature/) });
    } finally {
      await host.close();
    }
  });
});
