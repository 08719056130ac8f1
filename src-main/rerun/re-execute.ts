// Re-executes a recorded session: the recorded replies and sub-call results are served again,
// every recorded code block runs again in a fresh REPL of the log's language (one for all the
// turns of a multi-turn session), and each block's output is compared with the recorded one.
// Child runs (`rlm_query`) re-execute in REPLs of their own when the parent's code spawns them
// again. The re-execution is itself a trajectory: the recorded events, with each block.end
// replaced by the new output and its comparison (`rerun`), go to the sink in the order they
// happen.
import type { BlockRerun, CallId, ComparedOutput, EventDraft, EventSink, RunId, TrajectoryEvent } from '../../src-shared/events.ts';
import { asCallId } from '../../src-shared/events.ts';
import { blocksOf } from '../../src-shared/trajectory/reducer.ts';
import type { CallNode, IterationNode, RunNode, TrajectoryState } from '../../src-shared/trajectory/types.ts';
import { blockEndFields } from '../engine/block-events.ts';
import { mapBounded } from '../engine/concurrency.ts';
import type { ReplFactory } from '../engine/conversation.ts';
import type { CallSite, Repl, ReplOptions, SandboxValue, SubcallBridge } from '../sandbox/types.ts';
import { compareBlock, recordedOutput, type ComparisonTerms } from './compare.ts';
import { RerunInputError } from './errors.ts';
import { RecordedCalls, type CallShape } from './recorded-calls.ts';
import { turnHistory } from './turn-history.ts';

export interface BlockComparison {
  run: string;
  iteration: number;
  block: number;
  same: boolean;
  recorded: ComparedOutput;
  /** Null for a recorded block that was not reached again (its run was not spawned again). */
  new: ComparedOutput | null;
}

export interface ReexecuteOptions {
  state: TrajectoryState;
  terms: ComparisonTerms;
  /**
   * Each turn's context (root run), as loaded from the user's files: one per turn, or one for
   * every turn. The turns of a multi-turn session share one REPL, as they did when recorded.
   */
  contexts: SandboxValue[];
  createRepl: ReplFactory;
  /** Everything but the bridge: tools and limits. */
  replOptions: Omit<ReplOptions, 'bridge'>;
  sink: EventSink;
  onBlock?: (c: BlockComparison) => void;
  signal?: AbortSignal;
}

export interface ReexecuteResult {
  blocks: number;
  same: number;
  different: BlockComparison[];
}

/** The root runs (one per turn of a session) in the order they started. */
export function rootRuns(state: TrajectoryState): RunNode[] {
  return state.roots.map((id) => state.runs.get(id)).filter((r): r is RunNode => r !== undefined);
}

/** One context for every turn, or one per turn; anything else is an error that says so. */
export function checkContextCount(turns: number, contexts: number): void {
  if (contexts === 1 || contexts === turns) return;
  throw new RerunInputError(
    turns === 1
      ? `the log holds one completion; give one context, not ${contexts}`
      : `the log holds ${turns} turns of a multi-turn session; give one context for all of them or one per turn, not ${contexts}`,
  );
}

export function contextOfTurn(contexts: SandboxValue[], turn: number): SandboxValue {
  return (contexts.length === 1 ? contexts[0] : contexts[turn]) as SandboxValue;
}

function draftOf(e: TrajectoryEvent): EventDraft {
  const { v: _v, seq: _seq, t: _t, ts: _ts, ...rest } = e;
  return rest;
}

class ReexecutionAborted extends Error {
  override name = 'ReexecutionAborted';
}

export async function reexecute(o: ReexecuteOptions): Promise<ReexecuteResult> {
  return new Reexecution(o).run();
}

class Reexecution {
  private readonly o: ReexecuteOptions;
  private readonly result: ReexecuteResult = { blocks: 0, same: 0, different: [] };
  private readonly reached = new Set<string>();
  private callCounter = 0;
  private batchCounter = 0;

  constructor(o: ReexecuteOptions) {
    this.o = o;
  }

  async run(): Promise<ReexecuteResult> {
    const roots = rootRuns(this.o.state);
    if (roots.length === 0) throw new RerunInputError('the log has no run to re-execute');
    checkContextCount(roots.length, this.o.contexts.length);
    if (roots.length === 1) await this.runWithRepl(roots[0]!, this.o.contexts[0]!);
    else await this.turns(roots);
    this.reportUnreached();
    return this.result;
  }

  /**
   * A multi-turn session: one REPL for every turn, as recorded. Turn N adds `context_N`, and
   * each finished turn leaves its `history_N` (rebuilt from its events) for the next.
   */
  private async turns(roots: RunNode[]): Promise<void> {
    const bridges = new Map<RunId, SubcallBridge>();
    let current: RunNode = roots[0]!;
    const bridge: SubcallBridge = {
      llmQuery: (p, m, s) => bridges.get(current.id)!.llmQuery(p, m, s),
      llmQueryBatched: (p, m, s) => bridges.get(current.id)!.llmQueryBatched(p, m, s),
      rlmQuery: (p, m, s) => bridges.get(current.id)!.rlmQuery(p, m, s),
      rlmQueryBatched: (p, m, s) => bridges.get(current.id)!.rlmQueryBatched(p, m, s),
    };
    const repl = await this.o.createRepl({ ...this.o.replOptions, bridge });
    try {
      let histories = 0;
      for (const [turn, root] of roots.entries()) {
        this.checkAbort();
        current = root;
        bridges.set(root.id, this.bridgeFor(root, new RecordedCalls(this.o.state, root, this.o.terms)));
        await repl.addContext(turn, contextOfTurn(this.o.contexts, turn));
        await this.replay(root, repl);
        const history = turnHistory(root, this.o.terms);
        if (history !== null && turn < roots.length - 1) await repl.addHistory(histories++, history as unknown as SandboxValue);
      }
    } finally {
      repl.dispose();
    }
  }

  private emit(e: TrajectoryEvent): void {
    this.o.sink.emit(draftOf(e));
  }

  private checkAbort(): void {
    if (this.o.signal?.aborted) throw new ReexecutionAborted('the re-execution was cancelled');
  }

  private async runWithRepl(run: RunNode, context: SandboxValue): Promise<void> {
    const calls = new RecordedCalls(this.o.state, run, this.o.terms);
    const bridge = this.bridgeFor(run, calls);
    const repl = await this.o.createRepl({ ...this.o.replOptions, bridge });
    try {
      await repl.addContext(0, context);
      await this.replay(run, repl);
    } finally {
      repl.dispose();
    }
  }

  /** The run's recorded events in order, its blocks executed again. */
  private async replay(run: RunNode, repl: Repl): Promise<void> {
    if (run.start) this.emit(run.start);
    let limitsShown = false;
    for (const it of run.iterations) {
      this.checkAbort();
      if (it.reply?.purpose === 'final_answer' && !limitsShown) {
        limitsShown = true;
        for (const l of run.limits) this.emit(l);
      }
      await this.iteration(run, it, repl);
    }
    if (!limitsShown) for (const l of run.limits) this.emit(l);
    if (run.end) this.emit(run.end);
  }

  private async iteration(run: RunNode, it: IterationNode, repl: Repl): Promise<void> {
    for (const r of it.compactionReplies) this.emit(r);
    if (it.compaction) this.emit(it.compaction);
    if (it.start) this.emit(it.start);
    for (const m of it.modelErrors) this.emit(m);
    if (it.reply) this.emit(it.reply);
    for (const b of blocksOf(it)) {
      if (!b.start) continue;
      this.checkAbort();
      this.emit(b.start);
      const res = await repl.execute(b.start.code, { iteration: b.iteration, block: b.block });
      const rerun: BlockRerun = compareBlock(b.end, res, this.o.terms);
      const envelope = { runId: run.id, parentRunId: run.parentRunId, depth: run.depth };
      if (res.replReset)
        this.o.sink.emit({ type: 'repl.reset', ...envelope, iteration: b.iteration, block: b.block, reason: res.replReset });
      this.o.sink.emit({
        type: 'block.end',
        ...envelope,
        iteration: b.iteration,
        block: b.block,
        ...blockEndFields(res),
        rerun,
      });
      this.record({ run: run.id, iteration: b.iteration, block: b.block, same: rerun.same, recorded: rerun.recorded, new: rerun.new });
    }
    if (it.end) this.emit(it.end);
  }

  private record(c: BlockComparison): void {
    this.reached.add(`${c.run}|${c.iteration}|${c.block}`);
    this.result.blocks++;
    if (c.same) this.result.same++;
    else this.result.different.push(c);
    this.o.onBlock?.(c);
  }

  /** Recorded blocks of runs the new execution never spawned are differences too. */
  private reportUnreached(): void {
    for (const run of this.o.state.runs.values()) {
      for (const it of run.iterations) {
        for (const b of blocksOf(it)) {
          if (!b.start || this.reached.has(`${run.id}|${b.iteration}|${b.block}`)) continue;
          this.record({
            run: run.id,
            iteration: b.iteration,
            block: b.block,
            same: false,
            recorded: recordedOutput(b.end, this.o.terms),
            new: null,
          });
        }
      }
    }
  }

  // ---- sub-calls: served from the record ----

  private bridgeFor(run: RunNode, calls: RecordedCalls): SubcallBridge {
    const limits = run.start?.limits;
    const concurrency = Math.max(1, limits?.maxConcurrencyRlm ?? limits?.maxConcurrency ?? 4);
    return {
      llmQuery: (prompt, _model, site) => this.plain(run, calls, prompt, site, 'llm', null),
      llmQueryBatched: (prompts, _model, site) => {
        const batchId = `rerun-batch-${this.batchCounter++}`;
        return Promise.all(
          prompts.map((p, index) => this.plain(run, calls, p, site, 'llm_batched', { batchId, index, size: prompts.length })),
        );
      },
      rlmQuery: (prompt, _model, site) => this.rlm(run, calls, prompt, site, null),
      rlmQueryBatched: (prompts, _model, site) => {
        const batchId = `rerun-batch-${this.batchCounter++}`;
        return mapBounded(prompts, concurrency, (p, index) => this.rlm(run, calls, p, site, { batchId, index, size: prompts.length }));
      },
    };
  }

  private async plain(
    run: RunNode,
    calls: RecordedCalls,
    prompt: string,
    site: CallSite,
    shape: CallShape,
    batch: { batchId: string; index: number; size: number } | null,
  ): Promise<string> {
    const call = calls.take(site, prompt, false);
    if (call) return this.served(call);
    const response = calls.unrecorded(site, shape);
    const kind = shape.startsWith('rlm') ? 'rlm' : 'llm';
    const callId: CallId = asCallId(`rerun-call-${this.callCounter++}`);
    const envelope = { runId: run.id, parentRunId: run.parentRunId, depth: run.depth };
    this.o.sink.emit({
      type: 'subcall.start',
      ...envelope,
      callId,
      iteration: site.iteration,
      block: site.block,
      kind,
      leaf: kind === 'rlm',
      prompt,
      model: run.start?.subModel ?? run.start?.model ?? 'unknown',
      batch,
      childRunId: null,
    });
    this.o.sink.emit({
      type: 'subcall.end',
      ...envelope,
      callId,
      response,
      error: response.replace(/^Error: /, ''),
      usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
      latencyMs: 0,
    });
    return response;
  }

  private served(call: CallNode): string {
    this.emit(call.start);
    if (call.end) this.emit(call.end);
    return call.end?.response ?? '';
  }

  private async rlm(
    run: RunNode,
    calls: RecordedCalls,
    prompt: string,
    site: CallSite,
    batch: { batchId: string; index: number; size: number } | null,
  ): Promise<string> {
    const call = calls.take(site, prompt, true);
    const child = call?.start.childRunId ? this.o.state.runs.get(call.start.childRunId) : undefined;
    if (!call || !child) return this.plain(run, calls, prompt, site, batch ? 'rlm_batched' : 'rlm', batch);
    this.emit(call.start);
    await this.runWithRepl(child, prompt);
    if (call.end) this.emit(call.end);
    return call.end?.response ?? '';
  }
}
