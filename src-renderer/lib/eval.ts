// Pure derivations for the Evaluation view: accuracy by kind and size, sorting, and the
// comparison of two evaluations (which tasks only one of them solved, repeats grouped by task).
import type { PairedSession } from '../../src-shared/analysis/paired-comparison.ts';
import { addByModel, type UsageByModel } from '../../src-shared/trajectory/by-model.ts';
import { pricedCosts } from '../../src-shared/cost-text.ts';
import type { EvalOverview, EvalTaskRow } from '../../src-shared/protocol.ts';
import { quartiles, type Quartiles } from '../../src-shared/trajectory/index.ts';

export interface AccuracyGroup {
  key: string;
  kind: string;
  sizeTokens: number | null;
  n: number;
  correct: number;
  meanScore: number;
}

function group(key: string, kind: string, sizeTokens: number | null, rows: EvalTaskRow[]): AccuracyGroup {
  return {
    key,
    kind,
    sizeTokens,
    n: rows.length,
    correct: rows.filter((r) => r.correct).length,
    meanScore: rows.reduce((a, r) => a + r.score, 0) / Math.max(1, rows.length),
  };
}

/** One group per kind, each followed by its sizes (ascending); the same grouping as summary.md. */
export function accuracyBy(rows: readonly EvalTaskRow[]): { kinds: AccuracyGroup[]; kindSizes: AccuracyGroup[] } {
  const kinds: AccuracyGroup[] = [];
  const kindSizes: AccuracyGroup[] = [];
  for (const kind of [...new Set(rows.map((r) => r.kind))].sort()) {
    const rs = rows.filter((r) => r.kind === kind);
    kinds.push(group(kind, kind, null, rs));
    for (const size of [...new Set(rs.map((r) => r.sizeTokens))].sort((a, b) => (a ?? 0) - (b ?? 0))) {
      kindSizes.push(
        group(
          `${kind}@${size ?? '-'}`,
          kind,
          size,
          rs.filter((r) => r.sizeTokens === size),
        ),
      );
    }
  }
  return { kinds, kindSizes };
}

export type SortKey = 'id' | 'score' | 'cost' | 'time';

export function sortRows(rows: readonly EvalTaskRow[], key: SortKey, desc: boolean): EvalTaskRow[] {
  const val = (r: EvalTaskRow): number | string =>
    key === 'id' ? r.id : key === 'score' ? r.score : key === 'cost' ? (r.costUsd ?? -1) : r.durationMs;
  const out = [...rows].sort((x, y) => {
    const a = val(x);
    const b = val(y);
    const c = typeof a === 'string' ? a.localeCompare(b as string) : a - (b as number);
    // Ties keep a stable, readable order: by id.
    return c !== 0 ? c : x.id.localeCompare(y.id);
  });
  return desc ? out.reverse() : out;
}

export interface EvalTotals {
  finished: number;
  correct: number;
  accuracy: number;
  /** Spent by the tasks that recorded a price. */
  totalCostUsd: number;
  /** Finished tasks without a price: their cost is unknown, not $0, and left out of `cost`. */
  unpriced: number;
  /** Per task, over the tasks that recorded a price. */
  cost: Quartiles;
  time: Quartiles;
  /** Usage per model over the tasks that recorded it. */
  byModel: UsageByModel;
  /** Requests retried by the client over all tasks. */
  retries: number;
}

export function evalTotals(e: EvalOverview): EvalTotals {
  const rows = e.tasks;
  return {
    finished: rows.length,
    correct: rows.filter((r) => r.correct).length,
    accuracy: rows.length === 0 ? Number.NaN : rows.reduce((a, r) => a + r.score, 0) / rows.length,
    totalCostUsd: rows.reduce((a, r) => a + (r.costUsd ?? 0), 0),
    unpriced: rows.filter((r) => r.costUsd === null).length,
    cost: quartiles(pricedCosts(rows)),
    time: quartiles(rows.map((r) => r.durationMs)),
    byModel: rows.reduce<UsageByModel>((acc, r) => (r.byModel ? addByModel(acc, r.byModel) : acc), {}),
    retries: rows.reduce((a, r) => a + (r.retries ?? 0), 0),
  };
}

/** How a task went on one side: its sessions (repeats) with a result, and how many were correct. */
interface SideOutcome {
  correct: number;
  sessions: number;
  /** The key of its first session (what opens its log). */
  first: string;
}

export interface ComparedTask {
  taskId: string;
  a: SideOutcome;
  b: SideOutcome;
}

export interface EvalComparison {
  /** Tasks solved by A and not by B, by task id; a repeated task is solved when at least half its sessions are correct. */
  onlyA: ComparedTask[];
  onlyB: ComparedTask[];
  both: number;
  neither: number;
  /** Tasks present in both evaluations. */
  common: number;
  /** Task ids in one evaluation only (not run, or not finished, in the other). */
  missingInA: string[];
  missingInB: string[];
  /** Some task has more than one session on a side (`eval --repeat`). */
  repeated: boolean;
}

/** Sessions grouped by their dataset task, so `--repeat` sessions count once as a task. */
function byTask(rows: readonly EvalTaskRow[]): Map<string, SideOutcome> {
  const out = new Map<string, SideOutcome>();
  for (const r of rows) {
    const o = out.get(r.taskId);
    if (o) {
      o.sessions++;
      if (r.correct) o.correct++;
    } else out.set(r.taskId, { correct: r.correct ? 1 : 0, sessions: 1, first: r.id });
  }
  return out;
}

const solved = (o: SideOutcome): boolean => o.correct * 2 >= o.sessions;

export function compareEvals(a: EvalOverview, b: EvalOverview): EvalComparison {
  const ra = byTask(a.tasks);
  const rb = byTask(b.tasks);
  const onlyA: ComparedTask[] = [];
  const onlyB: ComparedTask[] = [];
  let both = 0;
  let neither = 0;
  let common = 0;
  let repeated = false;
  for (const [taskId, x] of ra) {
    const y = rb.get(taskId);
    if (!y) continue;
    common++;
    if (x.sessions > 1 || y.sessions > 1) repeated = true;
    const t = { taskId, a: x, b: y };
    if (solved(x) && solved(y)) both++;
    else if (solved(x)) onlyA.push(t);
    else if (solved(y)) onlyB.push(t);
    else neither++;
  }
  const byId = (p: ComparedTask, q: ComparedTask): number => p.taskId.localeCompare(q.taskId);
  return {
    onlyA: onlyA.sort(byId),
    onlyB: onlyB.sort(byId),
    both,
    neither,
    common,
    missingInA: [...rb.keys()].filter((id) => !ra.has(id)).sort(),
    missingInB: [...ra.keys()].filter((id) => !rb.has(id)).sort(),
    repeated,
  };
}

/**
 * An evaluation's sessions for the paired comparison, from results.jsonl alone: correctness,
 * cost (null when unpriced), tokens (null in results written before usage per model), time and
 * model calls. Sub-calls need the logs: the policy metrics' rows give them (pairedSessionsFromFigures).
 */
export function pairedSessionsFromTaskRows(rows: readonly EvalTaskRow[]): PairedSession[] {
  return rows.map((r) => ({
    taskKey: r.taskId,
    taskLabel: r.taskId,
    values: {
      accuracy: r.correct ? 1 : 0,
      cost: r.costUsd,
      tokens: r.byModel ? Object.values(r.byModel).reduce((a, m) => a + m.inputTokens + m.outputTokens, 0) : null,
      time: r.durationMs,
      calls: r.calls,
    },
  }));
}
