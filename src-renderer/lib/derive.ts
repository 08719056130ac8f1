// Pure functions from the trajectory to what the views draw (jaeger-ui's
// generateRowStates idea: the tree becomes rows here, the list virtualises them).
import type { ComparedOutput, RunId } from '../../src-shared/events.ts';
import type { PauseInfo } from '../../src-shared/protocol.ts';
import {
  blocksOf,
  costUnknown,
  tokensUnknown,
  runOwnTotals,
  runWallMs,
  walkRuns,
  emptyTotals,
  addTotals,
  type RunNode,
  type TrajectoryTotals,
  type TrajectoryState,
  type IterationNode,
} from '../../src-shared/trajectory/index.ts';
import { OUTPUT_CAP_CHARS } from '../../src-shared/output-cap.ts';

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

/** The text a run's label is made from (see `runLabel`). */
function labelSource(state: TrajectoryState, run: RunNode): string {
  const call = run.spawnedBy ? state.calls.get(run.spawnedBy.callId) : undefined;
  return run.start?.query || call?.start.prompt || run.start?.messages.find((m) => m.role === 'user')?.content || '';
}

/**
 * What a run is about, in one line: its query, else (a child run) the prompt its parent sent
 * it, else its first user message; the model name only when there is nothing else. Child
 * runs of one fan-out share a model, so the model alone tells them apart from nothing.
 */
export function runLabel(state: TrajectoryState, run: RunNode, max = 80): string {
  const text = labelSource(state, run);
  // Only the head is shown: flattening a whole prompt (it may carry a context chunk) per row render cost 70 ms per commit on a big tree.
  const flat = text
    .slice(0, max * 4)
    .replace(/\s+/g, ' ')
    .trim();
  if (flat === '') return run.start?.model ?? run.id;
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Siblings' labels are compared over this many characters; a shorter shared head is kept. */
const SHARED_HEAD_SCAN = 200;
const MIN_SHARED_HEAD = 12;

/** `label` without its first `head` characters, cut at a word where one is near, marked with "…". */
function withoutHead(label: string, head: number): string {
  if (head === 0) return label;
  const space = label.lastIndexOf(' ', head);
  const cut = space > head - 16 ? space + 1 : head;
  const rest = label.slice(cut).trim();
  return rest === '' ? label : `…${rest}`;
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

// --- a block's output as shown ---------------------------------------------------------------

/**
 * The line a block's error adds after its stderr, or null when the stderr already shows it: a
 * reference log records no error of its own, and its import reads one from the traceback's
 * last line (or, failing that, takes the whole stderr as the message).
 */
export function errorLineOf(o: Pick<ComparedOutput, 'stderr' | 'error'>): string | null {
  const e = o.error;
  if (!e) return null;
  const line = `${e.name}: ${e.message}`;
  const err = o.stderr.trim();
  if (err === '') return line;
  const shown =
    err.includes(line) ||
    (e.message === '' && err.split('\n').some((l) => l.trim().endsWith(e.name))) ||
    (e.name === 'Error' && (err === e.message || (e.message.endsWith('…') && err.startsWith(e.message.slice(0, -1)))));
  return shown ? null : line;
}

/** A block's stdout, stderr and error (when the stderr does not show it) as the block view shows them. */
export function blockOutputText(o: Pick<ComparedOutput, 'stdout' | 'stderr' | 'error'>, sep = '\n\n'): string {
  const parts: string[] = [];
  if (o.stdout) parts.push(o.stdout.replace(/\n$/, ''));
  if (o.stderr) parts.push(o.stderr.replace(/\n$/, ''));
  const error = errorLineOf(o);
  if (error) parts.push(error);
  return parts.join(sep);
}

// --- full-text search across a session ------------------------------------------------------

type HitField = 'prompt' | 'reply' | 'reasoning' | 'code' | 'output' | 'subcall' | 'answer';
export interface SearchHit {
  runId: RunId;
  iteration: number | null;
  field: HitField;
  /** Text around the match (plain text; rendered as text). */
  snippet: string;
  at: number;
  /** Occurrences in this text (the hit shows the first): a count of hits alone undercounts. */
  count: number;
}

/** Occurrences of `q` in `lower` from `at` on, not overlapping. */
function occurrences(lower: string, q: string, at: number): number {
  let n = 0;
  for (let i = at; i >= 0; i = lower.indexOf(q, i + q.length)) n++;
  return n;
}

function snippet(text: string, at: number, len: number): string {
  const from = Math.max(0, at - 40);
  return (from > 0 ? '…' : '') + text.slice(from, at + len + 60).replace(/\s+/g, ' ') + (at + len + 60 < text.length ? '…' : '');
}

/** One hit per text that holds the query (its first occurrence, and how many there are), at most `limit`. */
export function searchSession(state: TrajectoryState, query: string, limit = 500): SearchHit[] {
  const q = query.toLowerCase();
  if (q.length < 2) return [];
  const hits: SearchHit[] = [];
  const look = (text: string | null | undefined, runId: RunId, iteration: number | null, field: HitField): void => {
    if (!text || hits.length >= limit) return;
    const lower = text.toLowerCase();
    const at = lower.indexOf(q);
    if (at >= 0) hits.push({ runId, iteration, field, snippet: snippet(text, at, q.length), at, count: occurrences(lower, q, at) });
  };
  for (const run of walkRuns(state)) {
    // The run's initial messages are shown with its first iteration: a jump there shows the match.
    const first = run.iterations[0]?.iteration ?? null;
    for (const m of run.start?.messages ?? []) look(m.content, run.id, first, 'prompt');
    for (const it of run.iterations) {
      for (const m of [...(it.start?.appended ?? []), ...(it.reply?.transient ?? [])]) look(m.content, run.id, it.iteration, 'prompt');
      look(it.reply?.text, run.id, it.iteration, 'reply');
      look(it.reply?.reasoning?.text, run.id, it.iteration, 'reasoning');
      for (const b of blocksOf(it)) {
        look(b.start?.code, run.id, it.iteration, 'code');
        look(b.end?.stdout, run.id, it.iteration, 'output');
        look(b.end?.stderr, run.id, it.iteration, 'output');
        look(b.end ? errorLineOf(b.end) : null, run.id, it.iteration, 'output');
        for (const cid of b.calls) {
          const c = state.calls.get(cid);
          look(c?.start.prompt, run.id, it.iteration, 'subcall');
          look(c?.end?.response, run.id, it.iteration, 'subcall');
          look(c?.end?.reasoning?.text, run.id, it.iteration, 'reasoning');
        }
      }
    }
    look(run.end?.answer, run.id, null, 'answer');
    if (hits.length >= limit) break;
  }
  return hits;
}

/** The search's count line: occurrences, and the texts they are in when that differs. */
export function matchSummary(hits: readonly SearchHit[], limit = 500): string {
  const more = hits.length >= limit ? '+' : '';
  const total = hits.reduce((n, h) => n + h.count, 0);
  if (total === hits.length) return `${total}${more} ${total === 1 ? 'match' : 'matches'}`;
  return `${total}${more} matches in ${hits.length}${more} ${hits.length === 1 ? 'place' : 'places'}`;
}

// --- the output the model saw -----------------------------------------------------------------

/** Where the model's view of this output text was cut, if it was (when the log does not record the message: at our packs' cap). */
export function truncationOf(text: string, cap = OUTPUT_CAP_CHARS): { cutAt: number; total: number } | null {
  return text.length > cap ? { cutAt: cap, total: text.length } : null;
}

// --- compare --------------------------------------------------------------------------------

function rootRun(state: TrajectoryState): RunNode | null {
  const id = state.roots[0];
  return id ? (state.runs.get(id) ?? null) : null;
}

function codeOf(it: IterationNode): string {
  return blocksOf(it)
    .map((b) => b.start?.code ?? '')
    .join('\n---\n');
}

/** Where two sessions' root runs first part: the iteration, why, and the differing texts side by side. */
export interface Divergence {
  /** 1-based root iteration. */
  iteration: number;
  why: string;
  /** Which text differs; `missing` when one side has no such iteration. */
  what: 'code' | 'reply' | 'output' | 'missing';
  /** Each side's text of that kind; null where the side has no such iteration. */
  a: string | null;
  b: string | null;
  /** 1-based line of the texts where they first differ (1 when a side is missing). */
  line: number;
}

function stdoutOf(it: IterationNode): string {
  return blocksOf(it)
    .map((x) => x.end?.stdout ?? '')
    .join('');
}

/** 1-based number of the first line at which two texts differ. */
export function firstDifferingLine(a: string, b: string): number {
  const la = a.split('\n');
  const lb = b.split('\n');
  let i = 0;
  while (i < la.length && i < lb.length && la[i] === lb[i]) i++;
  return i + 1;
}

/** The first iteration (1-based, of the root runs) where the two sessions' replies or code differ. */
export function firstDivergence(a: TrajectoryState, b: TrajectoryState): Divergence | null {
  const ra = rootRun(a);
  const rb = rootRun(b);
  if (!ra || !rb) return null;
  const n = Math.max(ra.iterations.length, rb.iterations.length);
  for (let i = 0; i < n; i++) {
    const ia = ra.iterations[i];
    const ib = rb.iterations[i];
    if (!ia || !ib)
      return {
        iteration: (ia ?? ib)?.iteration ?? i + 1,
        why: ia ? 'the second session has no such iteration' : 'the first session has no such iteration',
        what: 'missing',
        a: ia ? (ia.reply?.text ?? '') : null,
        b: ib ? (ib.reply?.text ?? '') : null,
        line: 1,
      };
    const pairs = [
      ['code', codeOf(ia), codeOf(ib), 'code differs'],
      ['reply', ia.reply?.text ?? '', ib.reply?.text ?? '', 'reply text differs'],
      ['output', stdoutOf(ia), stdoutOf(ib), 'output differs'],
    ] as const;
    for (const [what, ta, tb, why] of pairs)
      if (ta !== tb) return { iteration: ia.iteration, why, what, a: ta, b: tb, line: firstDifferingLine(ta, tb) };
  }
  return null;
}

/** What a total knows of its calls' usage (a TrajectoryTotals). */
type UsageKnowledge = Pick<TrajectoryTotals, 'modelCalls' | 'costUsd' | 'unpricedCalls' | 'unknownUsageCalls'>;

/**
 * A cost as far as it is known: "$0.012"; "$0.012 + unknown" when some calls had no price;
 * `none` when no call had one. `tight` (a tree row): "—" and "$0.012+".
 */
export function fmtCost(t: UsageKnowledge, { tight = false, none = 'cost unknown' }: { tight?: boolean; none?: string } = {}): string {
  if (t.unpricedCalls === 0) return fmtUsd(t.costUsd);
  if (costUnknown(t)) return tight ? '—' : none;
  return tight ? `${fmtUsd(t.costUsd)}+` : `${fmtUsd(t.costUsd)} + unknown`;
}

/** A token count as far as it is known; as `fmtCost`, with "unknown" when no call's usage was recorded. */
export function fmtTokens(n: number, t: UsageKnowledge, tight = false): string {
  if (t.unknownUsageCalls === 0) return fmtInt(n);
  if (tokensUnknown(t)) return tight ? '—' : 'unknown';
  return tight ? `${fmtInt(n)}+` : `${fmtInt(n)} + unknown`;
}

/** "1,200 in / 80 out" (then `unit`), "… + unknown" when some calls' usage was not recorded, `none` when no call's was. */
export function fmtTokenPair(
  t: UsageKnowledge & Pick<TrajectoryTotals, 'inputTokens' | 'outputTokens'>,
  { unit = '', none = 'tokens unknown' }: { unit?: string; none?: string } = {},
): string {
  if (tokensUnknown(t)) return none;
  return `${fmtInt(t.inputTokens)} in / ${fmtInt(t.outputTokens)} out${unit}${t.unknownUsageCalls > 0 ? ' + unknown' : ''}`;
}

/** Why usage shows as unknown, for a title; undefined when all of it is known. */
export function usageNote(t: UsageKnowledge): string | undefined {
  const parts: string[] = [];
  if (t.unknownUsageCalls > 0)
    parts.push(
      `${t.unknownUsageCalls} of ${t.modelCalls} model calls have no token usage recorded (a reference log does not record its root model's)`,
    );
  if (t.unpricedCalls > 0) parts.push(`${t.unpricedCalls} of ${t.modelCalls} model calls have no known price, so their cost is unknown`);
  return parts.length > 0 ? parts.join('; ') : undefined;
}

export function fmtUsd(v: number): string {
  return v === 0 ? '$0' : v < 0.01 ? `$${v.toFixed(5)}` : `$${v.toFixed(3)}`;
}
export function fmtMs(v: number): string {
  // Two significant figures below 10 ms: a chart's time axis over sub-millisecond blocks read "0 ms" at every tick.
  if (v < 10) return `${Number(v.toPrecision(2))} ms`;
  return v < 1000 ? `${Math.round(v)} ms` : v < 60_000 ? `${(v / 1000).toFixed(2)} s` : `${(v / 60_000).toFixed(1)} min`;
}
// One formatter: `toLocaleString('en-US')` builds a new Intl formatter per call (~0.1 ms),
// which showed up as 60 ms per commit across the tree rows of a big log.
const INT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
export function fmtInt(v: number): string {
  return INT.format(Math.round(v));
}
