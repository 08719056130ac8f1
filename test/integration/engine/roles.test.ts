// Endpoints and sampling per role: two real mock-llm servers on their own ports, the real SDK
// over HTTP. Root and child-run turns go to the root endpoint with the root's sampling; plain
// sub-calls (llm_query, rlm_query at max depth) go to the sub endpoint with the sub sampling.
import { afterEach, describe, expect, it } from 'vitest';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import { EventRecorder, RlmConversation } from '../../../src-main/engine/index.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import { samplingArgs } from '../../../src-main/lm/sampling.ts';
import { classify, type Policy } from '../../../src-main/mock-llm/policy.ts';
import { startMockLlm, type MockLlmServer, type RecordedRequest } from '../../../src-main/mock-llm/server.ts';

const servers: MockLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const repl = (code: string): string => `Running code.\n\`\`\`repl\n${code}\n\`\`\``;

// Either server can answer anything: where a call went is read from the servers' records.
const policy: Policy = (req) => {
  const c = classify(req);
  if (c.kind === 'sub') return `sub(${c.lastUser})`;
  if (c.kind !== 'rlm') return 'final';
  const child = c.query === null;
  if (child) {
    return c.turn === 1
      ? repl(
          `const a = llm_query("from child"); const b = rlm_query("leaf from child"); answer.content = a + "|" + b; answer.ready = true;`,
        )
      : 'done';
  }
  return c.turn === 1
    ? repl(
        `const x = rlm_query("child task"); const y = llm_query("plain"); const z = llm_query("named root", "mock-root"); print(x, y, z);`,
      )
    : repl(`answer.content = "ok"; answer.ready = true;`);
};

async function serve(): Promise<MockLlmServer> {
  const s = await startMockLlm({ policy, recordRequests: true });
  servers.push(s);
  return s;
}

const isTurn = (r: RecordedRequest): boolean => r.messages[0]?.role === 'system';

describe('endpoints and sampling per role', () => {
  it('sends root and child-run turns to the root endpoint and plain sub-calls to the sub endpoint, each with its sampling', async () => {
    const rootServer = await serve();
    const subServer = await serve();
    const client = new OpenAiCompatibleClient({
      baseUrl: rootServer.url,
      apiKey: 'k',
      maxRetries: 0,
      sampling: samplingArgs({ temperature: 0.25, seed: 7 }),
    });
    const subClient = new OpenAiCompatibleClient({
      baseUrl: subServer.url,
      apiKey: 'k',
      maxRetries: 0,
      sampling: samplingArgs({ temperature: 0.9, topP: 0.5, maxOutputTokens: 64 }),
    });
    const events: TrajectoryEvent[] = [];
    const session = new RlmConversation(
      { client, subClient, model: 'mock-root', subModel: 'mock-sub', maxDepth: 2 },
      { sink: new EventRecorder((e) => events.push(e)) },
    );
    const out = await session.completion('some context', 'the question');
    session.close();
    expect(out.stopReason).toBe('answered');

    const onRoot = rootServer.requests();
    const onSub = subServer.requests();
    // Root: 2 root turns + at least one child turn (all with a system prompt), and the one plain call naming the root model.
    const rootTurns = onRoot.filter(isTurn);
    expect(rootTurns.length).toBeGreaterThanOrEqual(3);
    expect(onRoot.filter((r) => !isTurn(r))).toEqual([
      expect.objectContaining({ model: 'mock-root', messages: [{ role: 'user', chars: 'named root'.length }] }),
    ]);
    for (const r of onRoot) expect(r.params).toMatchObject({ temperature: 0.25, seed: 7 });
    for (const r of onRoot) expect(r.params).not.toHaveProperty('top_p');
    // Sub: the root's llm_query, the child's llm_query and the child's depth-exhausted rlm_query; no turns.
    expect(onSub.filter(isTurn)).toEqual([]);
    expect(onSub.map((r) => r.messages[0]?.chars).sort()).toEqual(['plain', 'from child', 'leaf from child'].map((p) => p.length).sort());
    for (const r of onSub)
      expect(r).toMatchObject({ model: 'mock-sub', params: { temperature: 0.9, top_p: 0.5, max_completion_tokens: 64 } });
    for (const r of onSub) expect(r.params).not.toHaveProperty('seed');

    // The events agree: the child's turns are recorded under its own run, at depth 1.
    const child = events.find((e) => e.type === 'run.start' && e.depth === 1);
    expect(child).toBeDefined();
    const leaf = events.find((e) => e.type === 'subcall.start' && e.leaf);
    expect(leaf).toMatchObject({ prompt: 'leaf from child', model: 'mock-sub' });
  });

  it('without a sub client every call goes to the one endpoint with its sampling', async () => {
    const server = await serve();
    const client = new OpenAiCompatibleClient({
      baseUrl: server.url,
      apiKey: 'k',
      maxRetries: 0,
      sampling: samplingArgs({ temperature: 0 }),
    });
    const session = new RlmConversation({ client, model: 'mock-root', subModel: 'mock-sub', maxDepth: 2 }, { sink: new EventRecorder() });
    const out = await session.completion('ctx', 'q');
    session.close();
    expect(out.stopReason).toBe('answered');
    const all = server.requests();
    expect(all.filter((r) => !isTurn(r)).length).toBe(4);
    for (const r of all) expect(r.params).toMatchObject({ temperature: 0 });
  });
});
