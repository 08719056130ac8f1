// The model judge's prompt and verdict: placeholders filled once (an answer that contains
// "{expected}" is not filled again), the last VERDICT line read in its usual spellings.
import { describe, expect, it } from 'vitest';
import { fillJudgePrompt, readVerdict } from '../../../src-main/eval/judge.ts';

describe('judge prompt and verdict', () => {
  it('fills {question}, {answer}, {expected} once', () => {
    const input = { answer: 'It is {expected}', expected: ['a', 'b'], task: { id: 't', kind: 'k', query: 'Q?', repeat: 0 } };
    expect(fillJudgePrompt('{question} | {answer} | {expected} | {answer}', input)).toBe('Q? | It is {expected} | a\nb | It is {expected}');
    expect(fillJudgePrompt('{question} {answer}', { ...input, answer: null, task: { ...input.task, query: null } })).toMatch(
      /^\(the question is not known: the dataset is not at hand\) \(no answer\)$/,
    );
  });

  it('reads the last verdict line; none is null', () => {
    expect(readVerdict('Close, but no.\nVERDICT: INCORRECT')).toEqual({ verdict: 'incorrect', reasoning: 'Close, but no.' });
    expect(readVerdict('First thought VERDICT: CORRECT\n...on reflection\n**Verdict:** incorrect.')).toMatchObject({
      verdict: 'incorrect',
    });
    expect(readVerdict('verdict: Correct\nbecause it matches')).toEqual({ verdict: 'correct', reasoning: 'because it matches' });
    expect(readVerdict('I cannot tell.')).toEqual({ verdict: null, reasoning: 'I cannot tell.' });
  });
});
