import { describe, expect, it } from 'vitest';
import { mapBounded } from '../../../src-main/engine/concurrency.ts';
import { UsageLedger } from '../../../src-main/engine/usage-ledger.ts';

describe('mapBounded', () => {
  it('keeps input order under varying delays and never exceeds the limit', async () => {
    let inFlight = 0;
    let peak = 0;
    const out = await mapBounded([50, 5, 30, 1, 20, 10, 0, 15], 3, async (ms, i) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, ms));
      inFlight--;
      return `r${i}`;
    });
    expect(out).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7']);
    expect(peak).toBe(3);
  });

  it('handles an empty list', async () => {
    expect(await mapBounded([], 4, async () => 1)).toEqual([]);
  });
});

describe('UsageLedger', () => {
  it('adds each call once to its run and every ancestor', () => {
    const root = new UsageLedger();
    const child = new UsageLedger(root);
    const grandchild = new UsageLedger(child);
    root.add({ inputTokens: 10, outputTokens: 5, costUsd: 0.1 }, 'big');
    grandchild.add({ inputTokens: 1, outputTokens: 2, costUsd: null }, 'small');
    child.add({ inputTokens: 3, outputTokens: 4, costUsd: 0.2 }, 'big');
    expect(root.summary()).toEqual({ inputTokens: 14, outputTokens: 11, costUsd: 0.3, calls: 3 });
    expect(child.summary()).toEqual({ inputTokens: 4, outputTokens: 6, costUsd: 0.2, calls: 2 });
    expect(root.byModel()).toEqual({
      big: { inputTokens: 13, outputTokens: 9, calls: 2, costUsd: 0.3 },
      small: { inputTokens: 1, outputTokens: 2, calls: 1, costUsd: null },
    });
    expect(grandchild.byModel()).toEqual({ small: { inputTokens: 1, outputTokens: 2, calls: 1, costUsd: null } });
  });
});
