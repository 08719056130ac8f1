// The waterfall's calls-in-flight curve: its maximum is the "max N in flight" label.
import { describe, expect, it } from 'vitest';
import { concurrency } from '../../../src-renderer/charts/concurrency.ts';

const peak = (spans: { start: number; end: number }[]): number => Math.max(...concurrency(spans).map((c) => c.n));
const low = (spans: { start: number; end: number }[]): number => Math.min(...concurrency(spans).map((c) => c.n));

describe('calls in flight', () => {
  it('counts a batch answered within one clock tick as in flight together, never below zero', () => {
    const batch = [0, 1, 2, 3].map(() => ({ start: 100, end: 100 }));
    expect(peak(batch)).toBe(4);
    expect(low(batch)).toBe(0);
    expect(concurrency(batch).at(-1)?.n).toBe(0);
  });

  it('does not count calls back to back as overlapping', () => {
    expect(
      peak([
        { start: 0, end: 10 },
        { start: 10, end: 20 },
      ]),
    ).toBe(1);
  });

  it('counts overlapping calls and an instant call inside a longer one', () => {
    expect(
      peak([
        { start: 0, end: 10 },
        { start: 5, end: 15 },
        { start: 5, end: 5 },
      ]),
    ).toBe(3);
    expect(
      peak([
        { start: 0, end: 10 },
        { start: 10, end: 10 },
      ]),
    ).toBe(1);
  });
});
