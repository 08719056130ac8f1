// TrajectoryTotals over the run tree: per iteration, run, depth and session. Every model call's
// usage is counted exactly once: turn/final/compaction replies on `model.reply`, plain sub-calls
// on their `subcall.end` (a child run's subcall.end carries zero; the child's own replies count).
import { DIRECT_CALL_ITERATION, type RunId, type Usage, wasCut } from '../events.ts';
import { addByModel, addModelUsage, type UsageByModel } from './by-model.ts';
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
export function isChildRunCall(call: CallNode): boolean {
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
