// Scorers on hand-made answers: right, wrong and partial.
import { describe, expect, it } from 'vitest';
import { containsToken, normalizeAnswer, parsePairs, scoreAnswer } from '../../../src-main/eval/tasks/scorers.ts';
import { prng } from '../../../src-main/corpus/seeded-text.ts';

describe('scorers', () => {
  it('exact: normalised equality only', () => {
    expect(scoreAnswer('exact', 'Kyoto', '  "kyoto." ')).toMatchObject({ score: 1, correct: true });
    expect(scoreAnswer('exact', 'Kyoto', 'Osaka')).toMatchObject({ score: 0, correct: false });
    expect(scoreAnswer('exact', 'Kyoto', 'Kyoto or Osaka')).toMatchObject({ score: 0, correct: false });
    expect(scoreAnswer('exact', 'Kyoto', null).score).toBe(0);
    expect(normalizeAnswer(' A  b! ')).toBe('a b');
  });

  it('contains: the same verdict as a whole-token RegExp, on random text in several scripts', () => {
    const rand = prng(11);
    const alphabet = ['a', 'b', '1', '2', ' ', '.', '-', 'é', '中', '文', '😀', '𝐀', '٣', '_', ',', '\n'];
    const pick = (n: number): string => Array.from({ length: n }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('');
    for (let i = 0; i < 3000; i++) {
      const want = pick(1 + Math.floor(rand() * 3));
      const text = pick(Math.floor(rand() * 12));
      const escaped = want.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const expected = new RegExp(`(^|[^\\p{L}\\p{N}])${escaped}($|[^\\p{L}\\p{N}])`, 'u').test(text);
      expect([text, want, containsToken(text, want)]).toEqual([text, want, expected]);
    }
  });

  it('contains: the value as a whole token', () => {
    expect(scoreAnswer('contains', '4827193', 'The passcode is 4827193.')).toMatchObject({ score: 1, correct: true });
    expect(scoreAnswer('contains', '4827193', '14827193')).toMatchObject({ score: 0, correct: false });
    expect(scoreAnswer('contains', '4827193', 'not found').score).toBe(0);
  });

  it('numeric: 0.75^|error| partial credit, correct only when exact', () => {
    expect(scoreAnswer('numeric', 120, '120')).toMatchObject({ score: 1, correct: true });
    expect(scoreAnswer('numeric', 1200, 'There are 1,200 records')).toMatchObject({ score: 1, correct: true });
    expect(scoreAnswer('numeric', 120, 'about 122')).toMatchObject({ score: 0.75 ** 2, correct: false });
    expect(scoreAnswer('numeric', 120, 'many')).toMatchObject({ score: 0, correct: false });
    expect(scoreAnswer('numeric', 120, '5000').score).toBeLessThan(1e-9);
  });

  it('pairs-f1: order-free pairs, F1 for partial lists', () => {
    const want = ['1,2', '3,4', '5,6', '7,8'];
    expect(scoreAnswer('pairs-f1', want, '2,1\n4, 3\n5,6\n8,7')).toMatchObject({ score: 1, correct: true });
    // 2 right of 4 expected, 2 wrong of 4 given: P = R = 0.5.
    const half = scoreAnswer('pairs-f1', want, '1,2\n3,4\n9,10\n11,12');
    expect(half.score).toBeCloseTo(0.5, 10);
    expect(half.correct).toBe(false);
    // 2 right, nothing wrong: P = 1, R = 0.5, F1 = 2/3.
    expect(scoreAnswer('pairs-f1', want, '1,2\n1,2\n3,4').score).toBeCloseTo(2 / 3, 10);
    expect(scoreAnswer('pairs-f1', want, 'no pairs').score).toBe(0);
    expect(scoreAnswer('pairs-f1', [], '')).toMatchObject({ score: 1, correct: true });
    expect([...parsePairs('(3, 1) 2,2 10,4')]).toEqual(['1,3', '4,10']);
  });
});
