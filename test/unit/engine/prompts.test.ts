import { describe, expect, it } from 'vitest';
import { describeContext } from '../../../src-main/engine/context-meta.ts';
import {
  buildMetadataMessage,
  buildReplOutputMessage,
  buildSystemPrompt,
  buildTurnPrompt,
  defaultToolDescription,
  fillSystemPrompt,
  MARKERS,
  OUTPUT_CAP_CHARS,
  type SystemPromptOptions,
} from '../../../src-main/engine/prompts.ts';
import { classify, replLanguage } from '../../../src-main/mock-llm/policy.ts';

const block = { stdout: '', stderr: '', error: null, variables: [], replResetNote: null };

describe('REPL output message', () => {
  it('says "No output" for an empty block', () => {
    expect(buildReplOutputMessage([block])).toBe('REPL output:\nNo output');
  });

  it('shows stdout, the error and the variables', () => {
    const msg = buildReplOutputMessage([{ ...block, stdout: 'hi\n', error: { name: 'TypeError', message: 'x is undefined' }, variables: ['a', 'b'] }]);
    expect(msg).toBe('REPL output:\nhi\n\nTypeError: x is undefined\n\nREPL variables: a, b');
  });

  it('numbers blocks when there are several', () => {
    const msg = buildReplOutputMessage([{ ...block, stdout: '1' }, { ...block, stdout: '2' }]);
    expect(msg).toBe('REPL output (block 1):\n1\n\nREPL output (block 2):\n2');
  });

  it('caps each block separately and says how much was cut', () => {
    const big = 'x'.repeat(OUTPUT_CAP_CHARS + 1234);
    const msg = buildReplOutputMessage([{ ...block, stdout: big }, { ...block, stdout: big }]);
    expect(msg.match(/\[1234 more characters cut\]/g)?.length).toBe(2);
    expect(msg.length).toBeLessThan(2 * OUTPUT_CAP_CHARS + 200);
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
    const p = buildSystemPrompt({ tools: [{ name: 'lookup', description: 'finds a record' }], recursion: true, compaction: false, finalPatterns: false });
    expect(p).toContain('`lookup`: finds a record');
    expect(p).toContain('child RLM');
    expect(p).toContain('answer.ready = true');
    expect(p).not.toContain('FINAL(');
  });

  it('teaches FINAL / FINAL_VAR only when asked', () => {
    expect(buildSystemPrompt({ tools: [], recursion: false, compaction: true, finalPatterns: true })).toMatch(/FINAL\(your answer\)[\s\S]*/);
  });
});

describe('system prompt for Python', () => {
  const base: SystemPromptOptions = { tools: [], recursion: true, compaction: false, finalPatterns: false };
  const p = buildSystemPrompt({ ...base, language: 'python' });

  it('teaches the Python names and the answer dict, with no JavaScript left in it', () => {
    expect(p).toContain(MARKERS.system);
    expect(p).toContain(MARKERS.pythonRepl);
    for (const name of ['llm_query(prompt, model=None)', 'llm_query_batched(prompts, model=None)', 'rlm_query(prompt, model=None)', 'rlm_query_batched(prompts, model=None)', 'SHOW_VARS()', 'list[str]']) {
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
    expect(p).toMatch(/500,000 characters/);
    expect(p).toMatch(/about 100,000/);
    expect(p).toMatch(/more than about 20 prompts/);
    expect(p).toMatch(/Probe first/);
    expect(p).toMatch(/print a small sample/);
    expect(p).toMatch(/One repl block per turn is fine/);
    expect(p).toMatch(/20,000 characters is cut/);
    expect(p).toMatch(/set ready only after/);
    expect(p).toMatch(/running out of turns, submit your best answer/);
    expect(p).toMatch(/last expression is not shown/);
  });

  it('says so when recursion is off, lists tools, and mentions history under compaction', () => {
    const q = buildSystemPrompt({ tools: [{ name: 'convert_currency', description: 'EUR to USD' }], recursion: false, compaction: true, finalPatterns: false, language: 'python' });
    expect(q).toMatch(/recursion is off in this run/);
    expect(q).toContain('- `convert_currency`: EUR to USD');
    expect(q).toMatch(/`history` \(a list\)/);
  });

  it('teaches FINAL and FINAL_VAR only when asked', () => {
    expect(p).not.toContain('FINAL');
    const q = buildSystemPrompt({ ...base, finalPatterns: true, language: 'python' });
    expect(q).toMatch(/FINAL\(your answer\)/);
    expect(q).toMatch(/FINAL_VAR\(name\)/);
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

describe('metadata message', () => {
  it('names types as the REPL language does, with the right article', () => {
    expect(buildMetadataMessage(describeContext('abc'), null, 'python')).toMatch(/^Your context is a str of 3 total characters\./);
    expect(buildMetadataMessage(describeContext('abc'), '  ', 'python')).toMatch(/^Your context is a str/);
    expect(buildMetadataMessage(describeContext('abc'), 'Who?', 'python')).toMatch(/^Query: Who\?\n\nYour context is a str/);
    expect(buildMetadataMessage(describeContext(['a', 'b']), null, 'python')).toMatch(/^Your context is a list of 2 total characters\. It has 2 items/);
    expect(buildMetadataMessage(describeContext({ k: 'v' }), 'Q?', 'python')).toMatch(/^Query: Q\?\n\nYour context is a dict of 1 total characters\. It has 1 entries/);
    expect(buildMetadataMessage(describeContext({ k: 'v' }), null)).toMatch(/^Your context is an object of/);
    expect(buildMetadataMessage(describeContext(['a']), null)).toMatch(/^Your context is an array of/);
    expect(buildMetadataMessage(describeContext('a'), null)).toMatch(/^Your context is a string of/);
  });

  it('lets mock-llm tell the language from it, whatever the system prompt', () => {
    const meta = (lang: 'javascript' | 'python'): string => buildMetadataMessage(describeContext('abc'), 'Q', lang);
    expect(replLanguage('', meta('python'))).toBe('python');
    expect(replLanguage(buildSystemPrompt({ tools: [], recursion: true, compaction: false, finalPatterns: false, language: 'python' }), meta('javascript'))).toBe('javascript');
    expect(replLanguage('My own prompt about a Python REPL', '')).toBe('python');
    expect(replLanguage('My own prompt', '')).toBe('javascript');
    const custom = classify({ model: 'm', messages: [{ role: 'system', content: 'A prompt of my own.' }, { role: 'user', content: meta('python') }, { role: 'user', content: 'Turn 1/5:' }] });
    expect(custom).toMatchObject({ kind: 'rlm', language: 'python', query: 'Q', turn: 1 });
    const sub = classify({ model: 'm', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'TASK: summarise' }] });
    expect(sub.kind).toBe('sub');
  });
});

describe('custom system prompt and tool descriptions', () => {
  const tools = [{ name: 'lookup', description: 'finds a record' }, { name: 'NOTE', description: 'a custom str value' }];

  it('replaces {tools} with the list, and the reference placeholder with its section', () => {
    expect(fillSystemPrompt('Tools:\n{tools}\nEnd {tools}', tools)).toBe('Tools:\n- `lookup`: finds a record\n- `NOTE`: a custom str value\nEnd - `lookup`: finds a record\n- `NOTE`: a custom str value');
    expect(fillSystemPrompt('A{custom_tools_section}B', tools)).toBe('A\n6. Custom tools and data available in the REPL:\n- `lookup`: finds a record\n- `NOTE`: a custom str value\nB');
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
