// The paper-era protocol (`finalPatterns`) in both REPLs: the engine in-process with the real
// sandboxes, over HTTP to a mock-llm playing scripted replies. What is checked is how the
// paper-era reference ended a run: every block runs first; a submission made by running code
// (FINAL(...), FINAL_VAR(...), the answer object) wins; else FINAL_VAR(...) / FINAL(...) at
// the start of a line anywhere in the reply, code included.
import { afterAll, describe, expect, it } from 'vitest';
import type { ReplLanguage, TrajectoryEvent } from '../../../src-shared/events.ts';
import { EventRecorder, RlmConversation, type RunOutcome } from '../../../src-main/engine/index.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import { scriptPolicy, type Script } from '../../../src-main/mock-llm/policies/script.ts';
import { startMockLlm, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';
import type { PromptPack } from '../../../src-main/lm/prompt-pack.ts';
import { markerPack } from '../../support/marker-pack.ts';

const servers: MockLlmServer[] = [];
afterAll(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const block = (code: string): string => `\`\`\`repl\n${code}\n\`\`\``;

interface Played {
  outcome: RunOutcome;
  events: TrajectoryEvent[];
  stdout: string[];
  errors: string[];
}

/** Plays one completion whose turn N gets `replies[N - 1]`; a final-answer request gets "fallback". */
async function play(
  language: ReplLanguage,
  replies: string[],
  finalPatterns = true,
  more: { prompts?: PromptPack; cpython?: Record<string, never> } = {},
): Promise<Played> {
  const script: Script = {
    rules: [
      ...replies.map((reply, i) => ({ match: { kind: 'rlm' as const, turn: i + 1 }, reply })),
      { match: { kind: 'final' as const }, reply: 'fallback' },
    ],
  };
  const server = await startMockLlm({ policy: scriptPolicy(script), latencyMs: 0, ...(more.prompts ? { prompts: more.prompts } : {}) });
  servers.push(server);
  const events: TrajectoryEvent[] = [];
  const client = new OpenAiCompatibleClient({ baseUrl: server.url, apiKey: 'test', maxRetries: 0 });
  const session = new RlmConversation(
    { client, model: 'mock-root', repl: language, finalPatterns, maxIterations: replies.length, ...more },
    { sink: new EventRecorder((e) => events.push(e)) },
  );
  try {
    const outcome = await session.completion('the context', 'q');
    const ends = events.flatMap((e) => (e.type === 'block.end' ? [e] : []));
    return { outcome, events, stdout: ends.map((e) => e.stdout), errors: ends.flatMap((e) => (e.error ? [e.error.name] : [])) };
  } finally {
    session.close();
  }
}

const CODE: Record<
  ReplLanguage,
  { computeThenFinal: string; failThenFinal: string; setVar: string; submitObject: string; finalVarInCode: string }
> = {
  javascript: {
    computeThenFinal: 'const n = 6 * 7;\nprint("computed", n);\nFINAL(`n=${n}`)',
    failThenFinal: 'throw new Error("boom");\nFINAL(written answer)',
    setVar: 'var result = "from-var"; print(result)',
    submitObject: 'answer.content = "from the answer object"; answer.ready = true;',
    finalVarInCode: 'var result = "from-code"\nFINAL_VAR("result")',
  },
  python: {
    computeThenFinal: 'n = 6 * 7\nprint("computed", n)\nFINAL(f"n={n}")',
    failThenFinal: 'raise ValueError("boom")\nFINAL(written answer)',
    setVar: 'result = "from-var"\nprint(result)',
    submitObject: 'answer["content"] = "from the answer object"\nanswer["ready"] = True',
    finalVarInCode: 'result = "from-code"\nFINAL_VAR("result")',
  },
};

for (const language of ['javascript', 'python'] as const) {
  const c = CODE[language];
  describe(`paper-era protocol, ${language} REPL`, () => {
    it('FINAL(...) inside a repl block: the code runs first and the value it computes is the answer', async () => {
      const r = await play(language, [block(c.computeThenFinal)]);
      expect(r.outcome).toMatchObject({ stopReason: 'answered', answer: 'n=42', iterations: 1 });
      expect(r.stdout).toEqual(['computed 42\n']);
    });

    it('FINAL(...) inside a block that fails before reaching it: the written text is the answer, as the reference read it', async () => {
      const r = await play(language, [block(c.failThenFinal)]);
      expect(r.errors).toHaveLength(1);
      expect(r.outcome).toMatchObject({ stopReason: 'answered', answer: 'written answer', iterations: 1 });
    });

    it('FINAL_VAR(...) inside a repl block answers with the variable', async () => {
      const r = await play(language, [block(c.finalVarInCode)]);
      expect(r.outcome).toMatchObject({ answer: 'from-code', iterations: 1 });
    });

    it('FINAL_VAR(name) after the block that creates the variable, in the same reply', async () => {
      const r = await play(language, [`${block(c.setVar)}\nFINAL_VAR(result)`]);
      expect(r.stdout).toEqual(['from-var\n']);
      expect(r.outcome).toMatchObject({ answer: 'from-var', iterations: 1 });
    });

    it('FINAL_VAR of a variable that does not exist is no answer: the run goes on', async () => {
      const r = await play(language, ['FINAL_VAR(missing)', `Now.\nFINAL(second try)`]);
      expect(r.outcome).toMatchObject({ stopReason: 'answered', answer: 'second try', iterations: 2 });
    });

    it('a submission made by running code wins over a FINAL line in the text', async () => {
      const r = await play(language, [`${block(c.submitObject)}\nFINAL(from the text)`]);
      expect(r.outcome.answer).toBe('from the answer object');
    });

    it('off: FINAL is no REPL function and no signal', async () => {
      const r = await play(language, [block(c.computeThenFinal), 'FINAL(ignored)'], false);
      expect(r.errors).toEqual([language === 'python' ? 'NameError' : 'ReferenceError']);
      expect(r.outcome).toMatchObject({ stopReason: 'max_iterations', answer: 'fallback' });
    });
  });
}

describe('paper-era protocol, Python values', () => {
  it('FINAL_VAR of a list, a dict or a number answers with str() of it, stripped, as the reference printed it', async () => {
    const cases: [string, string][] = [
      ['items = ["a", "b"]', "['a', 'b']"],
      ['d = {"k": [1, None]}', "{'k': [1, None]}"],
      ['n = 42', '42'],
      ['padded = "  x  \\n"', 'x'],
    ];
    for (const [code, expected] of cases) {
      const name = code.split(' ')[0]!;
      const r = await play('python', [`${block(code)}\nFINAL_VAR(${name})`]);
      expect(r.outcome, code).toMatchObject({ stopReason: 'answered', answer: expected, iterations: 1 });
    }
  });

  it('an empty answer is no answer, as the paper-era loop wanted a non-empty one: the text scan decides', async () => {
    // Its value is empty, so the text scan's FINAL_VAR gives nothing either: the run goes on.
    const emptyVar = await play('python', [block('empty = ""\nFINAL_VAR("empty")'), 'FINAL(next)']);
    expect(emptyVar.outcome).toMatchObject({ answer: 'next', iterations: 2 });
    const emptyText = await play('python', [`${block('empty = ""')}\nFINAL_VAR(empty)`, 'FINAL(next)']);
    expect(emptyText.outcome).toMatchObject({ answer: 'next', iterations: 2 });
    const emptyObject = await play('python', [block('answer["content"] = ""\nanswer["ready"] = True'), 'FINAL(next)']);
    expect(emptyObject.outcome).toMatchObject({ answer: 'next', iterations: 2 });
    // FINAL("") in code: the text scan reads the written line, as the reference read it.
    const emptyFinal = await play('python', [block('FINAL("")'), 'FINAL(next)']);
    expect(emptyFinal.outcome).toMatchObject({ answer: '""', iterations: 1 });
  });
});

describe("paper-era FINAL_VAR under a reference pack's semantics", () => {
  const replies = [block('x = "from-block"\nprint(FINAL_VAR("x"))'), block('print(FINAL_VAR("x"))')];
  for (const backend of ['Pyodide', 'CPython'] as const) {
    const more = backend === 'CPython' ? { cpython: {} } : {};
    it(`${backend}: a variable made in the same block is not found (the pack's text says so); the next turn finds it`, async () => {
      const r = await play('python', replies, true, { ...more, prompts: markerPack('python') });
      expect(r.stdout[0]).toMatch(/^«finalVarNotFound»x«finalVarNotFound\.name»\[.*'context'.*\]«finalVarNotFound\.available»\n$/);
      expect(r.outcome).toMatchObject({ stopReason: 'answered', answer: 'from-block', iterations: 2 });
    });
    it(`${backend}: under our pack the same block's variable answers at once`, async () => {
      const r = await play('python', replies, true, more);
      expect(r.stdout[0]).toBe('from-block\n');
      expect(r.outcome).toMatchObject({ stopReason: 'answered', answer: 'from-block', iterations: 1 });
    });
  }
});
