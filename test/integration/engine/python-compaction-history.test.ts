// With compaction, the Python REPL's `history` exists from the start, made before the contexts
// as the reference's REPL makes it: the variable listing the model reads is in the reference's
// order (a difference the side-by-side parity bench found).
import { afterAll, expect, it } from 'vitest';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import { EventRecorder, RlmConversation } from '../../../src-main/engine/index.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import { scriptPolicy } from '../../../src-main/mock-llm/policies/script.ts';
import { startMockLlm, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';

const servers: MockLlmServer[] = [];
afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

it('lists history before the contexts under compaction, and not at all without it', async () => {
  const listing = async (compaction: boolean): Promise<string> => {
    const reply = 'Look.\n```repl\nx = 1\nprint("ok")\n```';
    const server = await startMockLlm({ policy: scriptPolicy({ rules: [{ match: { kind: 'rlm' }, reply }] }), latencyMs: 0 });
    servers.push(server);
    const events: TrajectoryEvent[] = [];
    const client = new OpenAiCompatibleClient({ baseUrl: server.url, apiKey: 'test', maxRetries: 0 });
    const session = new RlmConversation(
      { client, model: 'mock-root', repl: 'python', maxIterations: 1, compaction },
      { sink: new EventRecorder((e) => events.push(e)) },
    );
    try {
      await session.completion('the context', 'q');
    } finally {
      session.close();
    }
    const end = events.find((e) => e.type === 'iteration.end');
    return end?.type === 'iteration.end' ? (end.appended[1]?.content ?? '') : '';
  };
  expect(await listing(true)).toContain("REPL variables: ['answer', 'history', 'context_0', 'context', 'x']");
  expect(await listing(false)).toContain("REPL variables: ['answer', 'context_0', 'context', 'x']");
});
