import { describe, expect, it } from 'vitest';
import { buildReplOutputMessage, buildSystemPrompt, buildTurnPrompt, OUTPUT_CAP_CHARS } from '../../../src-main/engine/prompts.ts';

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
