// A native run exported to the reference format: each block's `locals` (every variable, short
// values whole, long ones cut), `environment_type` naming the REPL, and per-model usage. The
// real engine and REPLs (JavaScript and Python), the real SDK over HTTP to mock-llm.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportRlmPython } from '../../../src-shared/codecs/rlm-python-export.ts';
import { readRlmPythonText } from '../../../src-shared/codecs/rlm-python-import.ts';
import { makeHeader } from '../../../src-shared/codecs/native-lines.ts';
import { asSessionId, type ReplLanguage, type TrajectoryEvent } from '../../../src-shared/events.ts';
import { EventRecorder, RlmConversation } from '../../../src-main/engine/index.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import { classify, type Policy } from '../../../src-main/mock-llm/policy.ts';
import { startMockLlm, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';

const CODE: Record<ReplLanguage, [string, string]> = {
  javascript: [
    'const n = 41 + 1; const word = "abc"; const big = "y".repeat(1000); const nums = [1, 2, 3]; const sub = llm_query("hi");',
    'answer.content = String(n); answer.ready = true;',
  ],
  python: [
    'n = 41 + 1\nword = "abc"\nbig = "y" * 1000\nnums = [1, 2, 3]\nsub = llm_query("hi")',
    'answer["content"] = str(n)\nanswer["ready"] = True',
  ],
};

let server: MockLlmServer;
let language: ReplLanguage = 'javascript';
const policy: Policy = (req) => {
  const c = classify(req);
  if (c.kind === 'sub') return 'sub answer';
  if (c.kind !== 'rlm') return 'final';
  return `Code.\n\`\`\`repl\n${CODE[language][c.turn === 1 ? 0 : 1]}\n\`\`\``;
};

beforeAll(async () => {
  server = await startMockLlm({ policy, costPerMTok: 1 });
});
afterAll(async () => {
  await server.close();
});

type J = Record<string, unknown>;

async function runAndExport(repl: ReplLanguage): Promise<{ lines: J[]; events: TrajectoryEvent[] }> {
  language = repl;
  const events: TrajectoryEvent[] = [];
  const client = new OpenAiCompatibleClient({ baseUrl: server.url, apiKey: 'k', maxRetries: 0 });
  const session = new RlmConversation(
    { client, model: 'mock-root', subModel: 'mock-sub', repl },
    { sink: new EventRecorder((e) => events.push(e)) },
  );
  const out = await session.completion('the context text', 'q');
  session.close();
  expect(out.stopReason, out.message ?? '').toBe('answered');
  const header = makeHeader(asSessionId('s'), new Date(), undefined, repl);
  return { lines: exportRlmPython(events, header).map((l) => JSON.parse(l) as J), events };
}

describe('export of a native run to the reference format', () => {
  it.each([
    ['javascript', 'javascript', '[1, 2, 3]'],
    // Python small containers are written as the reference writes them (JSON); JavaScript's as a rendering.
    ['python', 'local', [1, 2, 3]],
  ] as const)('%s: locals, environment_type and usage per model', { timeout: 60_000 }, async (repl, environmentType, numsText) => {
    const { lines, events } = await runAndExport(repl);
    expect(lines[0]).toMatchObject({ type: 'metadata', environment_type: environmentType });
    const blocks = lines.slice(1).flatMap((l) => l['code_blocks'] as J[]);
    const locals = (blocks[0]!['result'] as J)['locals'] as J;
    expect(locals).toMatchObject({ n: 42, word: 'abc', nums: numsText, sub: 'sub answer', context: 'the context text' });
    expect(locals['big']).toBe(`${'y'.repeat(200)}…`);
    expect(Object.keys(locals)).toEqual(expect.arrayContaining(['answer', 'context', 'context_0']));
    if (repl === 'python') expect(locals['answer']).toEqual({ content: '', ready: false });
    // The answer after the second block is what the reference shows for its answer dict.
    const after = (blocks[1]!['result'] as J)['locals'] as J;
    expect(JSON.stringify(after['answer'])).toMatch(/42/);
    // The plain call's entry: one usage_summary entry, for the sub-model it asked for.
    const call = ((blocks[0]!['result'] as J)['rlm_calls'] as J[])[0]!;
    expect(Object.keys((call['usage_summary'] as J)['model_usage_summaries'] as J)).toEqual(['mock-sub']);
    // Read back: the same locals on the events, and the language.
    const back = readRlmPythonText(lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    const ends = (evs: TrajectoryEvent[]): unknown[] => evs.flatMap((e) => (e.type === 'block.end' ? [e.locals] : []));
    expect(ends(back.events)).toEqual(ends(events));
    expect(back.events.find((e) => e.type === 'run.start')).toMatchObject({ repl });
  });
});
