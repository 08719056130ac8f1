import { describe, expect, it } from 'vitest';
import { findReplBlocks } from '../../../src-main/engine/code-blocks.ts';
import { describeContext, pyJsonLength } from '../../../src-main/engine/context-meta.ts';
import { buildMetadataMessage, buildReplOutputMessage, fillSystemPrompt } from '../../../src-main/engine/prompts.ts';
import { OUR_PACKS } from '../../../src-main/lm/our-prompt-packs.ts';
import { fill, packHash, PromptPackError, type PromptPack } from '../../../src-main/lm/prompt-pack.ts';
import { parsePromptPack, resolvePromptPack } from '../../../src-main/lm/prompt-pack-schema.ts';
import { BUILT_IN_PROMPT_PACKS } from '../../../src-shared/protocol.ts';

const reference: PromptPack = {
  ...OUR_PACKS.python,
  name: 'ref-like',
  semantics: 'reference',
  numbers: 'plain',
  texts: {
    ...OUR_PACKS.python.texts,
    blockStdout: '\n{text}',
    blockStderr: '\n{text}',
    blockVariables: 'REPL variables: [{names}]\n',
    customToolsSection: '\nTools:\n{tools}',
    customSystemSuffix: '\n\nSUFFIX',
    systemCompaction: '\n\nHISTORY',
  },
};

describe('prompt pack files', () => {
  it('accept our packs and name every problem of a broken one', () => {
    for (const p of Object.values(OUR_PACKS)) expect(parsePromptPack(JSON.parse(JSON.stringify(p)), 'ours')).toEqual(p);
    const { turn: _t, ...texts } = OUR_PACKS.javascript.texts;
    expect(() => parsePromptPack({ ...OUR_PACKS.javascript, version: 2, texts: { ...texts, extra: 'x' } }, 'bad.json')).toThrow(
      PromptPackError,
    );
    try {
      parsePromptPack({ ...OUR_PACKS.javascript, version: 2, texts: { ...texts, extra: 'x' } }, 'bad.json');
    } catch (err) {
      expect((err as Error).message).toMatch(
        /^bad\.json is not a prompt pack: version: .*texts\.turn: missing.*texts: Unrecognized key: "extra"/,
      );
    }
  });

  it('refuse a pack written before the REPL texts were slots, naming every slot it lacks', () => {
    const added = [
      'showVars',
      'showVarsEmpty',
      'emptyPrompt',
      'unknownModel',
      'subcallFailed',
      'subcallFailedBatched',
      'subcallStopped',
      'childFailed',
      'childStopped',
      'childStoppedPartial',
      'childBudgetExhausted',
      'childTimeExhausted',
      'badPrompt',
      'badPrompts',
      'badPromptsItem',
      'badModel',
    ];
    const older = Object.fromEntries(Object.entries(OUR_PACKS.python.texts).filter(([slot]) => !added.includes(slot)));
    expect(() => parsePromptPack({ ...OUR_PACKS.python, texts: older }, 'old.json')).toThrow(PromptPackError);
    try {
      parsePromptPack({ ...OUR_PACKS.python, texts: older }, 'old.json');
    } catch (err) {
      for (const slot of added) expect((err as Error).message).toContain(`texts.${slot}: missing`);
    }
  });

  it('are named as a profile names them: ours by the names the app lists, anything else a file', async () => {
    expect(Object.values(OUR_PACKS).map((p) => p.name)).toEqual([...BUILT_IN_PROMPT_PACKS]);
    for (const name of BUILT_IN_PROMPT_PACKS) expect((await resolvePromptPack(name)).name).toBe(name);
    await expect(resolvePromptPack('/nonexistent/pack.json')).rejects.toThrow(/cannot read the prompt pack \/nonexistent\/pack.json/);
  });

  it('hash the content, whatever the key order', () => {
    const p = OUR_PACKS.python;
    const { texts, roles, ...rest } = p;
    const reordered = JSON.parse(JSON.stringify({ texts, roles, ...rest })) as PromptPack;
    expect(packHash(reordered)).toBe(packHash(p));
    expect(packHash({ ...p, texts: { ...p.texts, turn: 'T {turn}' } })).not.toBe(packHash(p));
    expect(packHash(p)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('fill only the slot variables, in one pass, with plurals and the pack numbers', () => {
    const pack = {
      ...OUR_PACKS.javascript,
      texts: { ...OUR_PACKS.javascript.texts, compactionNote: '{count} {count|time|times}; {other} {{x}} {"a": 1}' },
    };
    expect(fill(pack, 'compactionNote', { count: 1 })).toBe('1 time; {other} {{x}} {"a": 1}');
    expect(fill(pack, 'compactionNote', { count: 12345 })).toBe('12,345 times; {other} {{x}} {"a": 1}');
    expect(fill({ ...pack, numbers: 'plain' }, 'compactionNote', { count: 12345 })).toMatch(/^12345 times/);
    expect(fill(OUR_PACKS.javascript, 'directCallQuery', { context: '{query}', query: 'Q' })).toBe('{query}\n\nQ');
  });
});

describe('reference semantics', () => {
  it("count context lengths as the reference's QueryMetadata does", () => {
    expect(describeContext('a😀b', 'reference').totalChars).toBe(3);
    expect(describeContext('a😀b').totalChars).toBe(4);
    expect(pyJsonLength({ a: [1, 'é'], b: null })).toBe(JSON.stringify({ a: [1, '\\u00e9'], b: null }).length + 3);
    expect(describeContext({ k: 'text', n: { x: 1 } }, 'reference').chunkLengths).toEqual([4, '{"x": 1}'.length]);
    expect(describeContext([{ role: 'user', content: 'hello' }, { content: 'hi😀' }], 'reference').chunkLengths).toEqual([5, 3]);
    expect(describeContext([{ a: 1 }, { b: 'c' }], 'reference').chunkLengths).toEqual([8, 10]);
    expect(describeContext([['x', 'y'], 'abc'], 'reference').chunkLengths).toEqual([2, 3]);
    expect(describeContext([], 'reference').chunkLengths).toEqual([0]);
    expect(describeContext([], 'rlm-studio').chunkLengths).toEqual([]);
  });

  it("parse fences with the reference's pattern: mid-line open, text after the close", () => {
    const reply = 'Let me look: ```repl\nprint(1)\n``` and more\n```repl  \n  x = 2\n```';
    expect(findReplBlocks(reply, 'reference')).toEqual(['print(1)', 'x = 2']);
    expect(findReplBlocks(reply)).toEqual(['x = 2']);
    expect(findReplBlocks('```repl\n```\ntext\n```', 'reference')).toEqual(['```\ntext']);
  });

  it('write block output as printed, the error at the end of stderr, and a query of blanks as a query', () => {
    const msg = buildReplOutputMessage(
      [{ stdout: 'a\n', stderr: '', error: { name: 'NameError', message: "name 'q' is not defined" }, variables: ['x'], replReset: null }],
      'python',
      reference,
    );
    expect(msg).toBe("REPL output:\n\na\n\n\n\n\nNameError: name 'q' is not defined\n\nREPL variables: ['x']\n");
    expect(buildMetadataMessage(describeContext('abc'), '  ', 'python', undefined, reference)).toMatch(/^Query: {3}\n\n/);
    expect(buildMetadataMessage(describeContext('abc'), '  ', 'python')).toMatch(/^Your context/);
  });

  it('fill a custom system prompt as Python format does, then append the suffix and the compaction sentence', () => {
    const tools = [{ name: 't', description: 'd' }];
    expect(fillSystemPrompt('A {{"k": 1}}{custom_tools_section} B', tools, reference, true)).toBe(
      'A {"k": 1}\nTools:\n- `t`: d B\n\nSUFFIX\n\nHISTORY',
    );
    expect(fillSystemPrompt('A {{x}} {tools}', tools)).toBe('A {{x}} - `t`: d');
  });
});
