// A sweep's figures: per-configuration means over tasks, the cost–accuracy Pareto front and the
// per-axis effects, against values worked out by hand.
import { describe, expect, it } from 'vitest';
import {
  axisEffects,
  findConfig,
  paretoFront,
  summarizeSweep,
  sweepPairedSessions,
  type SweepConfigInput,
  type SweepSessionRow,
} from '../../../src-shared/analysis/sweep.ts';

const row = (taskId: string, correct: boolean, costUsd: number | null, extra: Partial<SweepSessionRow> = {}): SweepSessionRow => ({
  taskId,
  correct,
  costUsd,
  tokens: 100,
  durationMs: 1000,
  calls: 2,
  stopReason: 'answered',
  ...extra,
});

describe('paretoFront', () => {
  it('keeps the points nothing dominates, cheapest first', () => {
    const front = paretoFront([
      { id: 'cheap-bad', cost: 1, accuracy: 0.4 },
      { id: 'mid', cost: 2, accuracy: 0.7 },
      { id: 'dominated', cost: 3, accuracy: 0.6 },
      { id: 'best', cost: 5, accuracy: 0.9 },
      { id: 'costly-same', cost: 6, accuracy: 0.9 },
      { id: 'unknown', cost: null, accuracy: 1 },
      { id: 'none', cost: 0.1, accuracy: null },
    ]);
    expect(front).toEqual(['cheap-bad', 'mid', 'best']);
  });

  it('keeps equal points both, and a single point', () => {
    expect(
      paretoFront([
        { id: 'b', cost: 1, accuracy: 0.5 },
        { id: 'a', cost: 1, accuracy: 0.5 },
      ]),
    ).toEqual(['a', 'b']);
    expect(paretoFront([{ id: 'x', cost: 1, accuracy: 0 }])).toEqual(['x']);
    // Same cost, more accurate: the other is dominated.
    expect(
      paretoFront([
        { id: 'a', cost: 1, accuracy: 0.5 },
        { id: 'b', cost: 1, accuracy: 0.6 },
      ]),
    ).toEqual(['b']);
  });
});

function config(
  id: string,
  settings: Record<string, string | number>,
  sessions: SweepSessionRow[],
  planned: number | null = 4,
): SweepConfigInput {
  return { id, name: id, settings, dir: `/s/configs/${id}`, sessionsPlanned: planned, sessions };
}

describe('summarizeSweep', () => {
  const axes = [
    { name: 'model', values: ['a', 'b'] },
    { name: 'max-depth', values: [1, 2] },
  ];
  // Two tasks, t1 run twice (repeats) in c1: task means weigh each task the same.
  const c1 = config(
    'c1',
    { model: 'a', 'max-depth': 1 },
    [
      row('t1', true, 0.01, { tokens: 100, durationMs: 1000 }),
      row('t1', false, 0.03, { tokens: 300, durationMs: 3000 }),
      row('t2', true, 0.02, { tokens: 200, durationMs: 2000 }),
    ],
    4,
  );
  const c2 = config('c2', { model: 'a', 'max-depth': 2 }, [row('t1', true, 0.05), row('t2', true, 0.05)], 2);
  const c3 = config('c3', { model: 'b', 'max-depth': 1 }, [row('t1', false, 0.01), row('t2', false, null, { stopReason: 'error' })], 2);
  const c4 = config('c4', { model: 'b', 'max-depth': 2 }, [], null);
  const s = summarizeSweep(axes, [c1, c2, c3, c4]);

  it('gives each configuration its figures', () => {
    const [f1, f2, f3, f4] = s.configs;
    expect(f1).toMatchObject({ state: 'partial', sessions: 3, tasks: 2, correct: 2, unpriced: 0, tokens: 600, timeMs: 6000, calls: 6 });
    // t1: 0.5 correct, t2: 1 → 0.75; cost: t1 0.02, t2 0.02 → 0.02; tokens (200 + 200)/2; time (2000 + 2000)/2.
    expect(f1!.accuracy).toBeCloseTo(0.75, 12);
    expect(f1!.costPerTask).toBeCloseTo(0.02, 12);
    expect(f1!.costUsd).toBeCloseTo(0.06, 12);
    expect(f1!.tokensPerTask).toBe(200);
    expect(f1!.timePerTaskMs).toBe(2000);
    expect(f2).toMatchObject({ state: 'finished', accuracy: 1, costPerTask: 0.05 });
    // An unpriced session is left out of the cost, not counted as free.
    expect(f3).toMatchObject({ accuracy: 0, costPerTask: 0.01, costUsd: 0.01, unpriced: 1, errors: 1 });
    expect(f4).toMatchObject({ state: 'pending', sessions: 0, accuracy: null, costUsd: null, costPerTask: null, tokens: null });
  });

  it('marks the Pareto front', () => {
    // c3 (0.01, 0), c1 (0.02, 0.75), c2 (0.05, 1): none dominates another; c4 has no figures.
    expect(s.pareto).toEqual(['c3', 'c1', 'c2']);
    expect(s.configs.map((c) => c.pareto)).toEqual([true, true, true, false]);
  });

  it('gives each axis value the mean over its configurations', () => {
    const model = s.effects.find((e) => e.axis === 'model')!;
    expect(model.values[0]).toMatchObject({ value: 'a', configs: 2 });
    expect(model.values[0]!.accuracy).toBeCloseTo((0.75 + 1) / 2, 12);
    expect(model.values[0]!.costPerTask).toBeCloseTo((0.02 + 0.05) / 2, 12);
    // b: only c3 has results.
    expect(model.values[1]).toMatchObject({ value: 'b', configs: 1, accuracy: 0, costPerTask: 0.01 });
    expect(model.accuracyRange).toBeCloseTo(0.875, 12);
    const depth = s.effects.find((e) => e.axis === 'max-depth')!;
    expect(depth.values.map((v) => v.value)).toEqual([1, 2]);
    expect(depth.values[0]!.accuracy).toBeCloseTo((0.75 + 0) / 2, 12);
    expect(depth.values[1]!.accuracy).toBe(1);
  });

  it('marginalises over the other axes in a full grid', () => {
    const full = [
      config('p', { model: 'a', 'max-depth': 1 }, [row('t', true, 1)]),
      config('q', { model: 'a', 'max-depth': 2 }, [row('t', true, 3)]),
      config('r', { model: 'b', 'max-depth': 1 }, [row('t', false, 1)]),
      config('s', { model: 'b', 'max-depth': 2 }, [row('t', true, 5)]),
    ];
    const e = axisEffects(axes, summarizeSweep(axes, full).configs);
    expect(e[0]!.values.map((v) => [v.accuracy, v.costPerTask])).toEqual([
      [1, 2],
      [0.5, 3],
    ]);
    expect(e[1]!.values.map((v) => [v.accuracy, v.costPerTask])).toEqual([
      [0.5, 1],
      [1, 4],
    ]);
  });

  it('pairs sessions by task and finds configurations by id, name or position', () => {
    expect(sweepPairedSessions([row('t1', true, null)])).toEqual([
      { taskKey: 't1', taskLabel: 't1', values: { accuracy: 1, cost: null, tokens: 100, time: 1000, calls: 2 } },
    ]);
    const cs = [
      { id: 'c-1', name: 'model=a' },
      { id: 'c-2', name: 'model=b' },
    ];
    expect(findConfig(cs, 'c-2')?.id).toBe('c-2');
    expect(findConfig(cs, 'model=a')?.id).toBe('c-1');
    expect(findConfig(cs, '2')?.id).toBe('c-2');
    expect(findConfig(cs, '3')).toBeUndefined();
  });
});
