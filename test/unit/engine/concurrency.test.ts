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
    root.add({ inputTokens: 10, outputTokens: 5, costUsd: 0.1 });
    grandchild.add({ inputTokens: 1, outputTokens: 2, costUsd: null });
    expect(root.summary()).toEqual({ inputTokens: 11, outputTokens: 7, costUsd: 0.1, calls: 2 });
    expect(child.summary()).toEqual({ inputTokens: 1, outputTokens: 2, costUsd: null, calls: 1 });
  });
});
