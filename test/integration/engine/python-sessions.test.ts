// Multi-turn sessions and compaction in Python, as in JavaScript: one REPL across completions,
// `context_N` and `history_N` accumulate, and a compacted run finds the full history in `history`.
import { afterAll, describe, expect, it } from 'vitest';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import { EventRecorder, RlmConversation, type RlmConfig } from '../../../src-main/engine/index.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import { classify, type Policy } from '../../../src-main/mock-llm/policy.ts';
import { startMockLlm, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';

const servers: MockLlmServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

const repl = (code: string): string => `Running code.\n\`\`\`repl\n${code}\n\`\`\``;

async function session(policy: Policy, config: Partial<RlmConfig>, persistent: boolean) {
  const server = await startMockLlm({ policy, latencyMs: 0 });
  servers.push(server);
  const events: TrajectoryEvent[] = [];
  const client = new OpenAiCompatibleClient({ baseUrl: server.url, apiKey: 'test', maxRetries: 0 });
  const s = new RlmConversation(
    { client, model: 'mock-root', repl: 'python', ...config },
    { sink: new EventRecorder((e) => events.push(e)), persistent },
  );
  return { s, events };
}

describe('Python sessions', () => {
  it('keeps one interpreter across turns; contexts and histories accumulate', { timeout: 60_000 }, async () => {
    const policy: Policy = (req) => {
      const c = classify(req);
      if (c.lastUser.includes('context_0 … context_2')) {
        return repl(
          'seen.append(context_2)\nanswer["content"] = "+".join(seen) + "|" + str(len(history_1)) + "|" + str(history is history_0)\nanswer["ready"] = True',
        );
      }
      if (c.lastUser.includes('context_0 … context_1')) {
        return repl('seen.append(context_1)\nanswer["content"] = "+".join(seen) + "|" + str(len(history))\nanswer["ready"] = True');
      }
      return repl('seen = [context]\nclass Note:\n    pass\nanswer["content"] = "first"\nanswer["ready"] = True');
    };
    const { s, events } = await session(policy, {}, true);
    try {
      expect((await s.completion('A', 'q')).answer).toBe('first');
      const second = await s.completion('B', 'q');
      expect(second.answer).toMatch(/^A\+B\|\d+$/);
      expect(Number(second.answer!.split('|')[1])).toBeGreaterThanOrEqual(4);
      expect((await s.completion('C', 'q')).answer).toMatch(/^A\+B\+C\|\d+\|True$/);
      expect(events.filter((e) => e.type === 'block.end' && e.error)).toEqual([]);
    } finally {
      s.close();
    }
  });

  it('compacts the history and keeps the full one in `history`', { timeout: 60_000 }, async () => {
    const long = 'word '.repeat(400);
    let turn = 0;
    const policy: Policy = (req) => {
      const c = classify(req);
      if (c.kind === 'compaction') return 'SUMMARY of the work so far: printed numbers.';
      if (req.messages.some((m) => m.content.includes('SUMMARY of the work'))) {
        return repl('answer["content"] = "after compaction, history has " + str(len(history))\nanswer["ready"] = True');
      }
      turn++;
      return `${long}\n${repl(`print(${turn})`)}`;
    };
    const { s } = await session(policy, { compaction: true, contextWindow: 4000, compactionThreshold: 0.6 }, false);
    try {
      const out = await s.completion('c', 'q');
      expect(out.stopReason).toBe('answered');
      expect(out.answer).toMatch(/^after compaction, history has \d+$/);
      expect(Number(out.answer!.split(' ').at(-1))).toBeGreaterThan(2);
    } finally {
      s.close();
    }
  });
});
