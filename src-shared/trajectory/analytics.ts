// TrajectoryTotals, critical paths and distributions over the run tree. Every model call's usage is
// counted exactly once: turn/final/compaction replies on `model.reply`, plain sub-calls on
// their `subcall.end` (a child run's subcall.end carries zero; the child's own replies count).
import { assertNever, type CallId, DIRECT_CALL_ITERATION, type RunId, type TrajectoryEvent, type Usage, wasCut } from '../events.ts';
import { addByModel, addModelUsage, roundedByModel, type UsageByModel } from './by-model.ts';
import { blocksOf, walkRuns } from './reducer.ts';
import type { CallNode, IterationNode, RunNode, TrajectoryState } from './types.ts';

export interface TrajectoryTotals {
  runs: number;
  iterations: number;
  codeBlocks: number;
  /** Plain sub-LM calls, including `rlm_query` that fell back to a plain call at max depth. */
  llmCalls: number;
  /** Child RLM runs spawned. */
  rlmCalls: number;
  /** Code blocks that raised. */
  errors: number;
  /** Model calls of any kind (turns, default answers, compactions, plain sub-calls). */
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`, served from the providers' prompt caches. */
  cachedInputTokens: number;
  /** Of `outputTokens`, the models' thinking. */
  reasoningTokens: number;
  /** Replies the output-token cap cut off (`finishReason` 'length'). */
  cutReplies: number;
  /** Known costs summed; calls without a price count as 0 (see `unpricedCalls`). */
  costUsd: number;
  unpricedCalls: number;
  /** Calls whose usage was never recorded (see `usageUnknown`): their tokens count as 0, and are not known to be. */
  unknownUsageCalls: number;
  /** Requests the endpoint refused or failed before a model call was answered (the client's retries). */
  retries: number;
  /** Σ model reply latencies (the run's own LM time). */
  lmMs: number;
  /** Σ code block durations (sandbox time, sub-calls made from code included). */
  sandboxMs: number;
  /** Σ latencies of plain sub-calls. */
  subcallLmMs: number;
  /** Largest number of sub-calls made by one block. */
  maxFanOut: number;
  /** Tokens, calls and cost per model name (turns under their run's model, sub-calls under theirs). */
  byModel: UsageByModel;
}

export function emptyTotals(): TrajectoryTotals {
  return {
    runs: 0,
    iterations: 0,
    codeBlocks: 0,
    llmCalls: 0,
    rlmCalls: 0,
    errors: 0,
    modelCalls: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    reasoningTokens: 0,
    cutReplies: 0,
    costUsd: 0,
    unpricedCalls: 0,
    unknownUsageCalls: 0,
    retries: 0,
    lmMs: 0,
    sandboxMs: 0,
    subcallLmMs: 0,
    maxFanOut: 0,
    byModel: {},
  };
}

export function addTotals(into: TrajectoryTotals, t: TrajectoryTotals): TrajectoryTotals {
  into.runs += t.runs;
  into.iterations += t.iterations;
  into.codeBlocks += t.codeBlocks;
  into.llmCalls += t.llmCalls;
  into.rlmCalls += t.rlmCalls;
  into.errors += t.errors;
  into.modelCalls += t.modelCalls;
  into.inputTokens += t.inputTokens;
  into.outputTokens += t.outputTokens;
  into.cachedInputTokens += t.cachedInputTokens;
  into.reasoningTokens += t.reasoningTokens;
  into.cutReplies += t.cutReplies;
  into.costUsd += t.costUsd;
  into.unpricedCalls += t.unpricedCalls;
  into.unknownUsageCalls += t.unknownUsageCalls;
  into.retries += t.retries;
  into.lmMs += t.lmMs;
  into.sandboxMs += t.sandboxMs;
  into.subcallLmMs += t.subcallLmMs;
  into.maxFanOut = Math.max(into.maxFanOut, t.maxFanOut);
  addByModel(into.byModel, t.byModel);
  return into;
}

/**
 * Whether a call's usage was not recorded: no tokens and no price. Every call sends a prompt,
 * so a measured or estimated usage has input tokens; the reference import gives a root reply
 * (whose usage its log never holds) and a call without a `usage_summary` exactly this.
 */
export function usageUnknown(u: Usage): boolean {
  return u.inputTokens === 0 && u.outputTokens === 0 && u.costUsd === null;
}

/** Counts of a total's calls and of those whose price or usage is not known (a TrajectoryTotals). */
type CallKnowledge = Pick<TrajectoryTotals, 'modelCalls' | 'unpricedCalls' | 'unknownUsageCalls'>;

/** No call of these totals had a price: their cost is unknown, not $0. */
export function costUnknown(t: Pick<CallKnowledge, 'modelCalls' | 'unpricedCalls'>): boolean {
  return t.unpricedCalls > 0 && t.unpricedCalls >= t.modelCalls;
}

/** No call of these totals recorded its usage: their tokens are unknown, not 0. */
export function tokensUnknown(t: Pick<CallKnowledge, 'modelCalls' | 'unknownUsageCalls'>): boolean {
  return t.unknownUsageCalls > 0 && t.unknownUsageCalls >= t.modelCalls;
}

function addUsage(t: TrajectoryTotals, usage: Usage, model: string): void {
  addModelUsage(t.byModel, model, usage);
  t.modelCalls++;
  t.inputTokens += usage.inputTokens;
  t.outputTokens += usage.outputTokens;
  t.cachedInputTokens += usage.cachedInputTokens ?? 0;
  t.reasoningTokens += usage.reasoningTokens ?? 0;
  if (usage.costUsd === null) t.unpricedCalls++;
  else t.costUsd += usage.costUsd;
  if (usageUnknown(usage)) t.unknownUsageCalls++;
}

/** Is this sub-call a child RLM run (as opposed to a plain call, leaf fallbacks included)? */
function isChildRunCall(call: CallNode): boolean {
  return call.start.kind === 'rlm' && !call.start.leaf && call.start.childRunId !== null;
}

/** The one call of a run at maxDepth 0 (no REPL): recorded as iteration 0, it is not an iteration. */
export function isDirectCall(it: IterationNode): boolean {
  return it.iteration === DIRECT_CALL_ITERATION;
}

/** Iterations of the turn loop a run recorded (its direct call, if any, is none). */
export function iterationCount(run: RunNode): number {
  let n = 0;
  for (const it of run.iterations) if (!isDirectCall(it)) n++;
  return n;
}

/** The model a run's turns asked for (its `run.start`), else what its replies name. */
function turnModel(state: TrajectoryState, it: IterationNode, replyModel: string): string {
  return state.runs.get(it.runId)?.start?.model ?? replyModel;
}

export function iterationTotals(state: TrajectoryState, it: IterationNode): TrajectoryTotals {
  const t = emptyTotals();
  t.iterations = isDirectCall(it) ? 0 : 1;
  if (it.reply) {
    addUsage(t, it.reply.usage, turnModel(state, it, it.reply.model));
    t.lmMs += it.reply.latencyMs;
    t.retries += it.reply.retries ?? 0;
    if (wasCut(it.reply)) t.cutReplies++;
  }
  for (const r of it.compactionReplies) {
    addUsage(t, r.usage, turnModel(state, it, r.model));
    t.lmMs += r.latencyMs;
    t.retries += r.retries ?? 0;
    if (wasCut(r)) t.cutReplies++;
  }
  for (const b of blocksOf(it)) {
    t.codeBlocks++;
    if (b.end) {
      t.sandboxMs += b.end.durationMs;
      if (b.end.error !== null) t.errors++;
    }
    t.maxFanOut = Math.max(t.maxFanOut, b.calls.length);
    for (const id of b.calls) {
      const call = state.calls.get(id);
      if (!call) continue;
      if (isChildRunCall(call)) {
        t.rlmCalls++;
        // A child run's usage is on its own events; count anything here only if non-zero.
        if (call.end && (call.end.usage.inputTokens > 0 || call.end.usage.outputTokens > 0)) addUsage(t, call.end.usage, call.start.model);
      } else {
        t.llmCalls++;
        if (call.end) {
          addUsage(t, call.end.usage, call.start.model);
          t.subcallLmMs += call.end.latencyMs;
          t.retries += call.end.retries ?? 0;
          if (wasCut(call.end)) t.cutReplies++;
        }
      }
    }
  }
  return t;
}

/** Wall time of one run: its run.end duration, else the span of its events. */
export function runWallMs(run: RunNode): number {
  if (run.end) return run.end.durationMs;
  return Math.max(0, run.lastT - (run.start ? run.start.t : run.firstT));
}

/** TrajectoryTotals of one run's own work (children excluded; `rlmCalls` counts the children it spawned). */
export function runOwnTotals(state: TrajectoryState, run: RunNode): TrajectoryTotals {
  const t = emptyTotals();
  t.runs = 1;
  for (const it of run.iterations) addTotals(t, iterationTotals(state, it));
  return t;
}

/** TrajectoryTotals of a run and all its descendants. */
export function runTotals(state: TrajectoryState, runId: RunId): TrajectoryTotals {
  const t = emptyTotals();
  for (const run of walkRuns(state, runId)) addTotals(t, runOwnTotals(state, run));
  return t;
}

export interface DepthTotals extends TrajectoryTotals {
  depth: number;
}

/** TrajectoryTotals per depth (0 = root runs), over all sessions. */
export function depthTotals(state: TrajectoryState): DepthTotals[] {
  const out: DepthTotals[] = [];
  for (const run of walkRuns(state)) {
    let d = out[run.depth];
    if (!d) {
      d = { ...emptyTotals(), depth: run.depth };
      out[run.depth] = d;
    }
    addTotals(d, runOwnTotals(state, run));
  }
  return out.filter((d): d is DepthTotals => d !== undefined);
}

export interface SessionTotals extends TrajectoryTotals {
  rootRunId: RunId;
  turn: number;
  maxDepth: number;
  wallMs: number;
}

/** One entry per root run (a completion; a multi-turn file has several). */
export function sessionTotals(state: TrajectoryState): SessionTotals[] {
  return state.roots.map((rootId) => {
    const root = state.runs.get(rootId) as RunNode;
    let maxDepth = 0;
    const t = emptyTotals();
    for (const run of walkRuns(state, rootId)) {
      maxDepth = Math.max(maxDepth, run.depth);
      addTotals(t, runOwnTotals(state, run));
    }
    return { ...t, rootRunId: rootId, turn: root.turn, maxDepth, wallMs: runWallMs(root) };
  });
}

/** The summary `rlm-studio stats --json` prints: exactly these keys, all numbers (`costUsd` null when unknown). */
export interface LogStats {
  sessions: number;
  runs: number;
  maxDepth: number;
  iterations: number;
  codeBlocks: number;
  llmCalls: number;
  rlmCalls: number;
  errors: number;
  inputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`, served from the providers' prompt caches. */
  cachedInputTokens: number;
  /** Of `outputTokens`, the models' thinking. */
  reasoningTokens: number;
  /**
   * The priced calls' cost summed; null when calls were made and none recorded a price (an
   * endpoint that reports no price is unknown, not free). `byModel` says which models lack one.
   */
  costUsd: number | null;
  wallMs: number;
  /** Requests the endpoint refused or failed before a model call was answered (the client's retries). */
  retries: number;
  /** Replies the output-token cap cut off. */
  cutReplies: number;
  /** The token, call and cost totals per model name (not a number: left out of `distributions`). */
  byModel: UsageByModel;
}

/** The numeric keys of LogStats, in the order `stats` prints them. */
export const LOG_STATS_NUMBERS = [
  'sessions',
  'runs',
  'maxDepth',
  'iterations',
  'codeBlocks',
  'llmCalls',
  'rlmCalls',
  'errors',
  'inputTokens',
  'outputTokens',
  'cachedInputTokens',
  'reasoningTokens',
  'costUsd',
  'wallMs',
  'retries',
  'cutReplies',
] as const;
export type LogStatsNumber = (typeof LOG_STATS_NUMBERS)[number];

/** Every run of a log summed (what is and is not known of its usage included), its deepest run, and its root runs' wall time. */
export function logTotals(state: TrajectoryState): TrajectoryTotals & { maxDepth: number; wallMs: number } {
  const t = emptyTotals();
  let maxDepth = 0;
  for (const run of walkRuns(state)) {
    maxDepth = Math.max(maxDepth, run.depth);
    addTotals(t, runOwnTotals(state, run));
  }
  let wallMs = 0;
  for (const rootId of state.roots) {
    const root = state.runs.get(rootId);
    if (root) wallMs += runWallMs(root);
  }
  return { ...t, maxDepth, wallMs };
}

export function logStats(state: TrajectoryState): LogStats {
  const { maxDepth, wallMs, ...t } = logTotals(state);
  return {
    sessions: state.roots.length,
    runs: t.runs,
    maxDepth,
    iterations: t.iterations,
    codeBlocks: t.codeBlocks,
    llmCalls: t.llmCalls,
    rlmCalls: t.rlmCalls,
    errors: t.errors,
    inputTokens: t.inputTokens,
    outputTokens: t.outputTokens,
    cachedInputTokens: t.cachedInputTokens,
    reasoningTokens: t.reasoningTokens,
    // Sums of float prices drift in the last digits; micro-dollars are plenty.
    costUsd: costUnknown(t) ? null : Math.round(t.costUsd * 1e6) / 1e6,
    wallMs: Math.round(wallMs),
    retries: t.retries,
    cutReplies: t.cutReplies,
    byModel: roundedByModel(t.byModel, 6),
  };
}

// ---------------------------------------------------------------------------------------
// Critical path

export interface PathStep {
  kind: 'model' | 'block' | 'llm' | 'rlm';
  runId: RunId;
  iteration: number;
  block: number | null;
  callId: CallId | null;
  startT: number;
  endT: number;
  ms: number;
}

/**
 * The chain of work that determined a run's wall time: each iteration's model reply, then
 * each block; inside a block, walking back from its end, the sub-call that finished last,
 * then the one that finished last before that one started, and so on (concurrent calls
 * off the chain are hidden behind the chain). A child run on the chain is expanded into
 * its own critical path. Block time not covered by calls is a 'block' step.
 */
export function criticalPath(state: TrajectoryState, runId: RunId): PathStep[] {
  const run = state.runs.get(runId);
  if (!run) return [];
  const steps: PathStep[] = [];
  for (const it of run.iterations) {
    const reply = it.reply;
    if (reply) {
      steps.push({
        kind: 'model',
        runId,
        iteration: it.iteration,
        block: null,
        callId: null,
        startT: reply.t - reply.latencyMs,
        endT: reply.t,
        ms: reply.latencyMs,
      });
    }
    for (const b of blocksOf(it)) {
      if (!b.end) continue;
      const blockStart = b.start ? b.start.t : b.end.t - b.end.durationMs;
      const chain: CallNode[] = [];
      let cursor = b.end.t;
      const calls = b.calls.map((id) => state.calls.get(id)).filter((c): c is CallNode => c !== undefined && c.end !== null);
      for (;;) {
        let best: CallNode | null = null;
        for (const c of calls) {
          const end = (c.end as NonNullable<CallNode['end']>).t;
          if (end <= cursor && c.start.t >= blockStart && (!best || end > (best.end as NonNullable<CallNode['end']>).t)) best = c;
        }
        if (!best) break;
        chain.unshift(best);
        cursor = best.start.t;
        calls.splice(calls.indexOf(best), 1);
      }
      let covered = 0;
      const inner: PathStep[] = [];
      for (const c of chain) {
        const end = c.end as NonNullable<CallNode['end']>;
        const ms = end.t - c.start.t;
        covered += ms;
        if (isChildRunCall(c) && c.start.childRunId) inner.push(...criticalPath(state, c.start.childRunId));
        else
          inner.push({
            kind: isChildRunCall(c) ? 'rlm' : 'llm',
            runId,
            iteration: it.iteration,
            block: b.block,
            callId: c.id,
            startT: c.start.t,
            endT: end.t,
            ms,
          });
      }
      const own = Math.max(0, b.end.durationMs - covered);
      steps.push({
        kind: 'block',
        runId,
        iteration: it.iteration,
        block: b.block,
        callId: null,
        startT: blockStart,
        endT: b.end.t,
        ms: own,
      });
      steps.push(...inner);
    }
  }
  return steps;
}

// ---------------------------------------------------------------------------------------
// Distributions across many sessions

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

// ---------------------------------------------------------------------------------------
// Streaming stats

/**
 * The same numbers as `logStats(reduceEvents(events))`, folded without keeping any text:
 * for `stats` on files far larger than memory.
 */
export class StatsAccumulator {
  private runs = new Map<
    string,
    { root: boolean; depth: number; firstT: number; lastT: number; startT: number | null; durationMs: number | null }
  >();
  private iterations = new Set<string>();
  private blocks = new Set<string>();
  private callIsChild = new Map<string, boolean>();
  /** Per call still open: the model it asked for (its usage arrives on subcall.end). */
  private callModel = new Map<string, string>();
  /** Per run: the model its turns asked for. */
  private runModel = new Map<string, string>();
  private counts = {
    llmCalls: 0,
    rlmCalls: 0,
    errors: 0,
    inputTokens: 0,
    outputTokens: 0,
    cachedInputTokens: 0,
    reasoningTokens: 0,
    costUsd: 0,
    retries: 0,
    cutReplies: 0,
    modelCalls: 0,
    unpricedCalls: 0,
  };
  private byModel: UsageByModel = {};

  push(e: TrajectoryEvent): void {
    let run = this.runs.get(e.runId);
    if (!run) {
      run = { root: e.parentRunId === null, depth: e.depth, firstT: e.t, lastT: e.t, startT: null, durationMs: null };
      this.runs.set(e.runId, run);
    } else if (e.type !== 'run.start') {
      if (e.t < run.firstT) run.firstT = e.t;
      if (e.t > run.lastT) run.lastT = e.t;
    }
    const it = (n: number): string => `${e.runId}\u0000${n}`;
    const add = (u: Usage, model: string): void => {
      addModelUsage(this.byModel, model, u);
      this.counts.inputTokens += u.inputTokens;
      this.counts.outputTokens += u.outputTokens;
      this.counts.cachedInputTokens += u.cachedInputTokens ?? 0;
      this.counts.reasoningTokens += u.reasoningTokens ?? 0;
      this.counts.costUsd += u.costUsd ?? 0;
      this.counts.modelCalls++;
      if (u.costUsd === null) this.counts.unpricedCalls++;
    };
    switch (e.type) {
      case 'run.start':
        this.runModel.set(e.runId, e.model);
        if (run.startT === null) run.startT = e.t;
        if (e.t < run.firstT) run.firstT = e.t;
        return;
      case 'run.end':
        run.durationMs = e.durationMs;
        return;
      case 'iteration.start':
      case 'iteration.end':
      case 'compaction':
        this.iterations.add(it(e.iteration));
        return;
      case 'model.error':
        if (e.purpose !== 'direct') this.iterations.add(it(e.iteration));
        return;
      case 'model.reply':
        if (e.purpose !== 'direct') this.iterations.add(it(e.iteration));
        add(e.usage, this.runModel.get(e.runId) ?? e.model);
        this.counts.retries += e.retries ?? 0;
        if (wasCut(e)) this.counts.cutReplies++;
        return;
      case 'block.start':
      case 'repl.reset':
        this.iterations.add(it(e.iteration));
        this.blocks.add(`${it(e.iteration)}\u0000${e.block}`);
        return;
      case 'block.end':
        this.iterations.add(it(e.iteration));
        this.blocks.add(`${it(e.iteration)}\u0000${e.block}`);
        if (e.error !== null) this.counts.errors++;
        return;
      case 'subcall.start': {
        if (this.callIsChild.has(e.callId)) return;
        this.iterations.add(it(e.iteration));
        this.blocks.add(`${it(e.iteration)}\u0000${e.block}`);
        const child = e.kind === 'rlm' && !e.leaf && e.childRunId !== null;
        this.callIsChild.set(e.callId, child);
        this.callModel.set(e.callId, e.model);
        if (child) this.counts.rlmCalls++;
        else this.counts.llmCalls++;
        return;
      }
      case 'subcall.end': {
        const child = this.callIsChild.get(e.callId);
        if (child === undefined) return;
        const model = this.callModel.get(e.callId) ?? 'unknown';
        this.callModel.delete(e.callId);
        if (!child || e.usage.inputTokens > 0 || e.usage.outputTokens > 0) add(e.usage, model);
        this.counts.retries += e.retries ?? 0;
        if (!child && wasCut(e)) this.counts.cutReplies++;
        return;
      }
      case 'limit':
        return;
      default:
        assertNever(e, 'event');
    }
  }

  result(): LogStats {
    let sessions = 0;
    let maxDepth = 0;
    let wallMs = 0;
    for (const r of this.runs.values()) {
      maxDepth = Math.max(maxDepth, r.depth);
      if (!r.root) continue;
      sessions++;
      wallMs += r.durationMs ?? Math.max(0, r.lastT - (r.startT ?? r.firstT));
    }
    return {
      sessions,
      runs: this.runs.size,
      maxDepth,
      iterations: this.iterations.size,
      codeBlocks: this.blocks.size,
      llmCalls: this.counts.llmCalls,
      rlmCalls: this.counts.rlmCalls,
      errors: this.counts.errors,
      inputTokens: this.counts.inputTokens,
      outputTokens: this.counts.outputTokens,
      cachedInputTokens: this.counts.cachedInputTokens,
      reasoningTokens: this.counts.reasoningTokens,
      costUsd: costUnknown(this.counts) ? null : Math.round(this.counts.costUsd * 1e6) / 1e6,
      wallMs: Math.round(wallMs),
      retries: this.counts.retries,
      cutReplies: this.counts.cutReplies,
      byModel: roundedByModel(this.byModel, 6),
    };
  }
}
