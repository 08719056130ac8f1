// What a run actually sends the model: budgets sized from the sub-model's window, and the
// REPL-output message written as the REPL's language writes a list.
import { afterAll, describe, expect, it } from 'vitest';
import type { ReplLanguage, TrajectoryEvent } from '../../../src-shared/events.ts';
import { EventRecorder, RlmConversation } from '../../../src-main/engine/index.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import { scriptPolicy } from '../../../src-main/mock-llm/policies/script.ts';
import { startMockLlm, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';
import { OUR_PACKS } from '../../../src-main/lm/our-prompt-packs.ts';
import { packHash } from '../../../src-main/lm/prompt-pack.ts';

const servers: MockLlmServer[] = [];
afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function firstTurn(language: ReplLanguage, subModel: string | undefined, reply: string): Promise<TrajectoryEvent[]> {
  const server = await startMockLlm({ policy: scriptPolicy({ rules: [{ match: { kind: 'rlm' }, reply }] }), latencyMs: 0 });
  servers.push(server);
  const events: TrajectoryEvent[] = [];
  const client = new OpenAiCompatibleClient({ baseUrl: server.url, apiKey: 'test', maxRetries: 0 });
  const session = new RlmConversation(
    { client, model: 'mock-root', repl: language, maxIterations: 1, ...(subModel ? { subModel } : {}) },
    { sink: new EventRecorder((e) => events.push(e)) },
  );
  try {
    await session.completion('the context', 'q');
    return events;
  } finally {
    session.close();
  }
}

const startMessages = (events: TrajectoryEvent[]): string[] => {
  const start = events.find((e) => e.type === 'run.start');
  return start?.type === 'run.start' ? start.messages.map((m) => m.content) : [];
};

describe('a run quotes budgets for its sub-model', () => {
  it('a small-window sub-model gets smaller budgets in the system prompt and the metadata message', async () => {
    const small = startMessages(await firstTurn('javascript', 'mock-sub', 'Thinking.'));
    const large = startMessages(await firstTurn('javascript', 'gpt-5-mini', 'Thinking.'));
    expect(small[0]).toContain("sub-model's window of about 32,000 tokens: one prompt can hold at most about 96,000 characters");
    expect(small[1]).toMatch(/Each sub-LM call can read about 96,000 characters\.$/);
    expect(large[0]).toContain("sub-model's window of about 272,000 tokens: one prompt can hold at most about 816,000 characters");
    expect(large[1]).toMatch(/Each sub-LM call can read about 816,000 characters\.$/);
  });

  it('without a sub-model, sub-calls go to the root model and its window sizes them', async () => {
    const messages = startMessages(await firstTurn('javascript', undefined, 'Thinking.'));
    expect(messages[0]).toContain('window of about 32,000 tokens');
  });
});

describe('the REPL-output message', () => {
  const replyOutput = (events: TrajectoryEvent[]): string => {
    const end = events.find((e) => e.type === 'iteration.end');
    return end?.type === 'iteration.end' ? (end.appended[1]?.content ?? '') : '';
  };

  it('lists the variables as a Python list in a Python run', async () => {
    const out = replyOutput(await firstTurn('python', undefined, '```repl\nfirst = 1\nsecond = "two"\nprint("ok")\n```'));
    expect(out).toMatch(/^REPL output:\nok\n\nREPL variables: \['answer', 'context_0', 'context', 'first', 'second'\]$/);
  });

  it('and as names separated by commas in a JavaScript run', async () => {
    const out = replyOutput(await firstTurn('javascript', undefined, '```repl\nvar first = 1; var second = "two"; print("ok")\n```'));
    expect(out).toBe('REPL output:\nok\n\nREPL variables: answer, context_0, context, first, second');
  });
});

describe('a context window set for the root model', () => {
  it('sizes the budgets the prompts quote when sub-calls use the root model, and triggers compaction', async () => {
    const server = await startMockLlm({
      policy: scriptPolicy({
        rules: [
          { match: { kind: 'compaction' }, reply: 'summary' },
          { match: { kind: 'rlm' }, reply: 'Looking.\n```repl\nprint("x".repeat(6000));\n```' },
        ],
      }),
      latencyMs: 0,
    });
    servers.push(server);
    const events: TrajectoryEvent[] = [];
    const client = new OpenAiCompatibleClient({ baseUrl: server.url, apiKey: 'test', maxRetries: 0 });
    const session = new RlmConversation(
      { client, model: 'mock-root', maxIterations: 3, compaction: true, contextWindow: 4_000 },
      { sink: new EventRecorder((e) => events.push(e)) },
    );
    try {
      await session.completion('the context', 'q');
    } finally {
      session.close();
    }
    const messages = startMessages(events);
    expect(messages[0]).toContain("sub-model's window of about 4,000 tokens: one prompt can hold at most about 12,000 characters");
    expect(messages[1]).toMatch(/Each sub-LM call can read about 12,000 characters\.$/);
    // 6,000 characters of output a turn pass 85% of 4,000 tokens by the third turn; the table's 32,000 would not.
    expect(events.filter((e) => e.type === 'compaction').length).toBeGreaterThan(0);
  });
});

describe('the pack a run read', () => {
  it('is recorded on run.start: our pack for the REPL language, by name and hash', async () => {
    const starts = async (language: ReplLanguage) => {
      const start = (await firstTurn(language, undefined, 'Thinking.')).find((e) => e.type === 'run.start');
      return start?.type === 'run.start' ? start.prompts : undefined;
    };
    expect(await starts('javascript')).toEqual({ name: 'rlm-studio-javascript', hash: packHash(OUR_PACKS.javascript) });
    expect(await starts('python')).toEqual({ name: 'rlm-studio-python', hash: packHash(OUR_PACKS.python) });
  });
});
