// Distributions across many sessions: percentiles, quartiles, histograms.
import { LOG_STATS_NUMBERS, type LogStats, type LogStatsNumber } from './log-stats.ts';

/** Linear-interpolated percentile (p in 0..100) of unsorted values; NaN for none. */
export function percentile(values: readonly number[], p: number): number {
  return percentileOfSorted(Float64Array.from(values).sort(), p);
}

function percentileOfSorted(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (Math.min(100, Math.max(0, p)) / 100) * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo] as number;
  const b = sorted[hi] as number;
  return a + (b - a) * (pos - lo);
}

export interface Quartiles {
  p25: number;
  p50: number;
  p75: number;
  p95: number;
  min: number;
  max: number;
  mean: number;
  n: number;
}

export function quartiles(values: readonly number[]): Quartiles {
  const n = values.length;
  let sum = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const v of values) {
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  // One numeric sort for the four percentiles (the policy view takes ~100 figures × 1,000 sessions).
  const sorted = Float64Array.from(values).sort();
  return {
    p25: percentileOfSorted(sorted, 25),
    p50: percentileOfSorted(sorted, 50),
    p75: percentileOfSorted(sorted, 75),
    p95: percentileOfSorted(sorted, 95),
    min: n ? min : Number.NaN,
    max: n ? max : Number.NaN,
    mean: n ? sum / n : Number.NaN,
    n,
  };
}

export interface Histogram {
  /** bins + 1 edges, ascending; bin i is [edges[i], edges[i+1]) and the last bin is closed. */
  edges: number[];
  counts: number[];
}

export function histogram(values: readonly number[], bins = 20, range?: { min: number; max: number }): Histogram {
  const count = Math.max(1, Math.floor(bins));
  let min = range?.min ?? Number.POSITIVE_INFINITY;
  let max = range?.max ?? Number.NEGATIVE_INFINITY;
  if (!range)
    for (const v of values) {
      if (v < min) min = v;
      if (v > max) max = v;
    }
  if (!Number.isFinite(min) || !Number.isFinite(max)) return { edges: [], counts: [] };
  if (max === min) max = min + 1;
  const width = (max - min) / count;
  const edges = Array.from({ length: count + 1 }, (_, i) => min + i * width);
  const counts: number[] = new Array<number>(count).fill(0);
  for (const v of values) {
    if (v < min || v > max) continue;
    const i = Math.min(count - 1, Math.floor((v - min) / width));
    counts[i] = (counts[i] as number) + 1;
  }
  return { edges, counts };
}

/** Quartiles of every stats key across many sessions (e.g. the paper's cost/runtime plots); an unknown cost is left out. */
export function distributions(sessions: readonly LogStats[]): Record<LogStatsNumber, Quartiles> {
  const out = {} as Record<LogStatsNumber, Quartiles>;
  for (const k of LOG_STATS_NUMBERS) out[k] = quartiles(sessions.flatMap((s) => (s[k] === null ? [] : [s[k]])));
  return out;
}
