// Pure derivations for the Evaluation view: accuracy by kind and size, sorting, and the
// comparison of two evaluations (which task ids only one of them solved).
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

export interface EvalComparison {
  /** Task ids solved (fully correct) by A and not by B, sorted. */
  onlyA: string[];
  onlyB: string[];
  both: number;
  neither: number;
  /** Task ids present in both evaluations. */
  common: number;
  /** Ids in one evaluation only (not run, or not finished, in the other). */
  missingInA: string[];
  missingInB: string[];
}

export function compareEvals(a: EvalOverview, b: EvalOverview): EvalComparison {
  const ra = new Map(a.tasks.map((t) => [t.id, t]));
  const rb = new Map(b.tasks.map((t) => [t.id, t]));
  const onlyA: string[] = [];
  const onlyB: string[] = [];
  let both = 0;
  let neither = 0;
  let common = 0;
  for (const [id, x] of ra) {
    const y = rb.get(id);
    if (!y) continue;
    common++;
    if (x.correct && y.correct) both++;
    else if (x.correct) onlyA.push(id);
    else if (y.correct) onlyB.push(id);
    else neither++;
  }
  return {
    onlyA: onlyA.sort(),
    onlyB: onlyB.sort(),
    both,
    neither,
    common,
    missingInA: [...rb.keys()].filter((id) => !ra.has(id)).sort(),
    missingInB: [...ra.keys()].filter((id) => !rb.has(id)).sort(),
  };
}
