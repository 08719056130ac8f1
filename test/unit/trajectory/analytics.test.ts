import { describe, expect, it } from 'vitest';
import { asRunId } from '../../../src-shared/events.ts';
import { reduceEvents } from '../../../src-shared/trajectory/reducer.ts';
import {
  addTotals,
  emptyTotals,
  type TrajectoryTotals,
  depthTotals,
  runOwnTotals,
  runTotals,
  sessionTotals,
} from '../../../src-shared/trajectory/totals.ts';
import { logStats, StatsAccumulator } from '../../../src-shared/trajectory/log-stats.ts';
import { criticalPath } from '../../../src-shared/trajectory/critical-path.ts';
import { distributions, histogram, percentile, quartiles } from '../../../src-shared/trajectory/distributions.ts';
import { scenario } from './synthetic.ts';

describe('analytics', () => {
  const s = reduceEvents(scenario().events);

  it('totals per run, inclusive of children, per depth and per session', () => {
    const root = s.runs.get(asRunId('root0'));
    if (!root) throw new Error('no root');
    const own = runOwnTotals(s, root);
    expect(own).toMatchObject({ runs: 1, iterations: 3, codeBlocks: 4, llmCalls: 3, rlmCalls: 2, errors: 1, maxFanOut: 3 });
    expect(own.inputTokens).toBe(300 + 60);
    expect(own.lmMs).toBe(150);
    expect(own.sandboxMs).toBe(10 + 50 + 200 + 10);
    const all = runTotals(s, asRunId('root0'));
    expect(all).toMatchObject({ runs: 3, iterations: 5, codeBlocks: 6, llmCalls: 4, rlmCalls: 2, inputTokens: 360 + 100 + 7 });
    const depths = depthTotals(s);
    expect(depths.map((d) => [d.depth, d.runs, d.iterations])).toEqual([
      [0, 2, 7],
      [1, 2, 2],
    ]);
    const sessions = sessionTotals(s);
    expect(sessions.map((x) => [x.turn, x.runs, x.maxDepth, x.wallMs])).toEqual([
      [0, 3, 1, 600],
      [1, 1, 0, 300],
    ]);
  });

  it("usage per model: turns under their run's model, sub-calls under theirs, summing to the totals", () => {
    const all = runTotals(s, asRunId('root0'));
    expect(Object.keys(all.byModel).sort()).toEqual(['m', 'm-sub']);
    // Three batched calls (20+2 each) and the child's leaf call (7+1) asked for m-sub.
    expect(all.byModel['m-sub']).toEqual({ inputTokens: 67, outputTokens: 7, calls: 4, costUsd: 0.004 });
    expect(all.byModel['m']?.calls).toBe(5);
    const sum = (k: 'inputTokens' | 'outputTokens' | 'calls'): number => Object.values(all.byModel).reduce((n, m) => n + m[k], 0);
    expect([sum('inputTokens'), sum('outputTokens'), sum('calls')]).toEqual([all.inputTokens, all.outputTokens, all.modelCalls]);
    // The whole log, folded from the tree and streamed, agree.
    const stats = logStats(s);
    expect(stats.byModel['m-sub']).toEqual(all.byModel['m-sub']);
    expect(stats.byModel['m']?.calls).toBe(5 + 4);
    const acc = new StatsAccumulator();
    for (const e of scenario().events) acc.push(e);
    expect(acc.result()).toEqual(stats);
  });

  it('usage per model keeps model names as data', () => {
    const t = emptyTotals();
    addTotals(t, {
      ...emptyTotals(),
      byModel: JSON.parse(
        '{"__proto__": {"inputTokens": 1, "outputTokens": 2, "calls": 1, "costUsd": null}}',
      ) as TrajectoryTotals['byModel'],
    });
    expect(Object.keys(t.byModel)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(t.byModel)).toBe(Object.prototype);
    expect(JSON.stringify(t.byModel)).toBe('{"__proto__":{"inputTokens":1,"outputTokens":2,"calls":1,"costUsd":null}}');
  });

  it('critical path goes through the slowest concurrent call and into child runs', () => {
    const path = criticalPath(s, asRunId('root0'));
    const it1Calls = path.filter((p) => p.runId === 'root0' && p.iteration === 1 && p.kind === 'llm');
    // b0, b1, b2 overlap; walking back from the block end only the last to finish (b2) is on the path.
    expect(it1Calls.map((p) => p.callId)).toEqual(['b2']);
    // Iteration 2 expands into the child that finished last (c2), which itself made a leaf call.
    const childSteps = path.filter((p) => p.runId === 'root0/c2');
    expect(childSteps.some((p) => p.kind === 'model')).toBe(true);
    expect(childSteps.some((p) => p.callId === 'leaf1')).toBe(true);
    expect(path.every((p) => p.ms >= 0)).toBe(true);
  });

  it('percentiles and histograms', () => {
    expect(percentile([1, 2, 3, 4, 5], 50)).toBe(3);
    expect(percentile([1, 2, 3, 4], 25)).toBe(1.75);
    expect(percentile([5, 1], 95)).toBeCloseTo(4.8);
    expect(Number.isNaN(percentile([], 50))).toBe(true);
    const q = quartiles(Array.from({ length: 101 }, (_, i) => i));
    expect([q.p25, q.p50, q.p75, q.p95, q.min, q.max, q.mean, q.n]).toEqual([25, 50, 75, 95, 0, 100, 50, 101]);
    const h = histogram([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 5);
    expect(h.edges).toEqual([0, 2, 4, 6, 8, 10]);
    expect(h.counts).toEqual([2, 2, 2, 2, 3]);
    expect(histogram([], 3)).toEqual({ edges: [], counts: [] });
    expect(histogram([4, 4], 2).counts).toEqual([2, 0]);
    const d = distributions([
      {
        sessions: 1,
        runs: 1,
        maxDepth: 0,
        iterations: 2,
        codeBlocks: 2,
        llmCalls: 0,
        rlmCalls: 0,
        errors: 0,
        inputTokens: 10,
        outputTokens: 1,
        costUsd: 0.1,
        retries: 0,
        cachedInputTokens: 0,
        reasoningTokens: 0,
        cutReplies: 0,
        wallMs: 100,
        byModel: {},
      },
      {
        sessions: 1,
        runs: 3,
        maxDepth: 1,
        iterations: 6,
        codeBlocks: 6,
        llmCalls: 2,
        rlmCalls: 2,
        errors: 1,
        inputTokens: 30,
        outputTokens: 3,
        costUsd: 0.3,
        retries: 0,
        cachedInputTokens: 0,
        reasoningTokens: 0,
        cutReplies: 0,
        wallMs: 300,
        byModel: {},
      },
    ]);
    expect(d.costUsd.p50).toBeCloseTo(0.2);
    expect(d.wallMs.p95).toBeCloseTo(290);
  });
});
