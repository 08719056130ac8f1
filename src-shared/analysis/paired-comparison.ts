// Paired comparison of two configurations run on the same tasks (`stats A --compare B`, the
// app's comparison of two evaluations): per metric, the difference of the per-task means with
// a BCa bootstrap interval over tasks, a paired test, the cluster-robust standard error (a
// task's repeats are one cluster) beside the one that treats sessions as independent, and
// pass@k / pass^k from repeats. The formulas: docs/statistics.md.
import {
  bootstrapMeanInterval,
  mean,
  pairedT,
  passAtK,
  passHatK,
  sampleVariance,
  signedRankTest,
  signTest,
  type Interval,
  type PairedT,
  type SignedRankTest,
  type SignTest,
} from './paired-stats.ts';

const PAIRED_METRICS = ['accuracy', 'cost', 'tokens', 'time', 'subcalls', 'calls'] as const;
type PairedMetric = (typeof PAIRED_METRICS)[number];

const PAIRED_METRIC_LABELS: Record<PairedMetric, string> = {
  accuracy: 'accuracy',
  cost: 'cost (USD)',
  tokens: 'tokens',
  time: 'time (ms)',
  subcalls: 'sub-calls',
  calls: 'model calls',
};

/** One session's values; a metric absent or null is unknown for it (a cost no call recorded, a task without a result). */
export interface PairedSession {
  taskKey: string;
  taskLabel: string;
  values: Partial<Record<PairedMetric, number | null>>;
}

export interface PairedOptions {
  /** Seeds the bootstrap's generator: the same seed, the same interval. Default 1. */
  seed?: number;
  /** Bootstrap resamples. Default 2000. */
  resamples?: number;
  /** Coverage of the interval. Default 0.95. */
  confidence?: number;
}

export interface MetricComparison {
  metric: PairedMetric;
  label: string;
  /** Tasks with a value on both sides: what the difference is over. */
  tasks: number;
  /** Sessions with a value over those tasks. */
  sessionsA: number;
  sessionsB: number;
  /** The mean over tasks of each task's mean over its sessions. */
  meanA: number;
  meanB: number;
  /** meanA − meanB: the mean of the per-task differences. */
  diff: number;
  /** The bootstrap interval of `diff` (tasks resampled). */
  ci: Interval;
  /** Cluster-robust standard error of `diff` (tasks are the clusters): sd of the per-task differences / √tasks. */
  se: number;
  /** The standard error if every session were an independent draw (unpaired, repeats as extra tasks): what clustering corrects. */
  seNaive: number;
  /** Paired t test on `se` (df = tasks − 1). */
  tTest: PairedT;
  /** For accuracy the exact sign test on the per-task differences (exact McNemar when each task ran once); else Wilcoxon's signed-rank test. */
  test: SignTest | SignedRankTest;
}

export interface PassK {
  k: number;
  /** Tasks with at least k sessions (the estimate is over them). */
  tasks: number;
  /** Mean over tasks of the unbiased pass@k: the chance that some of k sessions is correct. */
  passAtK: number;
  /** Mean over tasks of the unbiased pass^k: the chance that all k sessions are correct. */
  passHatK: number;
}

interface PairRow {
  taskKey: string;
  taskLabel: string;
  sessionsA: number;
  sessionsB: number;
  /** Per-task means (null: no session of the task has the value). */
  a: Partial<Record<PairedMetric, number | null>>;
  b: Partial<Record<PairedMetric, number | null>>;
}

export interface PairedComparison {
  confidence: number;
  resamples: number;
  seed: number;
  tasks: { paired: number; onlyA: number; onlyB: number };
  /** Some task has more than one session on a side. */
  repeated: boolean;
  /** The metrics both sides have values for, in PAIRED_METRICS order. */
  metrics: MetricComparison[];
  /** From each side's correctness, k = 1 … the most sessions of a task. */
  passK: { a: PassK[]; b: PassK[] };
  pairs: PairRow[];
}

interface TaskGroup {
  label: string;
  sessions: PairedSession[];
}

function groupTasks(sessions: readonly PairedSession[]): Map<string, TaskGroup> {
  const out = new Map<string, TaskGroup>();
  for (const s of sessions) {
    const g = out.get(s.taskKey);
    if (g) g.sessions.push(s);
    else out.set(s.taskKey, { label: s.taskLabel, sessions: [s] });
  }
  return out;
}

function valuesOf(g: TaskGroup, m: PairedMetric): number[] {
  const out: number[] = [];
  for (const s of g.sessions) {
    const v = s.values[m];
    if (v !== undefined && v !== null) out.push(v);
  }
  return out;
}

function taskMeans(g: TaskGroup): Partial<Record<PairedMetric, number | null>> {
  const out: Partial<Record<PairedMetric, number | null>> = {};
  for (const m of PAIRED_METRICS) {
    if (!g.sessions.some((s) => m in s.values)) continue;
    const v = valuesOf(g, m);
    out[m] = v.length === 0 ? null : mean(v);
  }
  return out;
}

function compareMetric(m: PairedMetric, paired: readonly [TaskGroup, TaskGroup][], opts: Required<PairedOptions>): MetricComparison | null {
  const diffs: number[] = [];
  const meansA: number[] = [];
  const meansB: number[] = [];
  const allA: number[] = [];
  const allB: number[] = [];
  let once = true;
  for (const [ga, gb] of paired) {
    const va = valuesOf(ga, m);
    const vb = valuesOf(gb, m);
    if (va.length === 0 || vb.length === 0) continue;
    if (va.length > 1 || vb.length > 1) once = false;
    const ma = mean(va);
    const mb = mean(vb);
    meansA.push(ma);
    meansB.push(mb);
    diffs.push(ma - mb);
    allA.push(...va);
    allB.push(...vb);
  }
  const n = diffs.length;
  if (n === 0) return null;
  const diff = mean(diffs);
  const se = Math.sqrt(sampleVariance(diffs) / n);
  const seNaive = Math.sqrt(sampleVariance(allA) / allA.length + sampleVariance(allB) / allB.length);
  const binary = m === 'accuracy';
  return {
    metric: m,
    label: PAIRED_METRIC_LABELS[m],
    tasks: n,
    sessionsA: allA.length,
    sessionsB: allB.length,
    meanA: mean(meansA),
    meanB: mean(meansB),
    diff,
    ci: bootstrapMeanInterval(diffs, opts.confidence, opts.resamples, opts.seed),
    se,
    seNaive,
    tTest: pairedT(diff, se, n),
    test: binary ? signTest(diffs, once) : signedRankTest(diffs),
  };
}

function passK(groups: Iterable<TaskGroup>): PassK[] {
  const outcomes: { n: number; c: number }[] = [];
  for (const g of groups) {
    const v = valuesOf(g, 'accuracy');
    if (v.length > 0) outcomes.push({ n: v.length, c: v.filter((x) => x > 0.5).length });
  }
  const kMax = outcomes.reduce((a, o) => Math.max(a, o.n), 0);
  const out: PassK[] = [];
  for (let k = 1; k <= kMax; k++) {
    const over = outcomes.filter((o) => o.n >= k);
    out.push({
      k,
      tasks: over.length,
      passAtK: mean(over.map((o) => passAtK(o.n, o.c, k))),
      passHatK: mean(over.map((o) => passHatK(o.n, o.c, k))),
    });
  }
  return out;
}

export function pairedComparison(a: readonly PairedSession[], b: readonly PairedSession[], options: PairedOptions = {}): PairedComparison {
  const opts: Required<PairedOptions> = { seed: 1, resamples: 2000, confidence: 0.95, ...options };
  const ga = groupTasks(a);
  const gb = groupTasks(b);
  const paired: [TaskGroup, TaskGroup][] = [];
  const pairs: PairRow[] = [];
  let repeated = false;
  for (const [key, x] of ga) {
    const y = gb.get(key);
    if (!y) continue;
    paired.push([x, y]);
    if (x.sessions.length > 1 || y.sessions.length > 1) repeated = true;
    pairs.push({
      taskKey: key,
      taskLabel: x.label,
      sessionsA: x.sessions.length,
      sessionsB: y.sessions.length,
      a: taskMeans(x),
      b: taskMeans(y),
    });
  }
  const metrics: MetricComparison[] = [];
  for (const m of PAIRED_METRICS) {
    const r = compareMetric(m, paired, opts);
    if (r) metrics.push(r);
  }
  return {
    confidence: opts.confidence,
    resamples: opts.resamples,
    seed: opts.seed,
    tasks: { paired: paired.length, onlyA: ga.size - paired.length, onlyB: [...gb.keys()].filter((k) => !ga.has(k)).length },
    repeated,
    metrics,
    passK: { a: passK(ga.values()), b: passK(gb.values()) },
    pairs,
  };
}

/** What a session of `stats` or of the app's policy metrics gives a comparison: its task, result and whole-tree figures. */
export interface FigureSession {
  taskKey: string;
  taskLabel: string;
  correct: boolean | null;
  figures: { costUsd: number | null; inputTokens: number; outputTokens: number; wallMs: number; subcalls: number };
}

export function pairedSessionsFromFigures(rows: readonly FigureSession[]): PairedSession[] {
  return rows.map((r) => ({
    taskKey: r.taskKey,
    taskLabel: r.taskLabel,
    values: {
      accuracy: r.correct === null ? null : r.correct ? 1 : 0,
      cost: r.figures.costUsd,
      tokens: r.figures.inputTokens + r.figures.outputTokens,
      time: r.figures.wallMs,
      subcalls: r.figures.subcalls,
    },
  }));
}
