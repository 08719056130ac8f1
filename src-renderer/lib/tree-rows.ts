// The run tree as the rows the list virtualises (jaeger-ui's generateRowStates idea) and which
// runs a filter keeps.
import type { RunId } from '../../src-shared/events.ts';
import { type RunNode, type TrajectoryState } from '../../src-shared/trajectory/index.ts';
import type { RunDerivations } from './run-derivations.ts';
import { runLabel } from './run-labels.ts';

export type TreeRow =
  | { kind: 'run'; key: string; runId: RunId; level: number; hasChildren: boolean; expanded: boolean; parentKey: string | null }
  | {
      kind: 'batch';
      key: string;
      runId: RunId;
      batchId: string;
      size: number;
      level: number;
      expanded: boolean;
      parentKey: string | null;
      failed: number;
    };

/**
 * Flattens the run tree into visible rows. Children spawned by one batched call are grouped
 * under a batch row. `visible`, when given, keeps only those runs (search) — callers pass
 * matches plus their ancestors. Iterative: a 10,000-deep chain does not overflow the stack.
 */
export function treeRows(derived: RunDerivations, collapsed: ReadonlySet<string>, visible: ReadonlySet<RunId> | null = null): TreeRow[] {
  const state = derived.state;
  const rows: TreeRow[] = [];
  type Item =
    | { kind: 'run'; id: RunId; level: number; parentKey: string | null }
    | { kind: 'batch'; parent: RunId; batchId: string; ids: RunId[]; level: number; parentKey: string | null };
  const stack: Item[] = [];
  const pushChildren = (run: RunNode, level: number, parentKey: string): void => {
    // Group consecutive-or-not children by batch, keeping first-seen order.
    const groups: ({ batchId: string; ids: RunId[] } | RunId)[] = [];
    const byBatch = new Map<string, { batchId: string; ids: RunId[] }>();
    for (const cid of run.children) {
      if (visible && !visible.has(cid)) continue;
      const child = state.runs.get(cid);
      const b = child ? derived.batchOf(child) : null;
      if (!b) {
        groups.push(cid);
        continue;
      }
      let g = byBatch.get(b);
      if (!g) {
        g = { batchId: b, ids: [] };
        byBatch.set(b, g);
        groups.push(g);
      }
      g.ids.push(cid);
    }
    for (let i = groups.length - 1; i >= 0; i--) {
      const g = groups[i] as { batchId: string; ids: RunId[] } | RunId;
      if (typeof g === 'string') stack.push({ kind: 'run', id: g, level, parentKey });
      else if (g.ids.length === 1) stack.push({ kind: 'run', id: g.ids[0] as RunId, level, parentKey });
      else stack.push({ kind: 'batch', parent: run.id, batchId: g.batchId, ids: g.ids, level, parentKey });
    }
  };
  const roots = state.roots.filter((r) => !visible || visible.has(r));
  // Orphans (parent never seen) show as roots so nothing read is hidden.
  for (const run of state.runs.values())
    if (run.parentRunId !== null && !state.runs.has(run.parentRunId) && (!visible || visible.has(run.id))) roots.push(run.id);
  for (let i = roots.length - 1; i >= 0; i--) stack.push({ kind: 'run', id: roots[i] as RunId, level: 0, parentKey: null });
  while (stack.length > 0) {
    const item = stack.pop() as Item;
    if (item.kind === 'run') {
      const run = state.runs.get(item.id);
      if (!run) continue;
      const key = `run:${run.id}`;
      const hasChildren = run.children.some((c) => !visible || visible.has(c));
      const expanded = hasChildren && !collapsed.has(key);
      rows.push({ kind: 'run', key, runId: run.id, level: item.level, hasChildren, expanded, parentKey: item.parentKey });
      if (expanded) pushChildren(run, item.level + 1, key);
    } else {
      const key = `batch:${item.parent}:${item.batchId}`;
      const expanded = !collapsed.has(key);
      let failed = 0;
      for (const id of item.ids) {
        const r = state.runs.get(id);
        if (r?.end && r.end.stopReason !== 'answered') failed++;
      }
      rows.push({
        kind: 'batch',
        key,
        runId: item.parent,
        batchId: item.batchId,
        size: item.ids.length,
        level: item.level,
        expanded,
        parentKey: item.parentKey,
        failed,
      });
      if (expanded)
        for (let i = item.ids.length - 1; i >= 0; i--)
          stack.push({ kind: 'run', id: item.ids[i] as RunId, level: item.level + 1, parentKey: key });
    }
  }
  return rows;
}

/** Runs whose text fields contain `query` (case-insensitive), plus all their ancestors. */
export function runsMatching(state: TrajectoryState, query: string): Set<RunId> | null {
  const q = query.trim().toLowerCase();
  if (q === '') return null;
  const keep = new Set<RunId>();
  for (const run of state.runs.values()) {
    const hay =
      `${run.id} ${run.start?.model ?? ''} ${runLabel(state, run, 400)} ${run.end?.answer ?? ''} ${run.end?.stopReason ?? ''}`.toLowerCase();
    if (hay.includes(q)) {
      let cur: RunNode | undefined = run;
      while (cur && !keep.has(cur.id)) {
        keep.add(cur.id);
        cur = cur.parentRunId ? state.runs.get(cur.parentRunId) : undefined;
      }
    }
  }
  return keep;
}
