// The paired comparison's statistics against values computed by hand (and checked with
// SciPy 1.17: ttest_1samp, wilcoxon, binomtest, norm, t), and the worked example of
// docs/statistics.md, number for number.
import { describe, expect, it } from 'vitest';
import { pairedComparison, type PairedSession } from '../../../src-shared/analysis/paired-comparison.ts';
import {
  binomialTwoSidedP,
  bootstrapMeanInterval,
  normalCdf,
  normalQuantile,
  pairedT,
  passAtK,
  passHatK,
  seededRandom,
  signedRankTest,
  signTest,
  studentTwoSidedP,
} from '../../../src-shared/analysis/paired-stats.ts';

describe('distributions', () => {
  it('normal and Student t', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 8);
    expect(normalQuantile(0.001)).toBeCloseTo(-3.090232306167813, 8);
    expect(normalCdf(1.96)).toBeCloseTo(0.9750021048517795, 7);
    expect(normalCdf(normalQuantile(0.3))).toBeCloseTo(0.3, 7);
    expect(studentTwoSidedP(2.5, 10)).toBeCloseTo(0.03144684423660882, 9);
    expect(studentTwoSidedP(0.3, 1)).toBeCloseTo(0.8144528418445154, 9);
    expect(studentTwoSidedP(12, 200)).toBeCloseTo(2.422136005246625e-25, 30);
  });
});

describe('paired tests', () => {
  it('exact binomial sign test: 2·P(X ≤ min(k, n−k)) at p = ½', () => {
    expect(binomialTwoSidedP(2, 10)).toBeCloseTo(112 / 1024, 14); // 2·(1 + 10 + 45)/1024
    expect(binomialTwoSidedP(8, 10)).toBeCloseTo(112 / 1024, 14);
    expect(binomialTwoSidedP(0, 5)).toBeCloseTo(2 / 32, 14);
    expect(binomialTwoSidedP(5, 10)).toBe(1);
    expect(binomialTwoSidedP(0, 0)).toBe(1);
    // Large n stays finite (logs): 500 of 1000 is no evidence; 440 of 1000 is strong.
    expect(binomialTwoSidedP(500, 1000)).toBe(1);
    expect(binomialTwoSidedP(440, 1000)).toBeLessThan(0.001);
  });

  it('McNemar: the discordant tasks only, named exact McNemar when each task ran once', () => {
    // b = 8 tasks only A solved, c = 2 only B solved, 5 ties.
    const d = [...Array<number>(8).fill(1), ...Array<number>(2).fill(-1), ...Array<number>(5).fill(0)];
    const t = signTest(d, true);
    expect(t).toMatchObject({ name: 'exact McNemar', aBetter: 8, bBetter: 2, ties: 5 });
    expect(t.pValue).toBeCloseTo(0.109375, 14);
    expect(signTest([0.5, -0.5, 1], false).name).toBe('exact sign test');
  });

  it('Wilcoxon signed-rank: exact, ties by average ranks, zeros dropped', () => {
    // Ranks 1..5, W+ = 1+2+3+5 = 11 of 15: P(|W+ − 7.5| ≥ 3.5) = 14/32.
    expect(signedRankTest([1, 2, 3, -4, 5])).toEqual({ name: 'Wilcoxon signed-rank', wPlus: 11, n: 5, exact: true, pValue: 0.4375 });
    expect(signedRankTest([2, 3, 5, 7, 11, 13]).pValue).toBe(2 / 64);
    expect(signedRankTest([0, 2, 3, 5, 7, 11, 13, 0]).pValue).toBe(2 / 64);
    // Tied |d| (0.5, 1, 2 twice each): W+ = 41, 184 of the 1024 sign patterns as extreme (enumerated by hand in Python).
    const tied = signedRankTest([1.5, -0.5, 2, 2, -3, 4, 0.5, 1, -1, 2.5]);
    expect(tied.wPlus).toBe(41);
    expect(tied.pValue).toBeCloseTo(184 / 1024, 12);
    expect(signedRankTest([0, 0]).pValue).toBe(1);
  });

  it('paired t on the standard error of the mean difference', () => {
    // d = 1, 2, 3, 4: mean 2.5, sd √(5/3), se √(5/12), t = 3.8730 on 3 df.
    const r = pairedT(2.5, Math.sqrt(5 / 12), 4);
    expect(r.t).toBeCloseTo(3.872983346207417, 12);
    expect(r.df).toBe(3);
    expect(r.pValue).toBeCloseTo(0.030466291662170977, 9);
    expect(pairedT(0, 0, 5).pValue).toBe(1);
  });
});

describe('bootstrap', () => {
  it('is reproducible from its seed, and moves with it', () => {
    const rand = seededRandom(7);
    const xs = Array.from({ length: 40 }, () => rand() * 10 - 4);
    const a = bootstrapMeanInterval(xs, 0.95, 2000, 1);
    expect(bootstrapMeanInterval(xs, 0.95, 2000, 1)).toEqual(a);
    expect(bootstrapMeanInterval(xs, 0.95, 2000, 2)).not.toEqual(a);
    const m = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(a.low).toBeLessThan(m);
    expect(a.high).toBeGreaterThan(m);
  });

  it('is near the normal interval mean ± 1.96·sd/√n on a large symmetric sample, wider at 99%', () => {
    const rand = seededRandom(3);
    const xs = Array.from({ length: 2000 }, () => normalQuantile(Math.min(1 - 1e-12, Math.max(1e-12, rand()))));
    const n = xs.length;
    const m = xs.reduce((s, x) => s + x, 0) / n;
    const sd = Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (n - 1));
    const ci = bootstrapMeanInterval(xs, 0.95, 4000, 1);
    const half = (1.96 * sd) / Math.sqrt(n);
    expect(ci.low).toBeCloseTo(m - half, 2);
    expect(ci.high).toBeCloseTo(m + half, 2);
    const wide = bootstrapMeanInterval(xs, 0.99, 4000, 1);
    expect(wide.high - wide.low).toBeGreaterThan(ci.high - ci.low);
  });

  it('agrees with SciPy 1.17 stats.bootstrap(method="BCa") up to resampling noise', () => {
    const d = [0.3, 1.2, -0.4, 2.5, 0.9, -1.1, 0.05, 3.3, 0.7, 0.2, 1.8, -0.6, 0.4, 0.0, 1.1];
    const ci = bootstrapMeanInterval(d, 0.95, 20000, 1);
    // SciPy (20,000 resamples, random_state=1): [0.18667, 1.35258].
    expect(Math.abs(ci.low - 0.18667)).toBeLessThan(0.03);
    expect(Math.abs(ci.high - 1.35258)).toBeLessThan(0.03);
  });

  it('collapses to the value when every difference is the same', () => {
    expect(bootstrapMeanInterval([0.25, 0.25, 0.25], 0.95, 100, 1)).toEqual({ low: 0.25, high: 0.25 });
  });
});

describe('pass@k and pass^k (unbiased, from n sessions with c correct)', () => {
  it('match the closed forms', () => {
    expect(passAtK(5, 1, 2)).toBeCloseTo(1 - 6 / 10, 12); // 1 − C(4,2)/C(5,2)
    expect(passHatK(5, 3, 2)).toBeCloseTo(3 / 10, 12); // C(3,2)/C(5,2)
    expect(passAtK(3, 2, 2)).toBe(1);
    expect(passHatK(3, 2, 2)).toBeCloseTo(1 / 3, 12);
    expect(passAtK(4, 0, 3)).toBe(0);
    expect(passHatK(4, 4, 4)).toBe(1);
    expect(passAtK(6, 3, 1)).toBe(0.5);
  });
});

describe('the worked example of docs/statistics.md', () => {
  // Five tasks, two sessions each on both sides (1 = correct), time in seconds.
  const outcomes: [string, number[], number[]][] = [
    ['t1', [1, 1], [1, 0]],
    ['t2', [1, 0], [0, 0]],
    ['t3', [1, 1], [1, 1]],
    ['t4', [0, 0], [1, 0]],
    ['t5', [1, 1], [0, 0]],
  ];
  const sessions = (side: 0 | 1): PairedSession[] =>
    outcomes.flatMap(([t, a, b]) =>
      (side === 0 ? a : b).map((c, i) => ({ taskKey: t, taskLabel: t, values: { accuracy: c, time: side === 0 ? 10 + i : 12 + 2 * i } })),
    );
  const p = pairedComparison(sessions(0), sessions(1), { seed: 1, resamples: 2000 });

  it('accuracy: means, difference, clustered and naive standard errors, sign test, t test', () => {
    const acc = p.metrics.find((m) => m.metric === 'accuracy')!;
    expect(acc.tasks).toBe(5);
    expect([acc.sessionsA, acc.sessionsB]).toEqual([10, 10]);
    expect(acc.meanA).toBeCloseTo(0.7, 12);
    expect(acc.meanB).toBeCloseTo(0.4, 12);
    expect(acc.diff).toBeCloseTo(0.3, 12); // d = .5, .5, 0, −.5, 1
    expect(acc.se).toBeCloseTo(Math.sqrt(0.065), 12); // Σ(d − d̄)² = 1.30; /4/5
    expect(acc.seNaive).toBeCloseTo(Math.sqrt(0.05), 12); // (2.1/9)/10 + (2.4/9)/10
    expect(acc.test).toEqual({ name: 'exact sign test', aBetter: 3, bBetter: 1, ties: 1, pValue: 0.625 });
    expect(acc.tTest.t).toBeCloseTo(1.176696810829104, 12);
    expect(acc.tTest.pValue).toBeCloseTo(0.3045587846805348, 9);
    // SciPy's BCa interval of the same five differences gives the same: [−0.2, 0.7].
    expect(acc.ci.low).toBeCloseTo(-0.2, 12);
    expect(acc.ci.high).toBeCloseTo(0.7, 12);
  });

  it('time: A is 2.5 s faster on every task, an interval of one point', () => {
    const time = p.metrics.find((m) => m.metric === 'time')!;
    expect(time.diff).toBe(-2.5);
    expect(time.ci).toEqual({ low: -2.5, high: -2.5 });
    expect(time.test).toMatchObject({ name: 'Wilcoxon signed-rank', n: 5, wPlus: 0, pValue: 2 / 32 });
  });

  it('pass@k and pass^k from the repeats', () => {
    expect(p.repeated).toBe(true);
    expect(p.passK.a.map((x) => [x.k, x.tasks, +x.passAtK.toFixed(12), +x.passHatK.toFixed(12)])).toEqual([
      [1, 5, 0.7, 0.7],
      [2, 5, 0.8, 0.6],
    ]);
    expect(p.passK.b.map((x) => [x.k, +x.passAtK.toFixed(12), +x.passHatK.toFixed(12)])).toEqual([
      [1, 0.4, 0.4],
      [2, 0.6, 0.2],
    ]);
  });

  it('per-task means, and tasks on one side only are counted, not paired', () => {
    expect(p.pairs[3]).toEqual({
      taskKey: 't4',
      taskLabel: 't4',
      sessionsA: 2,
      sessionsB: 2,
      a: { accuracy: 0, time: 10.5 },
      b: { accuracy: 0.5, time: 13 },
    });
    const extra = pairedComparison([...sessions(0), { taskKey: 't9', taskLabel: 't9', values: { accuracy: 1 } }], sessions(1));
    expect(extra.tasks).toEqual({ paired: 5, onlyA: 1, onlyB: 0 });
    expect(extra.metrics.find((m) => m.metric === 'accuracy')!.diff).toBeCloseTo(0.3, 12);
  });

  it('one session per task with yes/no outcomes is exact McNemar; the same seed gives the same interval', () => {
    const once = (side: 0 | 1): PairedSession[] =>
      outcomes.map(([t, a, b]) => ({ taskKey: t, taskLabel: t, values: { accuracy: (side === 0 ? a : b)[0]! } }));
    const q = pairedComparison(once(0), once(1), { seed: 5 });
    expect(q.metrics[0]!.test).toEqual({ name: 'exact McNemar', aBetter: 2, bBetter: 1, ties: 2, pValue: 1 });
    expect(pairedComparison(once(0), once(1), { seed: 5 }).metrics[0]!.ci).toEqual(q.metrics[0]!.ci);
    // An unknown value (a cost no call recorded) leaves the task out of that metric only.
    const withCost = (side: 0 | 1): PairedSession[] =>
      once(side).map((s, i) => ({ ...s, values: { ...s.values, cost: i === 0 && side === 1 ? null : 0.01 * (i + 1) } }));
    const c = pairedComparison(withCost(0), withCost(1));
    expect(c.metrics.map((m) => [m.metric, m.tasks])).toEqual([
      ['accuracy', 5],
      ['cost', 4],
    ]);
  });
});
