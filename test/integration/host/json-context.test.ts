// A JSON context typed or uploaded in the app reaches a Python session as Python's json reads
// the text (2.0 a float, big integers exact), through the host's session worker.
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunEndEvent } from '../../../src-shared/events.ts';
import { parseScript, scriptPolicy } from '../../../src-main/mock-llm/policies/script.ts';
import { hostForTests, mockLlmForTests, mockProfile } from './helpers.ts';

const code = 'answer["content"] = repr([context["x"], context["big"], [type(v).__name__ for v in context["list"]]])';
const server = mockLlmForTests({
  latencyMs: 0,
  policy: scriptPolicy(
    parseScript({ rules: [{ match: { kind: 'rlm', turn: 1 }, reply: `\`\`\`repl\n${code}\nanswer["ready"] = True\n\`\`\`` }] }),
  ),
});
const { c } = hostForTests();

beforeAll(async () => {
  await c.call('profiles.save', { profile: mockProfile('scripted', server.url) });
});

describe('a JSON context from the app in a Python session', () => {
  it('has the numbers of its text, not the ones JavaScript parsed', async () => {
    const { session } = await c.call('session.start', {
      params: {
        profile: 'scripted',
        repl: 'python',
        context: { kind: 'json', json: '{"x": 2.0, "big": 12345678901234567890, "list": [1.0, 2]}' },
        query: 'Which numbers?',
        limits: { maxIterations: 2 },
        breakpoints: [],
        startPaused: false,
      },
    });
    const { end, events } = await c.ended(session.sessionId);
    expect(end.status, end.message ?? '').toBe('finished');
    const rootEnd = events.find((e): e is RunEndEvent => e.type === 'run.end' && e.depth === 0);
    expect(rootEnd?.answer).toBe("[2.0, 12345678901234567890, ['float', 'int']]");
  });
});
