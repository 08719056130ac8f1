// Script rules (validation, matching, fallback) and the sub-LM task answers.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSystemPrompt } from '../../../src-main/engine/prompts.ts';
import { COMPACTION_REQUEST, FINAL_ANSWER_REQUEST } from '../../../src-main/lm/prompt-markers.ts';
import type { MockMessage } from '../../../src-main/mock-llm/policy.ts';
import {
  loadScript,
  loadScriptPolicy,
  NoRuleMatchedError,
  parseScript,
  ScriptError,
  scriptPolicy,
} from '../../../src-main/mock-llm/policies/script.ts';
import { countLabels, findNumber, parseTaskPrompt, sectionReport, subLmReply } from '../../../src-main/mock-llm/policies/sub-lm.ts';

const SYSTEM = buildSystemPrompt({ tools: [], recursion: true, compaction: true, finalPatterns: false });
const rlm = (...users: string[]): MockMessage[] => [
  { role: 'system', content: SYSTEM },
  ...users.map((content) => ({ role: 'user', content })),
];

async function tempFile(text: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mock-llm-script-'));
  const file = join(dir, 'script.json');
  await writeFile(file, text);
  return file;
}

describe('script validation', () => {
  it('names the problem and where it is', () => {
    expect(() => parseScript({})).toThrow(/rules/);
    expect(() => parseScript({ rules: [{ match: {} }] })).toThrow(/rules\.0\.reply/);
    expect(() => parseScript({ rules: [{ match: { kind: 'root' }, reply: 'x' }] })).toThrow(/rules\.0\.match\.kind/);
    expect(() => parseScript({ rules: [{ match: { turn: 'one' }, reply: 'x' }] })).toThrow(/rules\.0\.match\.turn/);
    expect(() => parseScript({ rules: [{ match: { lastuser: 'x' }, reply: 'x' }] })).toThrow(/lastuser/);
    expect(() => parseScript({ rules: [], fallback: 'echo' })).toThrow(/fallback/);
    expect(() => parseScript({ rules: [] })).not.toThrow();
  });

  it('rejects a bad regular expression by rule and field', () => {
    const script = parseScript({ rules: [{ reply: 'ok' }, { match: { anyUser: '(' }, reply: 'x' }] });
    expect(() => scriptPolicy(script)).toThrow(ScriptError);
    expect(() => scriptPolicy(script)).toThrow(/rules\.1\.match\.anyUser is not a valid regular expression/);
  });

  it('reports unreadable files, bad JSON and bad content with the file name', async () => {
    await expect(loadScript('/nonexistent/script.json')).rejects.toThrow(/cannot read mock-llm script \/nonexistent\/script\.json/);
    const bad = await tempFile('{"rules": [');
    await expect(loadScript(bad)).rejects.toThrow(new RegExp(`mock-llm script ${bad} is not valid JSON`));
    const wrong = await tempFile('{"rules": [{"reply": 3}]}');
    await expect(loadScript(wrong)).rejects.toThrow(new RegExp(`invalid mock-llm script ${wrong}: rules\\.0\\.reply`));
    const badRe = await tempFile('{"rules": [{"match": {"system": "["}, "reply": "x"}]}');
    await expect(loadScriptPolicy(badRe)).rejects.toThrow(new RegExp(`invalid mock-llm script ${badRe}: rules\\.0\\.match\\.system`));
  });
});

describe('script rules', () => {
  const policy = scriptPolicy(
    parseScript({
      rules: [
        { match: { kind: 'final' }, reply: 'final guess' },
        { match: { kind: 'compaction' }, reply: 'summary' },
        { match: { kind: 'rlm', turn: 2 }, reply: 'turn two' },
        { match: { kind: 'rlm', lastUser: '^Turn 1/' }, reply: 'turn one' },
        { match: { kind: 'sub', model: 'special' }, reply: 'special sub' },
        { match: { anyUser: 'needle' }, reply: 'saw needle' },
        { match: { system: 'Recursive Language Model' }, reply: 'rlm other' },
      ],
    }),
  );
  const ask = (messages: MockMessage[], model = 'm'): string => policy({ model, messages });

  it('applies the first matching rule', () => {
    expect(ask(rlm('Query: q', 'Turn 1/5:'))).toBe('turn one');
    expect(ask(rlm('Query: q', 'Turn 2/5:'))).toBe('turn two');
    expect(ask(rlm('Query: q', 'Turn 3/5:'))).toBe('rlm other');
    expect(ask(rlm('Query: q', FINAL_ANSWER_REQUEST))).toBe('final guess');
    expect(ask(rlm('Query: q', COMPACTION_REQUEST))).toBe('summary');
    expect(ask([{ role: 'user', content: 'x' }], 'special')).toBe('special sub');
    expect(ask([{ role: 'user', content: 'a needle here' }])).toBe('saw needle');
  });

  it('without a fallback, an unmatched request is an error that explains itself', () => {
    expect(() => ask([{ role: 'user', content: 'nothing' }])).toThrow(NoRuleMatchedError);
    expect(() => ask([{ role: 'user', content: 'nothing' }])).toThrow(/no mock-llm script rule matched.*kind sub/);
  });

  it('with "fallback": "scenarios", unmatched requests get the built-in policy', () => {
    const p = scriptPolicy(parseScript({ rules: [{ match: { kind: 'final' }, reply: 'x' }], fallback: 'scenarios' }));
    expect(p({ model: 'm', messages: [{ role: 'user', content: 'TASK: count-labels\nITEMS:\nx || label: a' }] })).toBe('{"a":1}');
  });
});

describe('sub-LM tasks', () => {
  it('parses the task header, fields and body', () => {
    expect(parseTaskPrompt('TASK: find-number\nKEY: magic number\nReply with the number.\nTEXT:\nabc\ndef')).toEqual({
      task: 'find-number',
      fields: { KEY: 'magic number' },
      body: 'abc\ndef',
    });
    expect(parseTaskPrompt('hello')).toBeNull();
  });

  it('answers each task correctly', () => {
    expect(findNumber('... the Magic Number is: 1,234,567 and more', 'magic number')).toBe('1234567');
    expect(subLmReply('TASK: find-number\nKEY: magic number\nTEXT:\nnothing here')).toBe('NONE');
    expect(countLabels('a || label: Spam\nb || label: ham\nc || label: spam')).toEqual({ ham: 1, spam: 2 });
    expect(Object.keys(countLabels('label: z\nlabel: a'))).toEqual(['a', 'z']);
    const report = sectionReport('Which has most ERROR lines or "timeout"?', 'db', 'ERROR a\nok\nERROR timeout\n\n');
    expect(report).toMatchObject({ title: 'db', lines: 3, counts: { ERROR: 2, timeout: 1 } });
    expect(subLmReply('TASK: summarise\nTEXT:\nalpha beta\ngamma')).toMatch(/^The text has 2 lines and 3 words, beginning "alpha beta"/);
    expect(subLmReply('What is the magic number? It is 42.')).toBe('The magic number is 42.');
  });

  it('is deterministic', () => {
    const prompt = `TASK: summarise\nPART: 1 of 2\nTEXT:\n${'zeta eta theta iota kappa lambda '.repeat(100)}`;
    expect(subLmReply(prompt)).toBe(subLmReply(prompt));
  });
});

describe('summaries', () => {
  it('quote a stated key finding', () => {
    expect(subLmReply('TASK: summarise\nTEXT:\n## Section 1\nwords here\nKey finding: billing errors affected 42 customers.')).toContain(
      'It states: billing errors affected 42 customers.',
    );
  });
});
