// Policy metrics of one session: how the root model decomposed its task. Per run: iterations,
// code blocks, sub-calls per iteration, fan-out and batch sizes, the share of tokens and cost
// spent by the run's own turns vs its plain sub-calls vs its child runs, REPL time vs model
// time, errors, REPL resets, compactions. Per session: the same over the whole tree, a depth
// profile, and flat numeric `figures` that aggregate across sessions (policy-aggregate.ts).
// Usage is counted as in trajectory/totals.ts: each model call once, a child run's own
// events carrying its usage.
import { DIRECT_CALL_ITERATION, type RunId, type TrajectoryEvent, type Usage } from '../events.ts';
import { blocksOf, walkRuns } from '../trajectory/reducer.ts';
import type { CallNode, RunNode, TrajectoryState } from '../trajectory/types.ts';

interface UsageShare {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** The priced calls' cost summed; null when it has calls and none recorded a price (unknown, not $0). */
  costUsd: number | null;
}

/** Where a run's (or a session's) tokens and cost went. */
interface TokenSplit {
  /** The run's own model calls: turns, default answer, compactions, a direct call. */
  root: UsageShare;
  /** Plain sub-calls made by the run's code (`llm_query`, leaf `rlm_query`). */
  subcalls: UsageShare;
  /** Everything the run's child runs and their descendants spent. */
  children: UsageShare;
}

export interface MaxMean {
  max: number;
  /** 0 when there is nothing to average. */
  mean: number;
  /** How many values the mean is over. */
  n: number;
}

export interface RunMetrics {
  runId: RunId;
  parentRunId: RunId | null;
  depth: number;
  turn: number;
  model: string | null;
  stopReason: string | null;
  iterations: number;
  codeBlocks: number;
  /** Sub-calls made by this run's code: plain calls (leaf fallbacks included) and child runs. */
  subcalls: number;
  llmCalls: number;
  childRuns: number;
  /** Sub-calls per iteration, over the run's iterations. */
  subcallsPerIteration: MaxMean;
  /** Sub-calls per code block, over the blocks that made at least one. */
  fanOut: MaxMean;
  /** Sizes of the batched calls (`llm_query_batched`, `rlm_query_batched`) the run made. */
  batchSize: MaxMean;
  /** Deepest run below this one, relative to it (0: no children). */
  subtreeDepth: number;
  tokens: TokenSplit;
  /** Σ latencies of the run's own model calls. */
  modelMs: number;
  /** Σ code block wall time (time waiting for sub-calls included). */
  replMs: number;
  /** Σ code block CPU time in the sandbox. */
  replCpuMs: number;
  /** Σ latencies of the plain sub-calls (they may overlap when batched). */
  subcallMs: number;
  blockErrors: number;
  modelErrors: number;
  /** Sub-calls that came back as an error. */
  subcallErrors: number;
  replResets: number;
  compactions: number;
  /** Limits that fired in this run, in order. */
  limits: string[];
}

interface DepthRow {
  depth: number;
  runs: number;
  iterations: number;
  codeBlocks: number;
  /** Sub-calls made by runs at this depth. */
  subcalls: number;
  inputTokens: number;
  outputTokens: number;
  /** null when the runs at this depth made calls and none recorded a price. */
  costUsd: number | null;
}

/** The figures about money: null when the session's cost is unknown (no call recorded a price). */
type CostFigure = 'costUsd' | 'rootCostShare' | 'subcallCostShare' | 'childCostShare';

/** A session's figures: numbers, but a cost that no call recorded is null (unknown, not $0). */
type SessionFigures = Record<Exclude<SessionFigure, CostFigure>, number> & Record<CostFigure, number | null>;

/** The numbers per session that `policy-aggregate.ts` turns into distributions. */
export const SESSION_FIGURES = [
  'iterations',
  'rootIterations',
  'codeBlocks',
  'subcalls',
  'llmCalls',
  'childRuns',
  'subcallsPerIterationMean',
  'subcallsPerIterationMax',
  'fanOutMax',
  'fanOutMean',
  'batchSizeMax',
  'batchSizeMean',
  'runs',
  'maxDepth',
  'inputTokens',
  'outputTokens',
  'costUsd',
  'rootTokenShare',
  'subcallTokenShare',
  'childTokenShare',
  'rootCostShare',
  'subcallCostShare',
  'childCostShare',
  'modelMs',
  'replMs',
  'replCpuMs',
  'subcallMs',
  'blockErrors',
  'modelErrors',
  'subcallErrors',
  'replResets',
  'compactions',
  'wallMs',
] as const;
export type SessionFigure = (typeof SESSION_FIGURES)[number];

export interface SessionMetrics {
  rootRunId: RunId;
  turn: number;
  /** The question of the root run (null when the log has none). */
  query: string | null;
  /** Characters of the root's context, for telling tasks apart in a folder of logs. */
  contextChars: number | null;
  stopReason: string | null;
  answered: boolean;
  /** The root run first, then its descendants depth-first. */
  runs: RunMetrics[];
  depthProfile: DepthRow[];
  /** Whole-tree figures: `iterations`, `subcalls`… over every run of the session. */
  figures: SessionFigures;
}

const emptyShare = (): UsageShare => ({ calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 });

/**
 * Adds the cost of `calls` calls to a sum that already covers `callsBefore`: no calls cost $0,
 * calls that all lack a price are unknown (null), and any price makes the sum known.
 */
function addCost(into: { costUsd: number | null }, callsBefore: number, cost: number | null, calls: number): void {
  if (calls === 0) return;
  if (cost !== null) into.costUsd = (into.costUsd ?? 0) + cost;
  else if (callsBefore === 0) into.costUsd = null;
}

function addShare(into: UsageShare, u: Usage | UsageShare, calls = 1): void {
  const before = into.calls;
  const n = 'calls' in u ? u.calls : calls;
  into.calls += n;
  into.inputTokens += u.inputTokens;
  into.outputTokens += u.outputTokens;
  addCost(into, before, u.costUsd, n);
}

const shareSum = (s: TokenSplit): UsageShare => {
  const t = emptyShare();
  addShare(t, s.root);
  addShare(t, s.subcalls);
  addShare(t, s.children);
  return t;
};

/** What a run and its subtree spent: its own turns, its plain sub-calls and its child runs (null: no call recorded a price). */
export function runCostUsd(r: RunMetrics): number | null {
  return shareSum(r.tokens).costUsd;
}

class MaxMeanAcc {
  max = 0;
  sum = 0;
  n = 0;
  add(v: number): void {
    if (v > this.max) this.max = v;
    this.sum += v;
    this.n++;
  }
  merge(o: MaxMeanAcc): void {
    if (o.max > this.max) this.max = o.max;
    this.sum += o.sum;
    this.n += o.n;
  }
  result(): MaxMean {
    return { max: this.max, mean: this.n > 0 ? this.sum / this.n : 0, n: this.n };
  }
}

function isChildRunCall(call: CallNode): boolean {
  return call.start.kind === 'rlm' && !call.start.leaf && call.start.childRunId !== null;
}

interface OwnCounts {
  metrics: RunMetrics;
  perIteration: MaxMeanAcc;
  fanOut: MaxMeanAcc;
  batch: MaxMeanAcc;
}

/** A run's own work; `tokens.children` and `subtreeDepth` are filled in by the caller. */
function ownMetrics(state: TrajectoryState, run: RunNode): OwnCounts {
  const perIteration = new MaxMeanAcc();
  const fanOut = new MaxMeanAcc();
  const batch = new MaxMeanAcc();
  const tokens: TokenSplit = { root: emptyShare(), subcalls: emptyShare(), children: emptyShare() };
  const m: RunMetrics = {
    runId: run.id,
    parentRunId: run.parentRunId,
    depth: run.depth,
    turn: run.turn,
    model: run.start?.model ?? null,
    stopReason: run.end?.stopReason ?? null,
    iterations: 0,
    codeBlocks: 0,
    subcalls: 0,
    llmCalls: 0,
    childRuns: 0,
    subcallsPerIteration: { max: 0, mean: 0, n: 0 },
    fanOut: { max: 0, mean: 0, n: 0 },
    batchSize: { max: 0, mean: 0, n: 0 },
    subtreeDepth: 0,
    tokens,
    modelMs: 0,
    replMs: 0,
    replCpuMs: 0,
    subcallMs: 0,
    blockErrors: 0,
    modelErrors: 0,
    subcallErrors: 0,
    replResets: 0,
    compactions: 0,
    limits: run.limits.map((l) => l.limit),
  };
  const batches = new Set<string>();
  for (const it of run.iterations) {
    const direct = it.iteration === DIRECT_CALL_ITERATION;
    if (!direct) m.iterations++;
    for (const r of it.reply ? [it.reply, ...it.compactionReplies] : it.compactionReplies) {
      addShare(tokens.root, r.usage);
      m.modelMs += r.latencyMs;
    }
    if (it.compaction) m.compactions++;
    m.modelErrors += it.modelErrors.length;
    let itCalls = 0;
    for (const b of blocksOf(it)) {
      m.codeBlocks++;
      if (b.end) {
        m.replMs += b.end.durationMs;
        m.replCpuMs += b.end.cpuMs;
        if (b.end.error !== null) m.blockErrors++;
      }
      if (b.replReset) m.replResets++;
      if (b.calls.length > 0) fanOut.add(b.calls.length);
      for (const id of b.calls) {
        const call = state.calls.get(id);
        if (!call) continue;
        itCalls++;
        const bt = call.start.batch;
        if (bt && !batches.has(bt.batchId)) {
          batches.add(bt.batchId);
          batch.add(bt.size);
        }
        if (call.end?.error != null) m.subcallErrors++;
        if (isChildRunCall(call)) {
          m.childRuns++;
          // A child's usage is on its own events; anything recorded on the call itself counts too.
          const u = call.end?.usage;
          if (u && (u.inputTokens > 0 || u.outputTokens > 0)) addShare(tokens.children, u);
        } else {
          m.llmCalls++;
          if (call.end) {
            addShare(tokens.subcalls, call.end.usage);
            m.subcallMs += call.end.latencyMs;
          }
        }
      }
    }
    m.subcalls += itCalls;
    if (!direct) perIteration.add(itCalls);
  }
  return { metrics: m, perIteration, fanOut, batch };
}

const ratio = (part: number, whole: number): number => (whole > 0 ? part / whole : 0);
/** A share of a cost: unknown when the whole is (a part without a price counts as none of a known whole). */
const costRatio = (part: number | null, whole: number | null): number | null => (whole === null ? null : ratio(part ?? 0, whole));

/** Metrics of every root run (one per completion; a multi-turn log has several). */
export function policyMetrics(state: TrajectoryState): SessionMetrics[] {
  return state.roots.map((rootId) => sessionMetrics(state, rootId));
}

export function sessionMetrics(state: TrajectoryState, rootRunId: RunId): SessionMetrics {
  const order = [...walkRuns(state, rootRunId)];
  const own = new Map<RunId, OwnCounts>();
  for (const run of order) own.set(run.id, ownMetrics(state, run));
  // Children after parents in `order`: fold totals bottom-up by walking it backwards.
  const subtree = new Map<RunId, { usage: UsageShare; depth: number }>();
  for (let i = order.length - 1; i >= 0; i--) {
    const run = order[i] as RunNode;
    const m = (own.get(run.id) as OwnCounts).metrics;
    const total = shareSum(m.tokens);
    let depth = 0;
    for (const c of run.children) {
      const sub = subtree.get(c);
      if (!sub) continue;
      addShare(m.tokens.children, sub.usage);
      addShare(total, sub.usage);
      depth = Math.max(depth, sub.depth + 1);
    }
    m.subtreeDepth = depth;
    subtree.set(run.id, { usage: total, depth });
  }
  const perIteration = new MaxMeanAcc();
  const fanOut = new MaxMeanAcc();
  const batch = new MaxMeanAcc();
  const depthRows: DepthRow[] = [];
  /** Model calls counted into each depth's row so far (what tells its unknown cost from $0). */
  const depthCalls: number[] = [];
  const runs: RunMetrics[] = [];
  const sum = {
    iterations: 0,
    codeBlocks: 0,
    subcalls: 0,
    llmCalls: 0,
    childRuns: 0,
    modelMs: 0,
    replMs: 0,
    replCpuMs: 0,
    subcallMs: 0,
    blockErrors: 0,
    modelErrors: 0,
    subcallErrors: 0,
    replResets: 0,
    compactions: 0,
  };
  let maxDepth = 0;
  for (const run of order) {
    const o = own.get(run.id) as OwnCounts;
    o.metrics.subcallsPerIteration = o.perIteration.result();
    o.metrics.fanOut = o.fanOut.result();
    o.metrics.batchSize = o.batch.result();
    perIteration.merge(o.perIteration);
    fanOut.merge(o.fanOut);
    batch.merge(o.batch);
    runs.push(o.metrics);
    const m = o.metrics;
    for (const k of Object.keys(sum) as (keyof typeof sum)[]) sum[k] += m[k];
    maxDepth = Math.max(maxDepth, run.depth);
    let row = depthRows[run.depth];
    if (!row) {
      row = { depth: run.depth, runs: 0, iterations: 0, codeBlocks: 0, subcalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };
      depthRows[run.depth] = row;
    }
    const spent = shareSum({ ...m.tokens, children: emptyShare() });
    row.runs++;
    row.iterations += m.iterations;
    row.codeBlocks += m.codeBlocks;
    row.subcalls += m.subcalls;
    row.inputTokens += spent.inputTokens;
    row.outputTokens += spent.outputTokens;
    const callsBefore = depthCalls[run.depth] ?? 0;
    depthCalls[run.depth] = callsBefore + spent.calls;
    addCost(row, callsBefore, spent.costUsd, spent.calls);
  }
  const root = state.runs.get(rootRunId) as RunNode;
  const rootM = runs[0] as RunMetrics;
  const total = shareSum(rootM.tokens);
  const tokensOf = (s: UsageShare): number => s.inputTokens + s.outputTokens;
  const allTokens = tokensOf(total);
  const pi = perIteration.result();
  const fo = fanOut.result();
  const bs = batch.result();
  const figures: SessionFigures = {
    ...sum,
    rootIterations: rootM.iterations,
    subcallsPerIterationMean: pi.mean,
    subcallsPerIterationMax: pi.max,
    fanOutMax: fo.max,
    fanOutMean: fo.mean,
    batchSizeMax: bs.max,
    batchSizeMean: bs.mean,
    runs: order.length,
    maxDepth,
    inputTokens: total.inputTokens,
    outputTokens: total.outputTokens,
    costUsd: total.costUsd === null ? null : Math.round(total.costUsd * 1e6) / 1e6,
    rootTokenShare: ratio(tokensOf(rootM.tokens.root), allTokens),
    subcallTokenShare: ratio(tokensOf(rootM.tokens.subcalls), allTokens),
    childTokenShare: ratio(tokensOf(rootM.tokens.children), allTokens),
    rootCostShare: costRatio(rootM.tokens.root.costUsd, total.costUsd),
    subcallCostShare: costRatio(rootM.tokens.subcalls.costUsd, total.costUsd),
    childCostShare: costRatio(rootM.tokens.children.costUsd, total.costUsd),
    wallMs: Math.round(root.end ? root.end.durationMs : Math.max(0, root.lastT - (root.start ? root.start.t : root.firstT))),
  };
  return {
    rootRunId,
    turn: root.turn,
    query: root.start?.query ?? null,
    contextChars: root.start?.context.totalChars ?? null,
    stopReason: root.end?.stopReason ?? null,
    answered: root.end?.stopReason === 'answered',
    runs,
    depthProfile: depthRows.filter((r): r is DepthRow => r !== undefined),
    figures,
  };
}

/**
 * The event without the texts metrics never read (replies, code, outputs, prompts, message
 * histories), so a folder of large logs folds into run trees that stay small in memory.
 */
export function withoutTexts(e: TrajectoryEvent): TrajectoryEvent {
  switch (e.type) {
    case 'run.start':
      return { ...e, messages: [], tools: [], query: e.query === null ? null : e.query.slice(0, 2000) };
    case 'iteration.start':
      return { ...e, appended: [] };
    case 'iteration.end':
      return { ...e, appended: [], finalAnswer: e.finalAnswer === null ? null : '' };
    case 'model.reply': {
      const { transient: _transient, ...kept } = e;
      return { ...kept, text: '' };
    }
    case 'block.start':
      return { ...e, code: '' };
    case 'block.end': {
      const { locals: _locals, ...kept } = e;
      return { ...kept, stdout: '', stderr: '', variables: [], submitted: e.submitted === null ? null : '' };
    }
    case 'subcall.start':
      return { ...e, prompt: '' };
    case 'subcall.end':
      return { ...e, response: '' };
    case 'compaction':
      return { ...e, summary: '', messages: [] };
    case 'run.end':
      return { ...e, answer: e.answer === null ? null : '' };
    case 'model.error':
    case 'repl.reset':
    case 'limit':
      return e;
  }
}
