// The figures of a sweep (`rlm-studio sweep`, docs/sweeps.md): per configuration its accuracy,
// cost, tokens and time over tasks, the cost–accuracy Pareto front, and each axis's effect
// (the mean over the configurations that share a value, the other axes marginalised). Pure:
// the CLI's `sweep-summary --json` and the app's Sweep view both come from these functions.
import { mean } from './paired-stats.ts';
import type { PairedSession } from './paired-comparison.ts';

/** A grid value as the grid file gives it. */
export type AxisValue = string | number | boolean;

/** One session of a configuration, from its results.jsonl. */
export interface SweepSessionRow {
  taskId: string;
  correct: boolean;
  /** null: the endpoint reported no price (unknown, not free). */
  costUsd: number | null;
  /** Input + output tokens; null when the result recorded none per model (old results). */
  tokens: number | null;
  durationMs: number;
  calls: number;
  stopReason: string;
}

export interface SweepConfigInput {
  id: string;
  name: string;
  settings: Record<string, AxisValue>;
  /** The configuration's evaluation folder. */
  dir: string;
  /** Tasks × repeats the evaluation runs (null when it has not started). */
  sessionsPlanned: number | null;
  sessions: readonly SweepSessionRow[];
}

export interface SweepConfigFigures {
  id: string;
  name: string;
  settings: Record<string, AxisValue>;
  dir: string;
  /** `finished`: every planned session has a result; `partial`: some; `pending`: none. */
  state: 'finished' | 'partial' | 'pending';
  sessionsPlanned: number | null;
  sessions: number;
  tasks: number;
  errors: number;
  correct: number;
  /** Mean over tasks of each task's share of correct sessions (each task weighs the same); null before any result. */
  accuracy: number | null;
  /** Sum over sessions that recorded a price; null when none did. */
  costUsd: number | null;
  /** Mean over tasks of each task's mean priced cost; null when no session recorded a price. */
  costPerTask: number | null;
  /** Sessions without a price: left out of the cost figures. */
  unpriced: number;
  tokens: number | null;
  tokensPerTask: number | null;
  /** Sum of the sessions' wall times (ms). */
  timeMs: number;
  timePerTaskMs: number | null;
  calls: number;
  /** On the cost–accuracy Pareto front: no other configuration is at most as costly and at least as accurate, one of them strictly. */
  pareto: boolean;
}

interface AxisValueEffect {
  value: AxisValue;
  /** Configurations with this value that have results (accuracy) / a known cost (cost). */
  configs: number;
  accuracy: number | null;
  costPerTask: number | null;
  tokensPerTask: number | null;
  timePerTaskMs: number | null;
}

export interface AxisEffect {
  axis: string;
  values: AxisValueEffect[];
  /** Highest minus lowest mean accuracy across the values: how much this axis moves accuracy. */
  accuracyRange: number | null;
}

export interface SweepSummary {
  axes: { name: string; values: AxisValue[] }[];
  configs: SweepConfigFigures[];
  /** Ids of the Pareto front's configurations, cheapest first. */
  pareto: string[];
  effects: AxisEffect[];
}

/** Mean over tasks of the per-task mean of `pick` over the sessions that have it; null when none. */
function perTask(rows: readonly SweepSessionRow[], pick: (r: SweepSessionRow) => number | null): number | null {
  const byTask = new Map<string, number[]>();
  for (const r of rows) {
    const v = pick(r);
    if (v === null) continue;
    const xs = byTask.get(r.taskId);
    if (xs) xs.push(v);
    else byTask.set(r.taskId, [v]);
  }
  if (byTask.size === 0) return null;
  return mean([...byTask.values()].map(mean));
}

function sumKnown(rows: readonly SweepSessionRow[], pick: (r: SweepSessionRow) => number | null): number | null {
  let s = 0;
  let any = false;
  for (const r of rows) {
    const v = pick(r);
    if (v === null) continue;
    s += v;
    any = true;
  }
  return any ? s : null;
}

function figures(c: SweepConfigInput): Omit<SweepConfigFigures, 'pareto'> {
  const rows = c.sessions;
  const n = rows.length;
  return {
    id: c.id,
    name: c.name,
    settings: c.settings,
    dir: c.dir,
    state: n === 0 ? 'pending' : c.sessionsPlanned !== null && n >= c.sessionsPlanned ? 'finished' : 'partial',
    sessionsPlanned: c.sessionsPlanned,
    sessions: n,
    tasks: new Set(rows.map((r) => r.taskId)).size,
    errors: rows.filter((r) => r.stopReason === 'error').length,
    correct: rows.filter((r) => r.correct).length,
    accuracy: perTask(rows, (r) => (r.correct ? 1 : 0)),
    costUsd: sumKnown(rows, (r) => r.costUsd),
    costPerTask: perTask(rows, (r) => r.costUsd),
    unpriced: rows.filter((r) => r.costUsd === null).length,
    tokens: sumKnown(rows, (r) => r.tokens),
    tokensPerTask: perTask(rows, (r) => r.tokens),
    timeMs: rows.reduce((a, r) => a + r.durationMs, 0),
    timePerTaskMs: perTask(rows, (r) => r.durationMs),
    calls: rows.reduce((a, r) => a + r.calls, 0),
  };
}

/** A point that may be on the front: its cost and accuracy are both known. */
export interface FrontPoint {
  id: string;
  cost: number | null;
  accuracy: number | null;
}

/**
 * The cost–accuracy Pareto front: the points no other point dominates (cost ≤ and accuracy ≥,
 * one strictly). Points with an unknown cost or accuracy are never on it. Equal points are all
 * on it. Returned cheapest first (ties: more accurate first, then by id).
 */
export function paretoFront(points: readonly FrontPoint[]): string[] {
  const known = points.filter((p): p is { id: string; cost: number; accuracy: number } => p.cost !== null && p.accuracy !== null);
  const front = known.filter(
    (p) => !known.some((q) => q.cost <= p.cost && q.accuracy >= p.accuracy && (q.cost < p.cost || q.accuracy > p.accuracy)),
  );
  front.sort((x, y) => x.cost - y.cost || y.accuracy - x.accuracy || x.id.localeCompare(y.id));
  return front.map((p) => p.id);
}

const meanKnown = (xs: readonly (number | null)[]): { value: number | null; n: number } => {
  const k = xs.filter((x): x is number => x !== null);
  return { value: k.length === 0 ? null : mean(k), n: k.length };
};

/**
 * Each axis's effect: for each of its values, the mean figure over the configurations that have
 * that value (those with results). In a full grid every value meets every combination of the
 * other axes once, so this is the figure marginalised over them with equal weights.
 */
export function axisEffects(
  axes: readonly { name: string; values: readonly AxisValue[] }[],
  configs: readonly SweepConfigFigures[],
): AxisEffect[] {
  return axes.map((axis) => {
    const values = axis.values.map((value): AxisValueEffect => {
      const with_ = configs.filter((c) => c.settings[axis.name] === value);
      const acc = meanKnown(with_.map((c) => c.accuracy));
      return {
        value,
        configs: acc.n,
        accuracy: acc.value,
        costPerTask: meanKnown(with_.map((c) => c.costPerTask)).value,
        tokensPerTask: meanKnown(with_.map((c) => c.tokensPerTask)).value,
        timePerTaskMs: meanKnown(with_.map((c) => c.timePerTaskMs)).value,
      };
    });
    const accs = values.map((v) => v.accuracy).filter((x): x is number => x !== null);
    return { axis: axis.name, values, accuracyRange: accs.length < 2 ? null : Math.max(...accs) - Math.min(...accs) };
  });
}

export function summarizeSweep(
  axes: readonly { name: string; values: readonly AxisValue[] }[],
  configs: readonly SweepConfigInput[],
): SweepSummary {
  const figs = configs.map(figures);
  const pareto = paretoFront(figs.map((f) => ({ id: f.id, cost: f.costPerTask, accuracy: f.accuracy })));
  const onFront = new Set(pareto);
  const withFront = figs.map((f) => ({ ...f, pareto: onFront.has(f.id) }));
  return {
    axes: axes.map((a) => ({ name: a.name, values: [...a.values] })),
    configs: withFront,
    pareto,
    effects: axisEffects(axes, withFront),
  };
}

/** A configuration's sessions as the paired comparison takes them (the metrics `stats --compare` has from results). */
export function sweepPairedSessions(rows: readonly SweepSessionRow[]): PairedSession[] {
  return rows.map((r) => ({
    taskKey: r.taskId,
    taskLabel: r.taskId,
    values: { accuracy: r.correct ? 1 : 0, cost: r.costUsd, tokens: r.tokens, time: r.durationMs, calls: r.calls },
  }));
}

/** The configuration named by its id, its name, or its 1-based position in the grid. */
export function findConfig<C extends { id: string; name: string }>(configs: readonly C[], ref: string): C | undefined {
  const byId = configs.find((c) => c.id === ref || c.name === ref);
  if (byId) return byId;
  return /^\d+$/.test(ref) ? configs[Number(ref) - 1] : undefined;
}

/** A sweep as the app opens it (`sweep.open`): `summary` is what `sweep-summary DIR --json` prints; `sessions` each configuration's results for its paired comparisons. */
export interface SweepOverview {
  dir: string;
  name: string;
  dataset: string;
  summary: SweepSummary;
  sessions: Record<string, SweepSessionRow[]>;
  problems: string[];
}
