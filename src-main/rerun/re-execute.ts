// Re-executes a recorded session: the recorded replies and sub-call results are served again,
// every recorded code block runs again in a fresh REPL of the log's language, and each
// block's output is compared with the recorded one. Child runs (`rlm_query`) re-execute in
// REPLs of their own when the parent's code spawns them again. The re-execution is itself a
// trajectory: the recorded events, with each block.end replaced by the new output and its
// comparison (`rerun`), go to the sink in the order they happen.
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
  /** The root run's context, as loaded from the user's file. */
  context: SandboxValue;
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

function draftOf(e: TrajectoryEvent): EventDraft {
  const { v: _v, seq: _seq, t: _t, ts: _ts, ...rest } = e;
  return rest as EventDraft;
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
    const roots = this.o.state.roots.map((id) => this.o.state.runs.get(id)).filter((r): r is RunNode => r !== undefined);
    const root = roots[0];
    if (!root) throw new RerunInputError('the log has no run to re-execute');
    if (roots.length > 1) {
      throw new RerunInputError(
        `the log holds ${roots.length} completions of a multi-turn session; rerun re-executes logs of one completion`,
      );
    }
    await this.runWithRepl(root, this.o.context);
    this.reportUnreached();
    return this.result;
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
    const child = call?.start.childRunId ? this.o.state.runs.get(call.start.childRunId as RunId) : undefined;
    if (!call || !child) return this.plain(run, calls, prompt, site, batch ? 'rlm_batched' : 'rlm', batch);
    this.emit(call.start);
    await this.runWithRepl(child, prompt);
    if (call.end) this.emit(call.end);
    return call.end?.response ?? '';
  }
}
