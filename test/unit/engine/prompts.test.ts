import { describe, expect, it } from 'vitest';
import { describeContext } from '../../../src-main/engine/context-meta.ts';
import {
  buildMetadataMessage,
  buildReplOutputMessage,
  buildSystemPrompt,
  buildTurnPrompt,
  chars,
  defaultToolDescription,
  fillSystemPrompt,
  type SystemPromptOptions,
} from '../../../src-main/engine/prompts.ts';
import { MARKERS } from '../../../src-main/lm/prompt-markers.ts';
import { OUTPUT_CAP_CHARS } from '../../../src-shared/output-cap.ts';
import { subLmBudgets } from '../../../src-main/engine/sub-lm-budgets.ts';
import { classify, replLanguage } from '../../../src-main/mock-llm/policy.ts';

const block = { stdout: '', stderr: '', error: null, variables: [], replReset: null };

describe('numbers in prompts', () => {
  it('are grouped by thousands exactly as en-US does, without loading ICU for whole numbers', () => {
    for (const n of [0, 7, 999, 1000, 20_000, 96_000, 816_000, 1_234_567, 40_000_030, -1234, 2 ** 53 - 1, 1.5, 1234.5678])
      expect(chars(n), String(n)).toBe(n.toLocaleString('en-US'));
  });
});

describe('REPL output message', () => {
  it('says "No output" for an empty block', () => {
    expect(buildReplOutputMessage([block])).toBe('REPL output:\nNo output');
  });

  it('shows stdout, the error and the variables', () => {
    const msg = buildReplOutputMessage([
      { ...block, stdout: 'hi\n', error: { name: 'TypeError', message: 'x is undefined' }, variables: ['a', 'b'] },
    ]);
    expect(msg).toBe('REPL output:\nhi\n\nTypeError: x is undefined\n\nREPL variables: a, b');
  });

  it('lists the variables as a Python list in a Python REPL, as the reference does', () => {
    const one = { ...block, stdout: 'hi\n', variables: ['a', 'b_2'] };
    expect(buildReplOutputMessage([one], 'python')).toBe("REPL output:\nhi\n\nREPL variables: ['a', 'b_2']");
    expect(buildReplOutputMessage([one], 'javascript')).toBe('REPL output:\nhi\n\nREPL variables: a, b_2');
    expect(buildReplOutputMessage([{ ...block, variables: [] }], 'python')).toBe('REPL output:\nNo output');
  });

  it('numbers blocks when there are several', () => {
    const msg = buildReplOutputMessage([
      { ...block, stdout: '1' },
      { ...block, stdout: '2' },
    ]);
    expect(msg).toBe('REPL output (block 1):\n1\n\nREPL output (block 2):\n2');
  });

  it('caps each block separately and says how much was cut', () => {
    const big = 'x'.repeat(OUTPUT_CAP_CHARS + 1234);
    const msg = buildReplOutputMessage([
      { ...block, stdout: big },
      { ...block, stdout: big },
    ]);
    expect(msg.match(/\[1234 more characters cut\]/g)?.length).toBe(2);
    expect(msg.length).toBeLessThan(2 * OUTPUT_CAP_CHARS + 200);
  });

  it('keeps exactly the first 20,000 characters, then the note on a line of its own, as the reference cuts', () => {
    const exact = 'a'.repeat(OUTPUT_CAP_CHARS);
    expect(OUTPUT_CAP_CHARS).toBe(20_000);
    expect(buildReplOutputMessage([{ ...block, stdout: exact }])).toBe(`REPL output:\n${exact}`);
    expect(buildReplOutputMessage([{ ...block, stdout: `${exact}bbbbb` }])).toBe(`REPL output:\n${exact}\n... [5 more characters cut]`);
    // The variables line is part of the capped text, so a long output hides it (as in the reference).
    const withVars = buildReplOutputMessage([{ ...block, stdout: exact, variables: ['x'] }], 'python');
    expect(withVars).toBe(`REPL output:\n${exact}\n... [${"\n\nREPL variables: ['x']".length} more characters cut]`);
  });

  it("counts characters as Python's len does, so a character outside the BMP is never split", () => {
    const emoji = '\u{1F600}';
    const msg = buildReplOutputMessage([{ ...block, stdout: emoji.repeat(OUTPUT_CAP_CHARS + 3) }]);
    expect(msg).toBe(`REPL output:\n${emoji.repeat(OUTPUT_CAP_CHARS)}\n... [3 more characters cut]`);
    // Under the cap in characters though over it in UTF-16 units: nothing is cut.
    const fits = `${emoji.repeat(15_000)}${'a'.repeat(5_000)}`;
    expect(buildReplOutputMessage([{ ...block, stdout: fits }])).toBe(`REPL output:\n${fits}`);
  });
});

describe('turn prompt', () => {
  it('tells the model to look first on turn 1 only', () => {
    expect(buildTurnPrompt({ turn: 1, maxIterations: 30, contextCount: 1, historyCount: 0 })).toMatch(/inspecting it[\s\S]*Turn 1\/30:/);
    expect(buildTurnPrompt({ turn: 2, maxIterations: 30, contextCount: 1, historyCount: 0 })).toBe('Turn 2/30:');
  });

  it('mentions extra contexts and histories', () => {
    const p = buildTurnPrompt({ turn: 2, maxIterations: 5, contextCount: 3, historyCount: 2 });
    expect(p).toContain('context_0 … context_2');
    expect(p).toContain('history_0 … history_1');
  });
});

describe('system prompt', () => {
  it('lists custom tools and explains recursion when it is on', () => {
    const p = buildSystemPrompt({
      tools: [{ name: 'lookup', description: 'finds a record' }],
      recursion: true,
      compaction: false,
      finalPatterns: false,
    });
    expect(p).toContain('`lookup`: finds a record');
    expect(p).toContain('child RLM');
    expect(p).toContain('answer.ready = true');
    expect(p).not.toContain('FINAL(');
  });

  it('teaches FINAL / FINAL_VAR only when asked', () => {
    expect(buildSystemPrompt({ tools: [], recursion: false, compaction: true, finalPatterns: true })).toMatch(
      /FINAL\(your answer\)[\s\S]*/,
    );
  });
});

describe('system prompt for Python', () => {
  const base: SystemPromptOptions = { tools: [], recursion: true, compaction: false, finalPatterns: false };
  const p = buildSystemPrompt({ ...base, language: 'python' });

  it('teaches the Python names and the answer dict, with no JavaScript left in it', () => {
    expect(p).toContain(MARKERS.system);
    expect(p).toContain(MARKERS.pythonRepl);
    for (const name of [
      'llm_query(prompt, model=None)',
      'llm_query_batched(prompts, model=None)',
      'rlm_query(prompt, model=None)',
      'rlm_query_batched(prompts, model=None)',
      'SHOW_VARS()',
      'list[str]',
    ]) {
      expect(p).toContain(name);
    }
    expect(p).toContain('```repl\nanswer["content"] = final_text\nanswer["ready"] = True\n```');
    expect(p).toContain('{"content": "", "ready": False}');
    expect(p).toContain('print(type(context).__name__, len(context))');
    expect(p).not.toMatch(/answer\.ready|answer\.content|console\.log|\bconst\b|\bawait\b|string\[\]|=>/);
  });

  it('teaches what the reference prompt teaches', () => {
    expect(p).toMatch(/orchestrator/);
    expect(p).toMatch(/sees only the prompt you give it/);
    expect(p).toMatch(/terse, structured reply/);
    expect(p).toMatch(/more than about 20 prompts/);
    expect(p).toMatch(/Probe first/);
    expect(p).toMatch(/print a small sample/);
    expect(p).toMatch(/one repl block per turn is fine/);
    expect(p).toMatch(/20,000 characters is cut/);
    expect(p).toMatch(/set ready only after/);
    expect(p).toMatch(/running out of turns, submit your best inference/);
    expect(p).toMatch(/last expression is not shown/);
  });

  it('says so when recursion is off, lists tools, and mentions history under compaction', () => {
    const q = buildSystemPrompt({
      tools: [{ name: 'convert_currency', description: 'EUR to USD' }],
      recursion: false,
      compaction: true,
      finalPatterns: false,
      language: 'python',
    });
    expect(q).toMatch(/recursion is off in this run/);
    expect(q).toContain('- `convert_currency`: EUR to USD');
    expect(q).toMatch(/`history` \(a list\)/);
  });

  it('teaches FINAL and FINAL_VAR only when asked', () => {
    expect(p).not.toContain('FINAL');
    const q = buildSystemPrompt({ ...base, finalPatterns: true, language: 'python' });
    expect(q).toMatch(/FINAL\(your answer\)/);
    expect(q).toMatch(/FINAL_VAR\(name\)/);
    expect(q).toContain('FINAL and FINAL_VAR are also functions in the REPL');
    expect(q).toContain('FINAL_VAR("name")');
    expect(q).toContain('answer["ready"] = True');
  });

  it('is the same teaching as the JavaScript prompt, which keeps its own syntax', () => {
    const j = buildSystemPrompt(base);
    expect(j).not.toContain(MARKERS.pythonRepl);
    expect(j).toContain('answer.content = finalText;\nanswer.ready = true;');
    expect(j).toContain('llm_query(prompt, model?)');
    const headings = (text: string): string[] => text.split('\n').filter((l) => /^(Your role|The REPL|Sub-LMs|How to work)$/.test(l));
    expect(headings(p)).toEqual(headings(j));
    expect(headings(j)).toHaveLength(4);
  });
});

/** Each teaching point of the reference's prompt (and its orchestrator addendum), as our prompt words it. */
const TEACHING: [string, RegExp][] = [
  ['be an orchestrator', /You are an orchestrator, not a solver or a reader/],
  ['keep own tokens for decisions', /keep your tokens for decisions/],
  ['delegate long-text work to sub-LMs', /hand every long-text operation .* to sub-LM calls/],
  ['plain code when it pins the answer', /Where plain code pins the answer/],
  ['long output pollutes the window; recap through a sub-LM', /ask a sub-LM for a one- or two-sentence recap and print that/],
  ['only printed output comes back', /Only what you print comes back to you/],
  ['output is truncated', /beyond about 20,000 characters is cut/],
  [
    'sub-LMs have no REPL and see only their prompt',
    /has no REPL, no tools and no memory of this conversation: it sees only the prompt you give it/,
  ],
  ['clean inputs', /Give it clean, focused input/],
  ['terse structured outputs', /ask for a terse, structured reply/],
  [
    'per-call budget from the window',
    /sized for the sub-model's window of about [\d,]+ tokens: one prompt can hold at most about [\d,]+ characters, and is read most reliably under about [\d,]+/,
  ],
  [
    'per-batch budget',
    /a batch of more than about 20 prompts rarely pays off, so one batch of well-sized prompts covers about [\d,]+ characters/,
  ],
  ['batching raises neither limit', /Batching runs the calls at the same time; it raises neither limit/],
  ['fat prompts, several batches in turn', /several batches of about 20 one after another, not one huge batch/],
  ['batched over a loop', /prefer one batched call to a loop of single calls/],
  [
    'filter first, then staged passes',
    /filter with code first .* or work in stages \(a cheap first pass to narrow the candidates, a second pass to read the survivors closely\)/,
  ],
  ['probe first, not on turn 1', /Probe first: .* Do not submit on your first turn without having looked at it/],
  [
    'plan the decomposition before executing',
    /Plan before you execute: say in a few lines how the task decomposes into code and sub-LM steps, and sketch the turns/,
  ],
  ['one turn at a time', /carry the plan out one turn at a time/],
  ['print a sample at each step', /At each step print a small sample of what you produced/],
  [
    'ready only after printing the candidate',
    /Print the candidate answer and check that it answers the query as asked; set ready only after that/,
  ],
  ['content may change before ready', /Until then you can change the content as often as you like/],
  ['best inference when out of turns', /If you are running out of turns, submit your best inference rather than no answer/],
  ['rlm_query for sub-problems needing code', /Use it for sub-problems that themselves need code and several steps/],
  ['SHOW_VARS', /SHOW_VARS\(\)/],
  ['failed sub-calls return an error string', /a failed call returns a string starting with "Error:"/],
];

describe('teaching points', () => {
  for (const language of ['javascript', 'python'] as const) {
    const p = buildSystemPrompt({ tools: [], recursion: true, compaction: false, finalPatterns: false, language });
    for (const [point, re] of TEACHING) {
      it(`${language}: ${point}`, () => expect(p).toMatch(re));
    }
  }
});

describe('sub-LM budgets', () => {
  it('follow the sub-model window: a small window gives smaller budgets', () => {
    const small = subLmBudgets('mock-sub');
    const large = subLmBudgets('gpt-5-mini');
    expect(small.windowTokens).toBe(32_000);
    expect(large.windowTokens).toBe(272_000);
    expect(small.maxChars).toBeLessThan(large.maxChars);
    expect(small.goodChars).toBeLessThan(large.goodChars);
    expect(small.batchChars).toBeLessThan(large.batchChars);
    // A prompt never fills the whole window (about four characters a token).
    expect(small.maxChars).toBeLessThan(32_000 * 4);
    expect(small.goodChars).toBeLessThanOrEqual(small.maxChars);
    // Whatever the window, a prompt is read well under the reference's ~100K characters.
    expect(subLmBudgets(1_000_000).goodChars).toBe(100_000);
    expect(() => subLmBudgets(0)).toThrow(/positive number of tokens/);
  });

  it('reach the system prompt, its example and the metadata message', () => {
    for (const language of ['javascript', 'python'] as const) {
      const opts = { tools: [], recursion: true, compaction: false, finalPatterns: false, language };
      const small = buildSystemPrompt({ ...opts, budgets: subLmBudgets(32_000) });
      const large = buildSystemPrompt({ ...opts, budgets: subLmBudgets(272_000) });
      expect(small).toContain(
        'window of about 32,000 tokens: one prompt can hold at most about 96,000 characters, and is read most reliably under about 48,000',
      );
      expect(small).toContain('covers about 960,000 characters');
      expect(small).toMatch(/context\[i:i \+ 48000\]|context\.slice\(i, i \+ 48000\)/);
      expect(large).toContain(
        'window of about 272,000 tokens: one prompt can hold at most about 816,000 characters, and is read most reliably under about 100,000',
      );
      expect(small).not.toContain('500,000');
      const meta = (w: number): string => buildMetadataMessage(describeContext('abc'), 'Q', language, subLmBudgets(w));
      expect(meta(32_000)).toMatch(/Each sub-LM call can read about 96,000 characters\.$/);
      expect(meta(272_000)).toMatch(/Each sub-LM call can read about 816,000 characters\.$/);
    }
  });
});

describe('metadata message', () => {
  it('names types as the REPL language does, with the right article', () => {
    expect(buildMetadataMessage(describeContext('abc'), null, 'python')).toMatch(/^Your context is a str of 3 total characters\./);
    expect(buildMetadataMessage(describeContext('abc'), '  ', 'python')).toMatch(/^Your context is a str/);
    expect(buildMetadataMessage(describeContext('abc'), 'Who?', 'python')).toMatch(/^Query: Who\?\n\nYour context is a str/);
    expect(buildMetadataMessage(describeContext(['a', 'b']), null, 'python')).toMatch(
      /^Your context is a list of 2 total characters\. It has 2 items/,
    );
    expect(buildMetadataMessage(describeContext({ k: 'v' }), 'Q?', 'python')).toMatch(
      /^Query: Q\?\n\nYour context is a dict of 1 total character\. It has 1 entry, of this length/,
    );
    expect(buildMetadataMessage(describeContext({ k: 'v' }), null)).toMatch(/^Your context is an object of/);
    expect(buildMetadataMessage(describeContext(['a']), null)).toMatch(/^Your context is an array of/);
    expect(buildMetadataMessage(describeContext('a'), null)).toMatch(/^Your context is a string of/);
  });

  it('counts in the singular and plural correctly', () => {
    expect(buildMetadataMessage(describeContext('a'), null)).toMatch(/^Your context is a string of 1 total character\. /);
    expect(buildMetadataMessage(describeContext(['ab', 'c']), null, 'python')).toMatch(
      /a list of 3 total characters\. It has 2 items, of these lengths in characters: \[2, 1\]\./,
    );
  });

  it('lets mock-llm tell the language from it, whatever the system prompt', () => {
    const meta = (lang: 'javascript' | 'python'): string => buildMetadataMessage(describeContext('abc'), 'Q', lang);
    expect(replLanguage('', meta('python'))).toBe('python');
    expect(
      replLanguage(
        buildSystemPrompt({ tools: [], recursion: true, compaction: false, finalPatterns: false, language: 'python' }),
        meta('javascript'),
      ),
    ).toBe('javascript');
    expect(replLanguage('My own prompt about a Python REPL', '')).toBe('python');
    expect(replLanguage('My own prompt', '')).toBe('javascript');
    const custom = classify({
      model: 'm',
      messages: [
        { role: 'system', content: 'A prompt of my own.' },
        { role: 'user', content: meta('python') },
        { role: 'user', content: 'Turn 1/5:' },
      ],
    });
    expect(custom).toMatchObject({ kind: 'rlm', language: 'python', query: 'Q', turn: 1 });
    const sub = classify({
      model: 'm',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'TASK: summarise' },
      ],
    });
    expect(sub.kind).toBe('sub');
  });
});

describe('custom system prompt and tool descriptions', () => {
  const tools = [
    { name: 'lookup', description: 'finds a record' },
    { name: 'NOTE', description: 'a custom str value' },
  ];

  it('replaces {tools} with the list, and the reference placeholder with its section', () => {
    expect(fillSystemPrompt('Tools:\n{tools}\nEnd {tools}', tools)).toBe(
      'Tools:\n- `lookup`: finds a record\n- `NOTE`: a custom str value\nEnd - `lookup`: finds a record\n- `NOTE`: a custom str value',
    );
    expect(fillSystemPrompt('A{custom_tools_section}B', tools)).toBe(
      'A\n6. Custom tools and data available in the REPL:\n- `lookup`: finds a record\n- `NOTE`: a custom str value\nB',
    );
    expect(fillSystemPrompt('A{tools}B{custom_tools_section}C {other}', [])).toBe('ABC {other}');
  });

  it('describes undescribed tools in the REPL language', () => {
    expect(defaultToolDescription(() => 1, 'python')).toBe('a custom function');
    expect(defaultToolDescription('x', 'python')).toBe('a custom str value');
    expect(defaultToolDescription([1], 'python')).toBe('a custom list value');
    expect(defaultToolDescription({ a: 1 }, 'python')).toBe('a custom dict value');
    expect(defaultToolDescription(3, 'python')).toBe('a custom int value');
    expect(defaultToolDescription(1.5, 'python')).toBe('a custom float value');
    expect(defaultToolDescription(true, 'python')).toBe('a custom bool value');
    expect(defaultToolDescription(null, 'python')).toBe('a custom None value');
    expect(defaultToolDescription([1], 'javascript')).toBe('a custom array value');
    expect(defaultToolDescription('x', 'javascript')).toBe('a custom string value');
  });
});
