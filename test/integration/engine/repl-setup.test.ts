// The REPL is set up while the first model call is in flight: a setup failure still fails the
// completion (as when it was set up first), stops the call in flight, and ends the run's events.
import { afterEach, describe, expect, it } from 'vitest';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import { EventRecorder, RlmConversation } from '../../../src-main/engine/index.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import { startMockLlm, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';
import { createIsolatedRepl } from '../../../src-main/sandbox/isolated-repl.ts';
import type { Repl } from '../../../src-main/sandbox/types.ts';

const servers: MockLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const reply = 'Running code.\n```repl\nanswer.content = String(context.length);\nanswer.ready = true;\n```';

async function setup(latencyMs: number, replFactory?: (o: Parameters<typeof createIsolatedRepl>[0]) => Promise<Repl>) {
  const server = await startMockLlm({ policy: () => reply, latencyMs });
  servers.push(server);
  const events: TrajectoryEvent[] = [];
  const client = new OpenAiCompatibleClient({ baseUrl: server.url, apiKey: 'test', maxRetries: 0 });
  const session = new RlmConversation(
    { client, model: 'mock-root' },
    { sink: new EventRecorder((e) => events.push(e)), ...(replFactory ? { replFactory } : {}) },
  );
  return { server, events, session };
}

describe('REPL set up during the first call', () => {
  it('runs blocks against the context as before', async () => {
    const { session } = await setup(20);
    const out = await session.completion('abcdef', 'how long?');
    expect(out.answer).toBe('6');
    session.close();
  });

  it('fails the completion when the REPL cannot be set up, without waiting for the call', async () => {
    const { session, events, server } = await setup(2_000, async (o) => {
      const repl = await createIsolatedRepl(o);
      return {
        ...repl,
        execute: repl.execute.bind(repl),
        listVariables: repl.listVariables.bind(repl),
        addHistory: repl.addHistory.bind(repl),
        appendHistory: repl.appendHistory.bind(repl),
        dispose: repl.dispose.bind(repl),
        addContext: async () => {
          await new Promise((r) => setTimeout(r, 50));
          throw new Error('context does not fit');
        },
      };
    });
    const t0 = performance.now();
    await expect(session.completion('abc', 'q')).rejects.toThrow('context does not fit');
    expect(performance.now() - t0).toBeLessThan(1_500);
    const end = events.find((e): e is Extract<TrajectoryEvent, { type: 'run.end' }> => e.type === 'run.end');
    expect(end?.stopReason).toBe('error');
    expect(end?.message).toMatch(/REPL could not be set up: context does not fit/);
    expect(server.stats().requests).toBe(1);
    session.close();
  });
});
