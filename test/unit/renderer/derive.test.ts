import { describe, expect, it } from 'vitest';
import { applyEvent, blocksOf, createTrajectoryState, reduceEvents } from '../../../src-shared/trajectory/index.ts';
import { firstDifferingLine, firstDivergence } from '../../../src-renderer/lib/divergence.ts';
import { fmtMs } from '../../../src-renderer/lib/format.ts';
import { RunDerivations } from '../../../src-renderer/lib/run-derivations.ts';
import { runsMatching, treeRows } from '../../../src-renderer/lib/tree-rows.ts';
import { matchSummary, searchSession } from '../../../src-renderer/lib/session-search.ts';
import { truncationOf } from '../../../src-renderer/lib/block-output.ts';
import type { TrajectoryState } from '../../../src-shared/trajectory/index.ts';
import { fixtureEvents } from './helpers.ts';

/** Metrics of a trajectory from scratch (fresh derivations). */
const runMetrics = (s: TrajectoryState) => new RunDerivations(s).runMetrics();

describe('derive', () => {
  const state = reduceEvents(fixtureEvents('c_recursive.jsonl'));

  it('flattens the recursion tree into rows, grouping batched children', () => {
    const rows = treeRows(new RunDerivations(state), new Set());
    const runRows = rows.filter((r) => r.kind === 'run');
    expect(runRows).toHaveLength(4);
    expect(rows[0]).toMatchObject({ kind: 'run', level: 0, hasChildren: true, expanded: true });
    const collapsed = treeRows(new RunDerivations(state), new Set([rows[0]!.key]));
    expect(collapsed).toHaveLength(1);
  });

  it('labels sibling runs by what tells them apart: the head their prompts share is left out of the row, kept in the title', () => {
    const d = new RunDerivations(state);
    const root = state.runs.get(state.roots[0]!)!;
    const children = root.children.map((id) => d.labelOf(state.runs.get(id)!));
    expect(children.map((l) => l.short.slice(0, 16))).toEqual(['…billing === bil', '…search === sear', '…auth === auth-0']);
    for (const l of children) {
      expect(l.long).toMatch(/^Count the ERROR lines in this service log section/);
      expect(l.short.length).toBeLessThanOrEqual(81);
    }
    // A run without siblings keeps its whole label.
    expect(d.labelOf(root).short).toBe('Which service section of the log has the most ERROR lines, and how many?');
  });

  it('re-labels earlier siblings when a later one arrives', () => {
    const events = fixtureEvents('c_recursive.jsonl');
    const live = createTrajectoryState();
    const d = new RunDerivations(live);
    let first: string | null = null;
    let firstWithSiblings: string | null = null;
    for (const e of events) {
      applyEvent(live, e);
      const root = live.roots[0] ? live.runs.get(live.roots[0]) : undefined;
      const child = root?.children[0] ? live.runs.get(root.children[0]) : undefined;
      if (!child || !root) continue;
      if (root.children.length === 1) first ??= d.labelOf(child).short;
      else firstWithSiblings = d.labelOf(child).short;
    }
    expect(first).toMatch(/^Count the ERROR lines/);
    expect(firstWithSiblings).toMatch(/^…billing ===/);
  });

  it('formats durations: two significant figures below 10 ms, so that sub-millisecond ticks differ', () => {
    expect([0, 0.04, 0.25, 2.71, 9.99, 505.4, 1010, 90_000].map(fmtMs)).toEqual([
      '0 ms',
      '0.04 ms',
      '0.25 ms',
      '2.7 ms',
      '10 ms',
      '505 ms',
      '1.01 s',
      '1.5 min',
    ]);
  });

  it('filters runs by text and keeps ancestors', () => {
    const child = [...state.runs.values()].find((r) => r.depth === 1)!;
    const keep = runsMatching(state, child.id)!;
    expect(keep.has(child.id)).toBe(true);
    expect(keep.has(child.parentRunId!)).toBe(true);
  });

  it('inclusive totals include descendants', () => {
    const m = runMetrics(state);
    const root = m.get(state.roots[0]!)!;
    expect(root.total.runs).toBe(4);
    expect(root.total.iterations).toBe(13);
  });

  it('finds text in code and output', () => {
    const hits = searchSession(state, 'rlm_query');
    expect(hits.some((h) => h.field === 'code')).toBe(true);
  });

  it('counts every occurrence in a text, not only the first that the hit shows', () => {
    const hits = searchSession(state, 'rlm_query');
    for (const h of hits) expect(h.count).toBeGreaterThanOrEqual(1);
    const code = hits.find((h) => h.field === 'code')!;
    const run = state.runs.get(code.runId)!;
    const it = run.iterations.find((i) => i.iteration === code.iteration)!;
    const text = blocksOf(it)
      .map((b) => b.start?.code ?? '')
      .find((c) => c.toLowerCase().includes('rlm_query'))!;
    expect(code.count).toBe(text.toLowerCase().split('rlm_query').length - 1);
    expect(matchSummary([{ ...code, count: 3 }])).toBe('3 matches in 1 place');
    expect(matchSummary([{ ...code, count: 1 }])).toBe('1 match');
    expect(
      matchSummary(
        [
          { ...code, count: 2 },
          { ...code, count: 1 },
        ],
        2,
      ),
    ).toBe('3+ matches in 2+ places');
  });

  it('marks where the model stopped seeing output', () => {
    expect(truncationOf('x'.repeat(100))).toBeNull();
    expect(truncationOf('x'.repeat(25_000))).toEqual({ cutAt: 20_000, total: 25_000 });
  });

  it('finds the first diverging iteration', () => {
    const a = reduceEvents(fixtureEvents('a_needle.jsonl'));
    expect(firstDivergence(a, a)).toBeNull();
    const b = reduceEvents(fixtureEvents('e_code_errors.jsonl'));
    expect(firstDivergence(a, b)?.iteration).toBe(1);
  });

  it("divergence: gives both sides' differing text and the first line that differs", () => {
    const a = reduceEvents(fixtureEvents('a_needle.jsonl'));
    const b = reduceEvents(fixtureEvents('e_code_errors.jsonl'));
    const d = firstDivergence(a, b)!;
    expect(d.what).toBe('code');
    expect(d.a).not.toBe(d.b);
    expect(d.a!.split('\n').slice(0, d.line - 1)).toEqual(d.b!.split('\n').slice(0, d.line - 1));
    expect(d.a!.split('\n')[d.line - 1]).not.toBe(d.b!.split('\n')[d.line - 1]);
    expect(firstDifferingLine('x\ny\nz', 'x\ny\nw')).toBe(3);
    expect(firstDifferingLine('x\ny', 'x\ny\nmore')).toBe(3);
    expect(firstDifferingLine('a', 'b')).toBe(1);
  });

  it('10,000-run tree: rows are computed without recursion', () => {
    // A chain 10,000 deep would overflow a recursive walk.
    const evs = [];
    let seq = 0;
    for (let i = 0; i < 10_000; i++) {
      evs.push({
        v: 1,
        seq: seq++,
        t: i,
        ts: '',
        runId: `r${i}`,
        parentRunId: i ? `r${i - 1}` : null,
        depth: i,
        type: 'run.start',
        spawnedBy: null,
        turn: 0,
        model: 'm',
        subModel: null,
        query: null,
        context: { type: 'string', totalChars: 0, chunkLengths: [0] },
        limits: {
          maxDepth: 1,
          maxIterations: 1,
          maxBudgetUsd: null,
          maxTimeoutMs: null,
          maxTokens: null,
          maxErrors: null,
          maxConcurrency: 1,
        },
        messages: [],
        tools: [],
      });
    }
    const s = reduceEvents(evs as never);
    expect(treeRows(new RunDerivations(s), new Set())).toHaveLength(10_000);
    expect(runMetrics(s).size).toBe(10_000);
  });
});

describe('incremental run metrics', () => {
  it('redoing only changed runs and their ancestors matches a full fold', () => {
    const events = fixtureEvents('c_recursive.jsonl');
    const state = createTrajectoryState();
    const derived = new RunDerivations(state);
    // Fold in uneven chunks, as commits during a load would, asking for metrics in between.
    for (let i = 0; i < events.length; i += 7) {
      for (const e of events.slice(i, i + 7)) {
        applyEvent(state, e);
        derived.markRunDirty(e.runId);
      }
      derived.runMetrics();
    }
    const incremental = derived.runMetrics();
    const full = runMetrics(reduceEvents(events));
    expect(incremental.size).toBe(full.size);
    for (const [id, m] of full) expect(incremental.get(id)).toEqual(m);
    // Nothing changed since: the same Map comes back (views keep their memoised rows).
    expect(derived.runMetrics()).toBe(incremental);
  });

  it('gives the same totals when own totals are settled as events are folded (the store does that per slice)', () => {
    const events = fixtureEvents('c_recursive.jsonl');
    const state = createTrajectoryState();
    const derived = new RunDerivations(state);
    derived.runMetrics();
    for (let i = 0; i < events.length; i += 5) {
      for (const e of events.slice(i, i + 5)) {
        applyEvent(state, e);
        derived.markRunDirty(e.runId);
      }
      derived.settleOwnTotals();
      if (i % 35 === 0) derived.runMetrics();
    }
    const settled = derived.runMetrics();
    const full = runMetrics(reduceEvents(events));
    expect(settled.size).toBe(full.size);
    for (const [id, m] of full) expect(settled.get(id)).toEqual(m);
    expect(derived.runMetrics()).toBe(settled);
  });

  it('keeps its caches per session: two sessions of the same log do not share them, and closing one frees its own', () => {
    const events = fixtureEvents('c_recursive.jsonl');
    const a = new RunDerivations(reduceEvents(events));
    const b = new RunDerivations(reduceEvents(events));
    const ma = a.runMetrics();
    const mb = b.runMetrics();
    expect(ma).not.toBe(mb);
    expect([...ma.values()].map((m) => m.total)).toEqual([...mb.values()].map((m) => m.total));
    // Each answers from its own memo until its own runs change.
    expect(a.runMetrics()).toBe(ma);
    expect(b.runMetrics()).toBe(mb);
  });
});
