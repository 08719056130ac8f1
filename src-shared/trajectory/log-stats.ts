// A log's figures for `stats` and the policy views: from a folded trajectory (`logStats`), or
// folded from its events without keeping any text (`StatsAccumulator`).
import { assertNever, type TrajectoryEvent, type Usage, wasCut } from '../events.ts';
import { addModelUsage, roundedByModel, type UsageByModel } from './by-model.ts';
import { walkRuns } from './reducer.ts';
import { addTotals, costUnknown, emptyTotals, runOwnTotals, runWallMs, type TrajectoryTotals } from './totals.ts';
import type { TrajectoryState } from './types.ts';

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
