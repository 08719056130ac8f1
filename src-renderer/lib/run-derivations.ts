// Per-run figures the views draw, derived from the trajectory and cached per session
// (`RunDerivations`, owned by its SessionEntry), the measures a tree can be coloured by, and a
// run's status.
import type { RunId } from '../../src-shared/events.ts';
import type { PauseInfo } from '../../src-shared/protocol.ts';
import {
  addTotals,
  costUnknown,
  emptyTotals,
  runOwnTotals,
  runWallMs,
  tokensUnknown,
  walkRuns,
  type RunNode,
  type TrajectoryState,
  type TrajectoryTotals,
} from '../../src-shared/trajectory/index.ts';
import { labelSource, MIN_SHARED_HEAD, runLabel, SHARED_HEAD_SCAN, withoutHead } from './run-labels.ts';

export type RunStatus = 'running' | 'paused' | 'answered' | 'failed' | 'limit' | 'cancelled';

export function runStatus(run: RunNode, pause: PauseInfo | null): RunStatus {
  if (!run.end) return pause && pause.runId === run.id ? 'paused' : 'running';
  switch (run.end.stopReason) {
    case 'answered':
      return 'answered';
    case 'error':
      return 'failed';
    case 'cancelled':
      return 'cancelled';
    default:
      return 'limit';
  }
}

export const MEASURES = ['cost', 'tokens', 'time', 'iterations', 'subcalls', 'errors'] as const;

export type Measure = (typeof MEASURES)[number];

export interface RunMetrics {
  own: TrajectoryTotals;
  /** Own plus all descendants. */
  total: TrajectoryTotals;
  wallMs: number;
}

function ownKey(run: RunNode): string {
  const last = run.iterations[run.iterations.length - 1];
  const lastBlock = last?.blocks[last.blocks.length - 1];
  return `${run.iterations.length}:${run.lastT}:${run.end ? 1 : 0}:${last?.blocks.length ?? 0}:${last?.reply ? 1 : 0}:${last?.end ? 1 : 0}:${lastBlock?.calls.length ?? 0}:${lastBlock?.end ? 1 : 0}`;
}

/**
 * What the views derive from one trajectory and keep between commits: per-run metrics
 * (own totals, and totals with descendants) and the batch each child run was spawned in.
 * Each loaded session owns one (`SessionEntry.derived`), so its caches live and die with the
 * session; a trajectory without one (a replay's) gets a fresh one per computation.
 *
 * The store's fold marks the runs that receive events (`markRunDirty`) and settles their own
 * totals after each stride (`settleOwnTotals`), so a commit's `runMetrics` only rolls those
 * runs up into their ancestors (a 38,000-run tree re-folded in full took ~250 ms per commit).
 */
export class RunDerivations {
  readonly state: TrajectoryState;
  /** Own totals by run node, keyed on what new events change (for runs nobody marked). */
  private readonly ownCache = new WeakMap<RunNode, { key: string; own: TrajectoryTotals }>();
  /** Runs that received events since their own totals were last computed. */
  private readonly dirty = new Set<RunId>();
  /** Runs whose own totals were recomputed since the last `runMetrics` (it rolls them up). */
  private readonly settled = new Set<RunId>();
  /** Own totals of every run, once `runMetrics` has run (then kept up to date by `settleOwnTotals`). */
  private owns: Map<RunId, TrajectoryTotals> | null = null;
  private memo: Map<RunId, RunMetrics> | null = null;
  /** The batch a child run was spawned in (a spawning call's batch never changes once seen). */
  private readonly batches = new WeakMap<RunNode, string | null>();
  /** Labels by run, with the text they were made from (a left-out prompt read back changes it). */
  private readonly labels = new WeakMap<
    RunNode,
    { text: string; model: string | undefined; shared: number; short: string; long: string }
  >();
  /** Per parent: how many leading characters its children's labels all share, for that many children. */
  private readonly sharedHeads = new WeakMap<RunNode, { children: number; head: number }>();

  constructor(state: TrajectoryState) {
    this.state = state;
  }

  /** Called by the store for each folded event's run. */
  markRunDirty(runId: RunId): void {
    this.dirty.add(runId);
  }

  /**
   * Recomputes the own totals of the runs that received events since the last call, once the
   * metrics exist (the store calls this after each stride of folded events). Done there, in
   * small and frequent steps, this work stays out of the commit that renders the tree: at the
   * end of a 100 MB load it had made that render's task 46–78 ms longer, in code that ran
   * too rarely to be optimised.
   */
  settleOwnTotals(): void {
    const prev = this.owns;
    if (this.dirty.size === 0 || !prev) return;
    for (const id of this.dirty) {
      const run = this.state.runs.get(id);
      // Recomputed outright: the run had events, whatever its cache key says.
      if (run) prev.set(id, runOwnTotals(this.state, run));
      this.settled.add(id);
    }
    this.dirty.clear();
  }

  ownTotals(run: RunNode): TrajectoryTotals {
    const key = ownKey(run);
    const hit = this.ownCache.get(run);
    if (hit && hit.key === key) return hit.own;
    const own = runOwnTotals(this.state, run);
    this.ownCache.set(run, { key, own });
    return own;
  }

  /** TrajectoryTotals of a run and its descendants, from the cached own totals. */
  inclusiveTotals(runId: RunId): TrajectoryTotals {
    const t = emptyTotals();
    for (const run of walkRuns(this.state, runId)) addTotals(t, this.ownTotals(run));
    return t;
  }

  /**
   * Own and inclusive totals for every run. The first call folds all runs bottom-up; later
   * calls redo only the runs that received events and their ancestors. Returns a new Map
   * whenever something changed, with new RunMetrics objects only for the runs that changed,
   * so memoised rows of untouched runs stay as they are.
   */
  runMetrics(): Map<RunId, RunMetrics> {
    const state = this.state;
    const prev = this.memo;
    const cachedOwns = this.owns;
    if (prev && cachedOwns) {
      this.settleOwnTotals();
      const changed = this.settled;
      if (changed.size === 0) return prev;
      const redo = new Set<RunId>();
      for (const id of changed) {
        let cur = state.runs.get(id);
        while (cur && !redo.has(cur.id)) {
          redo.add(cur.id);
          cur = cur.parentRunId !== null ? state.runs.get(cur.parentRunId) : undefined;
        }
      }
      changed.clear();
      const out = new Map(prev);
      // Children are deeper than their parents: deepest first folds each child before its parent.
      const list: RunNode[] = [];
      for (const id of redo) {
        const run = state.runs.get(id);
        if (run) list.push(run);
      }
      list.sort((a, b) => b.depth - a.depth);
      for (const run of list) {
        const own = cachedOwns.get(run.id) ?? runOwnTotals(state, run);
        const total = addTotals(emptyTotals(), own);
        for (const c of run.children) {
          const m = out.get(c);
          if (m) addTotals(total, m.total);
        }
        out.set(run.id, { own, total, wallMs: runWallMs(run) });
      }
      this.memo = out;
      return out;
    }
    const out = new Map<RunId, RunMetrics>();
    const order: RunNode[] = [];
    const owns = new Map<RunId, TrajectoryTotals>();
    for (const run of state.runs.values()) owns.set(run.id, this.ownTotals(run));
    this.dirty.clear();
    this.settled.clear();
    this.owns = owns;
    for (const run of walkRuns(state)) {
      order.push(run);
      const own = owns.get(run.id) ?? this.ownTotals(run);
      out.set(run.id, { own, total: addTotals(emptyTotals(), own), wallMs: runWallMs(run) });
    }
    // Reverse pre-order visits children before parents.
    for (let i = order.length - 1; i >= 0; i--) {
      const run = order[i] as RunNode;
      if (run.parentRunId === null) continue;
      const parent = out.get(run.parentRunId);
      const me = out.get(run.id);
      if (parent && me) addTotals(parent.total, me.total);
    }
    this.memo = out;
    return out;
  }

  /**
   * A run's label for its row and its row's title (`runLabel` at 80 and 300 characters), until
   * its text changes. Children of one fan-out are often sent one template with the part that
   * differs at the end ("TASK: section …\nITEMS: …"): the row leaves out the head they all
   * share, so that siblings can be told apart; the title keeps it.
   */
  labelOf(run: RunNode): { short: string; long: string } {
    const text = labelSource(this.state, run);
    const shared = this.sharedHead(run);
    const hit = this.labels.get(run);
    if (hit && hit.text === text && hit.model === run.start?.model && hit.shared === shared) return hit;
    const long = runLabel(this.state, run, 300);
    const made = { text, model: run.start?.model, shared, short: withoutHead(runLabel(this.state, run, 80 + shared), shared), long };
    this.labels.set(run, made);
    return made;
  }

  /** Leading characters of `run`'s label that every sibling's label shares (0 for an only child, or when little is shared). */
  private sharedHead(run: RunNode): number {
    const parent = run.parentRunId === null ? undefined : this.state.runs.get(run.parentRunId);
    if (!parent || parent.children.length < 2) return 0;
    const hit = this.sharedHeads.get(parent);
    if (hit && hit.children === parent.children.length) return hit.head;
    let common: string | null = null;
    for (const id of parent.children) {
      const child = this.state.runs.get(id);
      const flat = child ? runLabel(this.state, child, SHARED_HEAD_SCAN) : '';
      if (common === null) common = flat;
      else {
        let i = 0;
        while (i < common.length && i < flat.length && common.charCodeAt(i) === flat.charCodeAt(i)) i++;
        common = common.slice(0, i);
      }
      if (common.length < MIN_SHARED_HEAD) break;
    }
    const head = common !== null && common.length >= MIN_SHARED_HEAD ? common.length : 0;
    this.sharedHeads.set(parent, { children: parent.children.length, head });
    return head;
  }

  /** The batch a child run was spawned in (if its parent spawned it through *_batched with >1 prompt). */
  batchOf(run: RunNode): string | null {
    const hit = this.batches.get(run);
    if (hit !== undefined) return hit;
    const callId = run.spawnedBy?.callId;
    if (!callId) return null;
    const call = this.state.calls.get(callId);
    if (!call) return null;
    const b = call.start.batch;
    const id = b && b.size > 1 ? b.batchId : null;
    this.batches.set(run, id);
    return id;
  }
}

/**
 * Whether a run's measure is known: its cost is not when none of its calls had a price, nor
 * its tokens when none recorded usage (a reference log's root replies). Such a run is drawn
 * in a neutral colour, not as the scale's zero.
 */
export function measureKnown(m: RunMetrics | undefined, measure: Measure): boolean {
  if (!m) return false;
  const t = m.total;
  if (measure === 'cost') return !costUnknown(t);
  if (measure === 'tokens') return !tokensUnknown(t);
  return true;
}

/** The colour of a run whose measure is not known. */
export const UNKNOWN_MEASURE_COLOUR = '#6e7681';

export function measureOf(m: RunMetrics | undefined, measure: Measure): number {
  if (!m) return 0;
  switch (measure) {
    case 'cost':
      return m.total.costUsd;
    case 'tokens':
      return m.total.inputTokens + m.total.outputTokens;
    case 'time':
      return m.wallMs;
    case 'iterations':
      return m.own.iterations;
    case 'subcalls':
      return m.own.llmCalls + m.own.rlmCalls;
    case 'errors':
      return m.own.errors;
  }
}
