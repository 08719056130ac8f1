import { describe, expect, it } from 'vitest';
import { findFinalSignal, findReplBlocks } from '../../../src-main/engine/code-blocks.ts';

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
});
