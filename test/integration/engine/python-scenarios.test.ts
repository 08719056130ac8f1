// mock-llm's scenarios in a Python session: the engine in-process with the real Pyodide REPL
// and the built-in policy over HTTP, which writes Python when the session is Python. Every
// block it writes must run without an error (except the one that fails on purpose), and a
// scenario must reach the same answer as in JavaScript.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplLanguage, TrajectoryEvent } from '../../../src-shared/events.ts';
import { EventRecorder, RlmConversation, type RlmConfig } from '../../../src-main/engine/index.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import { scenariosPolicy } from '../../../src-main/mock-llm/policies/scenarios.ts';
import { startMockLlm, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';
import type { SandboxValue } from '../../../src-main/sandbox/types.ts';

let server: MockLlmServer;
beforeAll(async () => {
  server = await startMockLlm({ policy: scenariosPolicy, latencyMs: 0 });
});
afterAll(async () => {
  await server.close();
});

async function play(context: SandboxValue, query: string, config: Partial<RlmConfig> = {}, repl: ReplLanguage = 'python') {
  const events: TrajectoryEvent[] = [];
  const client = new OpenAiCompatibleClient({ baseUrl: server.url, apiKey: 'test', maxRetries: 0 });
  const session = new RlmConversation({ client, model: 'mock-root', repl, ...config }, { sink: new EventRecorder((e) => events.push(e)) });
  try {
    const outcome = await session.completion(context, query);
    const code = events.flatMap((e) => (e.type === 'block.start' ? [e.code] : []));
    const errors = events.flatMap((e) => (e.type === 'block.end' && e.error ? [`${e.error.name}: ${e.error.message}`] : []));
    return { outcome, events, code, errors };
  } finally {
    session.close();
  }
}

function haystack(chars: number, needle: string | null): string {
  const filler = 'The quick brown fox jumps over the lazy dog while the archivist counts ledgers. ';
  let text = filler.repeat(Math.ceil(chars / filler.length)).slice(0, chars);
  if (needle !== null) {
    const at = Math.floor(chars * 0.61);
    text = `${text.slice(0, at)} Remember this: the magic number is ${needle}. ${text.slice(at)}`;
  }
  return text;
}

const LOG = [
  '=== SECTION auth ===',
  'INFO login ok',
  'ERROR bad password',
  'ERROR locked out',
  '=== SECTION billing ===',
  'INFO invoice sent',
  'ERROR card declined',
  'ERROR card declined',
  'ERROR gateway timeout',
  '=== SECTION search ===',
  'INFO query served',
].join('\n');

describe('mock-llm scenarios in a Python session', () => {
  it('writes Python, not JavaScript', async () => {
    const { code, errors } = await play(haystack(50_000, '123'), 'What is the magic number?');
    expect(errors).toEqual([]);
    for (const c of code) expect(c).not.toMatch(/^\s*(const|let) |=>|answer\.ready|;\s*$/m);
  });

  it('needle: the number, and the chunked fallback when there is none', async () => {
    const found = await play(haystack(1_000_000, '4,827,193'), 'What is the magic number?');
    expect(found.outcome).toMatchObject({ stopReason: 'answered', answer: '4827193' });
    const none = await play(haystack(900_000, null), 'What is the magic number?');
    expect(none.errors).toEqual([]);
    expect(none.outcome.answer).toBe('I could not find a magic number in the context.');
    expect(none.events.filter((e) => e.type === 'subcall.start')).toHaveLength(3);
  });

  it('aggregate: the exact count from a list, a JSON string and lines', async () => {
    const labels = ['ham', 'spam', 'eggs'];
    const items = Array.from({ length: 600 }, (_, i) => `message ${i}: words || label: ${labels[(i * i + 3 * i) % 3]}`);
    const expected = String(items.filter((s) => s.endsWith('label: spam')).length);
    for (const context of [items, JSON.stringify(items), items.join('\n')]) {
      const { outcome, errors } = await play(context, 'How many messages are labelled spam?');
      expect(errors).toEqual([]);
      expect(outcome.answer).toBe(expected);
    }
  });

  it('recursive: Python children at depth 2 give the answer leaf calls give at depth 1, and JavaScript gives', async () => {
    const query = 'Per section: which section has the most ERROR lines, and how many?';
    const deep = await play(LOG, query, { maxDepth: 2 });
    expect(deep.errors).toEqual([]);
    expect(deep.outcome.answer).toMatch(/^Section "SECTION billing" has the most ERROR lines: 3 \(of 5 in all\)/);
    expect(deep.events.filter((e) => e.type === 'run.start' && e.depth === 1 && e.repl === 'python')).toHaveLength(3);
    const flat = await play(LOG, query, { maxDepth: 1 });
    expect(flat.outcome.answer).toBe(deep.outcome.answer);
    const js = await play(LOG, query, { maxDepth: 2 }, 'javascript');
    expect(js.outcome.answer).toBe(deep.outcome.answer);
  });

  it('recover: one AttributeError, then the fix', async () => {
    const { outcome, errors } = await play('alpha line\nbeta line\n', 'Inspect this and recover from errors');
    expect(errors).toEqual(["AttributeError: 'NoneType' object has no attribute 'strip'"]);
    expect(outcome.answer).toContain('first line "alpha line"');
  });

  it('never and default', async () => {
    const never = await play(haystack(10_000, null), 'never finish', { maxIterations: 3 });
    expect(never.errors).toEqual([]);
    expect(never.outcome).toMatchObject({ stopReason: 'max_iterations' });
    expect(never.outcome.answer).toMatch(/best guess/);
    const generic = await play(haystack(200_000, null), 'Describe this document');
    expect(generic.errors).toEqual([]);
    expect(generic.outcome.answer).toMatch(/^The context \(200000 characters, read in 8 parts\): Part 1 of 8 has/);
  });
});
