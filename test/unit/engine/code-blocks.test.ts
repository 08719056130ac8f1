import { describe, expect, it } from 'vitest';
import { findFinalSignal, findReplBlocks, type FinalSignal } from '../../../src-main/engine/code-blocks.ts';

describe('findReplBlocks', () => {
  it('finds a single block', () => {
    expect(findReplBlocks('Let me look.\n```repl\nprint(context.length)\n```\n')).toEqual(['print(context.length)']);
  });

  it('finds several blocks in order', () => {
    const text = 'a\n```repl\nconst x = 1;\n```\nthen\n```repl\nprint(x)\n```';
    expect(findReplBlocks(text)).toEqual(['const x = 1;', 'print(x)']);
  });

  it('returns nothing when there is no block', () => {
    expect(findReplBlocks('I think the answer is 42.')).toEqual([]);
  });

  it('ignores fences with other tags', () => {
    const text = '```python\nprint(1)\n```\n```js\nprint(2)\n```\n```REPL\nprint(3)\n```\n```replit\nprint(4)\n```';
    expect(findReplBlocks(text)).toEqual([]);
  });

  it('keeps multi-line bodies intact', () => {
    const body = 'for (let i = 0; i < 3; i++) {\n  print(i);\n}';
    expect(findReplBlocks(`\`\`\`repl\n${body}\n\`\`\``)).toEqual([body]);
  });

  it('does not match code on the tag line', () => {
    expect(findReplBlocks('```repl print(1)\n```')).toEqual([]);
  });

  it('accepts trailing spaces after the tag and CRLF line ends', () => {
    expect(findReplBlocks('```repl   \r\nprint(1)\r\n```\r\n')).toEqual(['print(1)']);
  });

  it("trims an indented body as the reference's strip() does: only the first line loses its indentation", () => {
    // Expected values are what the reference's find_code_blocks returned for each text.
    const cases: [string, string[]][] = [
      ['```repl\n    x = 1\n    print(x)\n```', ['x = 1\n    print(x)']],
      ['```repl\n\n    x = 1\n    print(x)\n```', ['x = 1\n    print(x)']],
      ['```repl\n\tif True:\n\t    y = 2\n```', ['if True:\n\t    y = 2']],
      ['```repl\nif x:\n    y = 1\n   \n```', ['if x:\n    y = 1']],
      ['  ```repl\n    a = 1\n  ```\n', []],
      ["```repl\nx = '''\n   keep\n'''   \n```", ["x = '''\n   keep\n'''"]],
    ];
    for (const [text, expected] of cases) expect(findReplBlocks(text), JSON.stringify(text)).toEqual(expected);
  });

  it('treats an empty block as empty instead of swallowing the next fence', () => {
    expect(findReplBlocks('```repl\n```\ntext\n```repl\nprint(2)\n```')).toEqual(['', 'print(2)']);
  });
});

describe('findFinalSignal', () => {
  it('finds FINAL(answer) at the start of a line', () => {
    expect(findFinalSignal('I am done.\nFINAL(42)')).toEqual({ kind: 'final', answer: '42' });
  });

  it('keeps parentheses inside the answer', () => {
    expect(findFinalSignal('FINAL(f(x) = x (squared))')).toEqual({ kind: 'final', answer: 'f(x) = x (squared)' });
  });

  it('prefers FINAL_VAR and strips quotes', () => {
    expect(findFinalSignal('FINAL_VAR("result")\nFINAL(no)')).toEqual({ kind: 'final_var', name: 'result' });
  });

  it('reads signals inside code blocks too, as the paper-era reference did, but not mid-line', () => {
    expect(findFinalSignal('```repl\nFINAL(1)\n```\nwe will call FINAL(2) later')).toEqual({ kind: 'final', answer: '1' });
    expect(findFinalSignal('```repl\nx = 3\n    FINAL_VAR(x)\n```')).toEqual({ kind: 'final_var', name: 'x' });
    expect(findFinalSignal('we will call FINAL(2) later, or FINAL_VAR(x)')).toBeNull();
    expect(findFinalSignal('print(FINAL(3))')).toBeNull();
  });

  it('takes FINAL up to the last ")" ending a line, across lines, as the reference\'s greedy pattern did', () => {
    expect(findFinalSignal('FINAL(first line\nsecond (line))\nthanks')).toEqual({ kind: 'final', answer: 'first line\nsecond (line)' });
  });

  it('a FINAL_VAR is the signal even when its argument is no name, and hides a later FINAL', () => {
    expect(findFinalSignal("FINAL_VAR( 'my answer' )\nFINAL(x)")).toEqual({ kind: 'final_var', name: 'my answer' });
    expect(findFinalSignal('FINAL_VAR(""result"")')).toEqual({ kind: 'final_var', name: 'result' });
  });

  it('reads every case as the paper-era find_final_answer did (its results recorded with Python 3.11)', () => {
    // Python's "^", "$", \s and strip(): a lone \r or \u2028 ends no line, \x1c is a blank, \ufeff is not.
    const cases: [string, FinalSignal | null][] = [
      ['FINAL(42)', { kind: 'final', answer: '42' }],
      ['\n\n  FINAL(42)  \n', { kind: 'final', answer: '42' }],
      ['FINAL(42) and more text', null],
      ['FINAL(a)\nFINAL(b)', { kind: 'final', answer: 'a)\nFINAL(b' }],
      ['FINAL(a)\ntext\nFINAL(b)\nafter', { kind: 'final', answer: 'a)\ntext\nFINAL(b' }],
      ['FINAL()', { kind: 'final', answer: '' }],
      ['FINAL(  )', { kind: 'final', answer: '' }],
      ['FINAL(x\r\n', null],
      ['FINAL(x)\r\nmore', { kind: 'final', answer: 'x' }],
      ['FINAL(x)\r\n', { kind: 'final', answer: 'x' }],
      ['\tFINAL(tabbed)', { kind: 'final', answer: 'tabbed' }],
      ['\u00a0FINAL(nbsp)', { kind: 'final', answer: 'nbsp' }],
      ['text FINAL(mid)', null],
      ['FINAL_VAR(x', null],
      ['FINAL_VAR(x)', { kind: 'final_var', name: 'x' }],
      ['FINAL_VAR(  "x"  )', { kind: 'final_var', name: 'x' }],
      ["FINAL_VAR('x')", { kind: 'final_var', name: 'x' }],
      ['FINAL_VAR("\'x\'")', { kind: 'final_var', name: 'x' }],
      ['FINAL_VAR(\'"x"\')', { kind: 'final_var', name: '"x"' }],
      ['FINAL_VAR(x)y', { kind: 'final_var', name: 'x' }],
      ['FINAL_VAR(\nname\n)', { kind: 'final_var', name: 'name' }],
      ['  FINAL_VAR(a) FINAL_VAR(b)', { kind: 'final_var', name: 'a' }],
      ['FINAL(a) (b)', { kind: 'final', answer: 'a) (b' }],
      ['FINAL(a) x)\n', { kind: 'final', answer: 'a) x' }],
      ['FINAL(a)\u2028b', null],
      ['final(a)', null],
      ['FINAL (a)', null],
      ['```repl\nFINAL_VAR(res)\n```', { kind: 'final_var', name: 'res' }],
      ['```repl\nresult = 1\n```\nFINAL(The answer is (1).)', { kind: 'final', answer: 'The answer is (1).' }],
      ['Answer:\n\nFINAL(line one\nline two)\n\nDone.', { kind: 'final', answer: 'line one\nline two' }],
      ['FINAL(x)\rmore', null],
      ['FINAL_VAR()', { kind: 'final_var', name: '' }],
      ['FINAL(x)\u000b', { kind: 'final', answer: 'x' }],
      ['\u001cFINAL(fs)', { kind: 'final', answer: 'fs' }],
      ['\ufeffFINAL(bom)', null],
    ];
    for (const [text, expected] of cases) expect(findFinalSignal(text), JSON.stringify(text)).toEqual(expected);
  });
});
