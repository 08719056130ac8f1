// Policy metrics across many sessions (an evaluation's tasks, a folder of logs): every
// figure as quartiles and a histogram, the same split by correct vs incorrect sessions (the
// paper's Figure 10: sub-calls per correct and incorrect run), repeats of one task grouped
// with their spread, and the success-set intersection of two configurations (Figure 9).
import { histogram, quartiles, type Histogram, type Quartiles } from '../trajectory/distributions.ts';
import { SESSION_FIGURES, type SessionFigure, type SessionMetrics } from './policy-metrics.ts';

/** One session (one root run) of a set, with what is known of its task. */
export interface SessionRow {
  /** The log it was read from. */
  logFile: string;
  rootRunId: string;
  /** The evaluation's task id (shared by its repeats), else null. */
  taskId: string | null;
  /** Which of the task's sessions (from 0) under `eval --repeat`; null outside an evaluation. */
  repeat: number | null;
  /** What groups repeats: the task id, else the query and context size. */
  taskKey: string;
  /** A short human name for the task. */
  taskLabel: string;
  /** From an evaluation's results; null when unknown. */
  correct: boolean | null;
  score: number | null;
  metrics: SessionMetrics;
}

export interface FigureDistribution {
  /**
   * Null for a group without sessions (the correct side of a 0% evaluation, the incorrect
   * side of a solved one): a figure of no sessions has no median, and `quartiles` of nothing
   * gives NaN, which reached the page as null through JSON under a number type.
   */
  quartiles: Quartiles | null;
  histogram: Histogram;
}

type Distributions = Record<SessionFigure, FigureDistribution>;

interface RepeatGroup {
  taskKey: string;
  taskLabel: string;
  sessions: number;
  /** Sessions known correct; null when correctness is unknown for all of them. */
  correct: number | null;
  /** Population variance and standard deviation of each figure over the group's sessions (those with a known value). */
  spread: Record<SessionFigure, { mean: number; variance: number; stddev: number; min: number; max: number }>;
  logFiles: string[];
}

export interface PolicyAggregate {
  sessions: number;
  distributions: Distributions;
  /** Present when at least one session's correctness is known. */
  byCorrectness: { correct: number; incorrect: number; unknown: number; correctDist: Distributions; incorrectDist: Distributions } | null;
  /** Tasks with more than one session, in task order. */
  repeats: RepeatGroup[];
}

/** Integer figures get one bin per value when their range is small, so counts read exactly. */
function binsFor(values: readonly number[], maxBins: number): { bins: number; range?: { min: number; max: number } } {
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  let integers = true;
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
    if (!Number.isInteger(v)) integers = false;
  }
  if (integers && values.length > 0 && max - min + 1 <= maxBins) return { bins: max - min + 1, range: { min, max: max + 1 } };
  return { bins: maxBins };
}

/** A figure's known values: a session whose cost is unknown has none for the cost figures. */
function knownValues(rows: readonly SessionRow[], f: SessionFigure): number[] {
  const out: number[] = [];
  for (const r of rows) {
    const v = r.metrics.figures[f];
    if (v !== null) out.push(v);
  }
  return out;
}

/** Distributions of every figure; `range` values fix the bins (to compare two groups side by side). */
function figureDistributions(rows: readonly SessionRow[], maxBins = 20, over?: readonly SessionRow[]): Distributions {
  const out = {} as Distributions;
  for (const f of SESSION_FIGURES) {
    const values = knownValues(rows, f);
    const binning = binsFor(knownValues(over ?? rows, f), maxBins);
    let range = binning.range;
    if (!range && over) {
      const all = knownValues(over, f);
      range = { min: Math.min(...all), max: Math.max(...all) };
    }
    out[f] = { quartiles: values.length > 0 ? quartiles(values) : null, histogram: histogram(values, binning.bins, range) };
  }
  return out;
}

/** Over the known values (none: NaN throughout, as `quartiles` of nothing). */
function spreadOf(values: readonly number[]): RepeatGroup['spread'][SessionFigure] {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  const variance = values.reduce((a, v) => a + (v - mean) * (v - mean), 0) / n;
  return { mean, variance, stddev: Math.sqrt(variance), min: Math.min(...values), max: Math.max(...values) };
}

/** Sessions grouped by task, in first-seen order. */
function groupByTask<R extends { taskKey: string }>(rows: readonly R[]): Map<string, R[]> {
  const groups = new Map<string, R[]>();
  for (const r of rows) {
    const g = groups.get(r.taskKey);
    if (g) g.push(r);
    else groups.set(r.taskKey, [r]);
  }
  return groups;
}

function repeatGroups(rows: readonly SessionRow[]): RepeatGroup[] {
  const out: RepeatGroup[] = [];
  for (const [taskKey, g] of groupByTask(rows)) {
    if (g.length < 2) continue;
    const spread = {} as RepeatGroup['spread'];
    for (const f of SESSION_FIGURES) spread[f] = spreadOf(knownValues(g, f));
    const known = g.filter((r) => r.correct !== null);
    out.push({
      taskKey,
      taskLabel: (g[0] as SessionRow).taskLabel,
      sessions: g.length,
      correct: known.length === 0 ? null : known.filter((r) => r.correct === true).length,
      spread,
      logFiles: g.map((r) => r.logFile),
    });
  }
  return out;
}

export function aggregatePolicy(rows: readonly SessionRow[], maxBins = 20): PolicyAggregate {
  const correct = rows.filter((r) => r.correct === true);
  const incorrect = rows.filter((r) => r.correct === false);
  const known = correct.length + incorrect.length;
  return {
    sessions: rows.length,
    distributions: figureDistributions(rows, maxBins),
    byCorrectness:
      known === 0
        ? null
        : {
            correct: correct.length,
            incorrect: incorrect.length,
            unknown: rows.length - known,
            // Both sides binned over the known sessions, so their histograms line up.
            correctDist: figureDistributions(correct, maxBins, [...correct, ...incorrect]),
            incorrectDist: figureDistributions(incorrect, maxBins, [...correct, ...incorrect]),
          },
    repeats: repeatGroups(rows),
  };
}

// ---------------------------------------------------------------------------------------
// Success sets of two configurations

export interface TaskRef {
  taskKey: string;
  taskLabel: string;
  /** The logs of the task's sessions in A and in B (either may be empty). */
  logsA: string[];
  logsB: string[];
  /** Of the task's sessions on each side, how many have a known result and how many of those were correct (the spread of repeats). */
  outcomeA: Outcome;
  outcomeB: Outcome;
}

interface Outcome {
  correct: number;
  known: number;
}

/** What the success sets read of a session (its figures are not needed). */
type TaskOutcome = Pick<SessionRow, 'taskKey' | 'taskLabel' | 'logFile' | 'correct'>;

export interface SuccessIntersection {
  /** Tasks present in both, by who solved them. */
  both: TaskRef[];
  onlyA: TaskRef[];
  onlyB: TaskRef[];
  neither: TaskRef[];
  /** Tasks only one side ran, or whose correctness is unknown on a side: not compared. */
  notCompared: TaskRef[];
}

function outcome(rows: readonly TaskOutcome[]): Outcome {
  const known = rows.filter((r) => r.correct !== null);
  return { correct: known.filter((r) => r.correct === true).length, known: known.length };
}

/**
 * A task counts as solved by a configuration when at least half of its sessions there were
 * correct (one session: that session's result), so repeats do not let one lucky run count.
 */
function solvedBy(o: Outcome): boolean | null {
  return o.known === 0 ? null : o.correct * 2 >= o.known;
}

export function successIntersection(a: readonly TaskOutcome[], b: readonly TaskOutcome[]): SuccessIntersection {
  const ga = groupByTask(a);
  const gb = groupByTask(b);
  const out: SuccessIntersection = { both: [], onlyA: [], onlyB: [], neither: [], notCompared: [] };
  const keys = [...ga.keys(), ...[...gb.keys()].filter((k) => !ga.has(k))];
  for (const key of keys) {
    const ra = ga.get(key) ?? [];
    const rb = gb.get(key) ?? [];
    const first = (ra[0] ?? rb[0]) as TaskOutcome;
    const ref: TaskRef = {
      taskKey: key,
      taskLabel: first.taskLabel,
      logsA: ra.map((r) => r.logFile),
      logsB: rb.map((r) => r.logFile),
      outcomeA: outcome(ra),
      outcomeB: outcome(rb),
    };
    const sa = solvedBy(ref.outcomeA);
    const sb = solvedBy(ref.outcomeB);
    if (sa === null || sb === null) out.notCompared.push(ref);
    else if (sa && sb) out.both.push(ref);
    else if (sa) out.onlyA.push(ref);
    else if (sb) out.onlyB.push(ref);
    else out.neither.push(ref);
  }
  return out;
}
