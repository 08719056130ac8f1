// Every model request of a session as it went out: the messages sent and the text that came
// back. The events record a run's history as deltas (the messages a run starts with, what
// each iteration appends, what a compaction replaces it with, the messages sent once and not
// kept); folding them in order gives the exact request of each call. Plain sub-calls are
// one-message requests. Used to export training data and sub-call datasets.
import type { CallId, ChatMessage, ModelCallPurpose, ReplyReasoning, RunId, SubcallKind, TrajectoryEvent, Usage } from '../events.ts';

/** A run's own call (as `model.reply` names it), or a plain sub-call. */
type CallPurpose = ModelCallPurpose | 'subcall';

export interface ModelCall {
  /** The run whose model answered: for a plain sub-call, the run that made it. */
  runId: RunId;
  /** The root run of the trajectory (one completion of a session) this call belongs to. */
  rootRunId: RunId;
  /** Depth of the model that answered: a run's own calls at its depth, its plain sub-calls one deeper. */
  depth: number;
  turn: number;
  iteration: number;
  purpose: CallPurpose;
  model: string;
  messages: ChatMessage[];
  reply: string;
  /** The model's thinking, apart from `reply` (with `inText`, also still in it); null when none was recorded. */
  reasoning: ReplyReasoning | null;
  usage: Usage;
  /** Set for plain sub-calls. */
  callId: CallId | null;
}

export interface SubcallRecord {
  runId: RunId;
  rootRunId: RunId;
  /** Depth of the run that made the call. */
  depth: number;
  turn: number;
  iteration: number;
  block: number;
  callId: CallId;
  kind: SubcallKind;
  leaf: boolean;
  childRunId: RunId | null;
  batch: { batchId: string; index: number; size: number } | null;
  model: string;
  prompt: string;
  response: string;
  error: string | null;
  /** A plain call's own usage; for a child run, the child's whole usage (its run.end). */
  usage: Usage;
  latencyMs: number;
}

/** How a root run of the trajectory ended, for selecting trajectories. */
export interface TrajectoryEnd {
  rootRunId: RunId;
  turn: number;
  stopReason: string;
  iterations: number;
  answer: string | null;
}

interface RunTrack {
  rootRunId: RunId;
  depth: number;
  turn: number;
  history: ChatMessage[];
}

interface OpenCall {
  start: Extract<TrajectoryEvent, { type: 'subcall.start' }>;
  run: RunTrack;
}

/**
 * Folds events (one session's, in `seq` order) and reports each model call, each finished
 * sub-call and each ended root run through the callbacks, as soon as it is known.
 */
export class ModelCallFolder {
  private readonly runs = new Map<RunId, RunTrack>();
  private readonly open = new Map<CallId, OpenCall>();
  /** Child-run sub-calls wait for the child's run.end to carry its usage. */
  private readonly childCalls = new Map<RunId, SubcallRecord>();
  /** Ended runs' whole usage, for the sub-call that spawned each. */
  private readonly ended = new Map<RunId, Usage>();
  private readonly sink: {
    call?: (c: ModelCall) => void;
    subcall?: (s: SubcallRecord) => void;
    rootEnd?: (e: TrajectoryEnd) => void;
  };

  constructor(sink: ModelCallFolder['sink']) {
    this.sink = sink;
  }

  push(e: TrajectoryEvent): void {
    switch (e.type) {
      case 'run.start': {
        const parent = e.parentRunId === null ? undefined : this.runs.get(e.parentRunId);
        this.runs.set(e.runId, {
          rootRunId: parent?.rootRunId ?? e.runId,
          depth: e.depth,
          turn: e.turn,
          history: [...e.messages],
        });
        return;
      }
      case 'iteration.start':
      case 'iteration.end': {
        this.runs.get(e.runId)?.history.push(...e.appended);
        return;
      }
      case 'compaction': {
        const run = this.runs.get(e.runId);
        if (run) run.history = [...e.messages];
        return;
      }
      case 'model.reply': {
        const run = this.runs.get(e.runId);
        if (!run) return;
        this.sink.call?.({
          runId: e.runId,
          rootRunId: run.rootRunId,
          depth: run.depth,
          turn: run.turn,
          iteration: e.iteration,
          purpose: e.purpose,
          model: e.model,
          messages: [...run.history, ...(e.transient ?? [])],
          reply: e.text,
          reasoning: e.reasoning ?? null,
          usage: e.usage,
          callId: null,
        });
        return;
      }
      case 'subcall.start': {
        const run = this.runs.get(e.runId);
        if (run) this.open.set(e.callId, { start: e, run });
        return;
      }
      case 'subcall.end': {
        const open = this.open.get(e.callId);
        if (!open) return;
        this.open.delete(e.callId);
        const { start, run } = open;
        const record: SubcallRecord = {
          runId: start.runId,
          rootRunId: run.rootRunId,
          depth: run.depth,
          turn: run.turn,
          iteration: start.iteration,
          block: start.block,
          callId: start.callId,
          kind: start.kind,
          leaf: start.leaf,
          childRunId: start.childRunId,
          batch: start.batch,
          model: start.model,
          prompt: start.prompt,
          response: e.response,
          error: e.error,
          usage: e.usage,
          latencyMs: e.latencyMs,
        };
        if (start.childRunId !== null && this.runs.has(start.childRunId) && !this.ended.has(start.childRunId)) {
          this.childCalls.set(start.childRunId, record);
        } else {
          const childUsage = start.childRunId === null ? undefined : this.ended.get(start.childRunId);
          this.sink.subcall?.(childUsage ? { ...record, usage: childUsage } : record);
        }
        if (start.childRunId === null && e.error === null) {
          this.sink.call?.({
            runId: start.runId,
            rootRunId: run.rootRunId,
            depth: run.depth + 1,
            turn: run.turn,
            iteration: start.iteration,
            purpose: 'subcall',
            model: start.model,
            messages: [{ role: 'user', content: start.prompt }],
            reply: e.response,
            reasoning: e.reasoning ?? null,
            usage: e.usage,
            callId: start.callId,
          });
        }
        return;
      }
      case 'run.end': {
        const usage: Usage = { inputTokens: e.usage.inputTokens, outputTokens: e.usage.outputTokens, costUsd: e.usage.costUsd };
        this.ended.set(e.runId, usage);
        const waiting = this.childCalls.get(e.runId);
        if (waiting) {
          this.childCalls.delete(e.runId);
          this.sink.subcall?.({ ...waiting, usage });
        }
        if (e.parentRunId === null) {
          const run = this.runs.get(e.runId);
          this.sink.rootEnd?.({
            rootRunId: e.runId,
            turn: run?.turn ?? 0,
            stopReason: e.stopReason,
            iterations: e.iterations,
            answer: e.answer,
          });
        }
        return;
      }
      case 'model.error':
      case 'block.start':
      case 'block.end':
      case 'repl.reset':
      case 'limit':
        return;
    }
  }

  /** Reports sub-calls still waiting for a child's end (a log cut short). */
  flush(): void {
    for (const record of this.childCalls.values()) this.sink.subcall?.(record);
    this.childCalls.clear();
  }
}
