// The app's sessions with `repl: 'cpython'` (the New run form's third choice): the host's session
// worker runs the model's Python in the machine's CPython inside the OS sandbox — real threads,
// installed packages — and its re-execution too, while the log says python as for Pyodide.
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunEndEvent } from '../../../src-shared/events.ts';
import { parseScript, scriptPolicy } from '../../../src-main/mock-llm/policies/script.ts';
import { hostForTests, mockLlmForTests, mockProfile } from './helpers.ts';

// What only CPython has: a thread, numpy, the interpreter's own name (Pyodide's is emscripten).
const code = [
  'import sys, threading, numpy',
  'seen = []',
  't = threading.Thread(target=lambda: seen.append(sys.implementation.name))',
  't.start(); t.join()',
  'answer["content"] = f"{sys.platform} {seen[0]} {int(numpy.arange(4).sum())} {context}"',
  'answer["ready"] = True',
].join('\n');
const server = mockLlmForTests({
  latencyMs: 0,
  policy: scriptPolicy(parseScript({ rules: [{ match: { kind: 'rlm', turn: 1 }, reply: `\`\`\`repl\n${code}\n\`\`\`` }] })),
});
const { c } = hostForTests();

beforeAll(async () => {
  await c.call('profiles.save', { profile: mockProfile('scripted', server.url) });
});

describe('a CPython session from the app', () => {
  it('runs its code in CPython, and its re-execution too', async () => {
    const { session } = await c.call('session.start', {
      params: {
        profile: 'scripted',
        repl: 'cpython',
        context: { kind: 'text', text: 'ctx' },
        query: 'Where do you run?',
        limits: { maxIterations: 2 },
        breakpoints: [],
        startPaused: false,
      },
    });
    const { end, events } = await c.ended(session.sessionId);
    expect(end.status, end.message ?? '').toBe('finished');
    const rootEnd = events.find((e): e is RunEndEvent => e.type === 'run.end' && e.depth === 0);
    expect(rootEnd?.answer).toBe('linux cpython 6 ctx');
    const start = events.find((e) => e.type === 'run.start');
    expect(start?.type === 'run.start' && start.repl).toBe('python');

    // Re-executed: the recipe says cpython, so the blocks run in CPython again and match.
    const { session: rerun } = await c.call('session.rerun', { params: { sessionId: session.sessionId } });
    const again = await c.ended(rerun.sessionId);
    expect(again.end.status, again.end.message ?? '').toBe('finished');
    expect(again.end.message).toContain('1 same, 0 different');
  });
});
