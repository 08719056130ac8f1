// Writes one run's events from the reference's iteration entries (what the format leaves
// unsaid is filled in as rlm-python-import.ts describes), stamping them in order.
import {
  EVENT_SCHEMA_VERSION,
  asCallId,
  asRunId,
  type CallId,
  type ChatMessage,
  type ContextMeta,
  type EventDraft,
  type Limits,
  type PromptPackRef,
  type ReplLanguage,
  type RunId,
  type TrajectoryEvent,
  type Usage,
} from '../events.ts';
import { estimateTokens } from '../tokens.ts';
import { type Obj, type RlmPythonMetadata } from './rlm-python-format.ts';
import {
  asAnswer,
  asArr,
  asNum,
  asObj,
  asStr,
  commonPrefix,
  contextFromMessages,
  type Entry,
  errorFromStderr,
  isDefaultAnswer,
  isObj,
  localsField,
  queryFromMessages,
  readEntry,
  readMetadata,
  sameMessage,
  usageOf,
  variablesOf,
} from './rlm-python-entries.ts';

/** Stamps drafts with v/seq/t/ts; `t` never goes backwards. */
export class Stamper {
  private seq = 0;
  private lastT = 0;
  epochMs: number | null = null;

  /** The last `ts` made, by its millisecond (neighbouring events often share one). */
  private lastTs = { ms: Number.NaN, text: '' };

  /** Stamps `draft` itself (every draft is a fresh object): the fields go after its own, as a spread would put them. */
  stamp(draft: EventDraft, atEpochMs: number | null): TrajectoryEvent {
    if (this.epochMs === null) this.epochMs = atEpochMs ?? 0;
    const want = atEpochMs === null ? this.lastT : atEpochMs - this.epochMs;
    const t = Math.max(this.lastT, Math.round(want * 1000) / 1000);
    this.lastT = t;
    const ms = Math.round(this.epochMs + t);
    if (ms !== this.lastTs.ms) this.lastTs = { ms, text: new Date(ms).toISOString() };
    return Object.assign<EventDraft, Pick<TrajectoryEvent, 'v' | 'seq' | 't' | 'ts'>>(draft, {
      v: EVENT_SCHEMA_VERSION,
      seq: this.seq++,
      t,
      ts: this.lastTs.text,
    });
  }

  get now(): number {
    return (this.epochMs ?? 0) + this.lastT;
  }
}

export interface RunInfo {
  runId: RunId;
  parentRunId: RunId | null;
  depth: number;
  turn: number;
  model: string;
  limits: Limits;
  spawnedBy: { runId: RunId; iteration: number; block: number; callId: CallId } | null;
  query: string | null;
  context: ContextMeta | null;
  /** Usage to apportion over the run's replies (children); null = unknown (roots). */
  usage: (Usage & { calls: number }) | null;
  replies: number;
  repl: ReplLanguage;
  /** The prompt pack the run read, when the log names it (our export does). */
  prompts: PromptPackRef | null;
}

type Out = (e: TrajectoryEvent) => void;
type Warn = (message: string) => void;

/**
 * Writes one run's events from its entries. Entries arrive one by one (a root run is
 * streamed line by line); each is written once the next is known, because the next
 * prompt tells what the history gained after this one.
 */
export class RunWriter {
  private readonly info: RunInfo;
  private readonly stamper: Stamper;
  private readonly out: Out;
  private readonly warn: Warn;
  private pending: { entry: Entry; sent: ChatMessage[] } | null = null;
  private started = false;
  private startMs: number | null = null;
  private lastEndMs: number | null = null;
  private answer: string | null = null;
  private sawDefault = false;
  private iterations = 0;
  private replyIndex = 0;
  /** The log sends turn prompts without keeping them (the paper-era reference). */
  private paperEra = false;
  /** Usage of this run's replies and plain calls plus all descendants (for run.end). */
  readonly total = { inputTokens: 0, outputTokens: 0, costUsd: null as number | null, calls: 0 };

  constructor(info: RunInfo, stamper: Stamper, out: Out, warn: Warn) {
    this.info = info;
    this.stamper = stamper;
    this.out = out;
    this.warn = warn;
  }

  private envelope(): { runId: RunId; parentRunId: RunId | null; depth: number } {
    return { runId: this.info.runId, parentRunId: this.info.parentRunId, depth: this.info.depth };
  }

  private emit(draft: EventDraft, atMs: number | null): void {
    this.out(this.stamper.stamp(draft, atMs));
  }

  private addUsage(u: Usage, calls = 1): void {
    this.total.inputTokens += u.inputTokens;
    this.total.outputTokens += u.outputTokens;
    if (u.costUsd !== null) this.total.costUsd = (this.total.costUsd ?? 0) + u.costUsd;
    this.total.calls += calls;
  }

  add(entry: Entry, sent: ChatMessage[]): void {
    if (this.pending) this.write(this.pending.entry, this.pending.sent, sent);
    else this.begin(entry, sent);
    this.pending = { entry, sent };
  }

  private begin(entry: Entry, sent: ChatMessage[]): void {
    this.started = true;
    const dur = (entry.iterationTime ?? 0) * 1000;
    this.startMs = entry.timestampMs === null ? null : entry.timestampMs - dur;
    const initial = sent.slice(0, Math.max(0, sent.length - 1));
    this.emitRunStart(initial, this.startMs);
    this.history = initial;
  }

  /** run.start from the messages the run began with (none for an empty child trajectory). */
  private emitRunStart(initial: ChatMessage[], atMs: number | null): void {
    this.emit(
      {
        type: 'run.start',
        ...this.envelope(),
        spawnedBy: this.info.spawnedBy,
        turn: this.info.turn,
        model: this.info.model,
        subModel: null,
        query: this.info.query ?? queryFromMessages(initial),
        context: this.info.context ?? contextFromMessages(initial),
        limits: this.info.limits,
        messages: initial,
        tools: [],
        repl: this.info.repl,
        ...(this.info.prompts ? { prompts: this.info.prompts } : {}),
      },
      atMs,
    );
  }

  private history: ChatMessage[] = [];

  /** Usage of reply i of n, from the run's apportioned total (or the export extension). */
  private replyUsage(entry: Entry): Usage {
    const ext = entry.studio ? asObj(entry.studio['usage']) : null;
    if (ext && asNum(ext['inputTokens']) !== null) {
      return { inputTokens: asNum(ext['inputTokens']) ?? 0, outputTokens: asNum(ext['outputTokens']) ?? 0, costUsd: asNum(ext['costUsd']) };
    }
    const u = this.info.usage;
    const i = this.replyIndex++;
    if (!u) return { inputTokens: 0, outputTokens: 0, costUsd: null };
    const n = Math.max(1, this.info.replies);
    const share = (x: number): number => Math.floor(x / n) + (i < x % n ? 1 : 0);
    return { inputTokens: share(u.inputTokens), outputTokens: share(u.outputTokens), costUsd: u.costUsd === null ? null : u.costUsd / n };
  }

  /** Writes `entry`; `next` is the prompt sent with the following entry, if any. */
  private write(entry: Entry, sent: ChatMessage[], next: ChatMessage[] | null): void {
    const k = entry.iteration;
    const endMs = entry.timestampMs;
    if (isDefaultAnswer(entry)) {
      // Mirrors the engine: a limit event, then one 'final_answer' reply, no iteration events.
      this.sawDefault = true;
      const startMs = this.lastEndMs ?? endMs;
      const extLatency = entry.studio ? asNum(entry.studio['latencyMs']) : null;
      const latency = extLatency ?? (endMs !== null && startMs !== null ? Math.max(0, endMs - startMs) : 0);
      this.emit(
        {
          type: 'limit',
          ...this.envelope(),
          limit: 'max_iterations',
          message: `no answer after ${this.info.limits.maxIterations} iterations; asked the model for a final answer`,
        },
        startMs,
      );
      const usage = this.replyUsage(entry);
      this.addUsage(usage);
      // The request is the last message sent with this call only (the reference sends it as role assistant).
      const request = sent.at(-1);
      const transient = request && request.role !== 'system' ? { transient: [request] } : {};
      this.emit(
        {
          type: 'model.reply',
          ...this.envelope(),
          iteration: k,
          purpose: 'final_answer',
          model: this.info.model,
          text: entry.response,
          usage,
          latencyMs: latency,
          ...transient,
        },
        endMs,
      );
      this.answer = entry.finalAnswer ?? entry.response;
      this.lastEndMs = endMs;
      return;
    }
    this.iterations++;
    const durMs = (entry.iterationTime ?? 0) * 1000;
    const startMs = endMs === null ? this.lastEndMs : endMs - durMs;
    let endAppended: ChatMessage[] = [];
    let compaction: ChatMessage[] | null = null;
    // Paper era: the turn prompt was sent with this call but not kept (seen from the next
    // entry's prompt; the last entry of such a log follows the earlier ones).
    let transientTurn = next === null && this.paperEra;
    if (next) {
      const c = commonPrefix(sent, next);
      const tail = next.slice(c, Math.max(c, next.length - 1));
      if (c === sent.length) endAppended = tail;
      else if (c === sent.length - 1) {
        endAppended = tail;
        transientTurn = this.paperEra = true;
      } else {
        compaction = next.slice(0, Math.max(0, next.length - 1));
      }
    }
    const turnPrompt = transientTurn ? sent.at(-1) : undefined;
    // What the history gained before this call (the turn prompt, unless sent with it only).
    const before = this.appendedBefore(sent);
    const startAppended = turnPrompt ? before.slice(0, -1) : before;
    this.emit(
      {
        type: 'iteration.start',
        ...this.envelope(),
        iteration: k,
        appended: startAppended,
        historyLength: sent.length,
        historyTokens: estimateTokens(sent),
      },
      startMs,
    );
    let execMs = 0;
    for (const b of entry.blocks) execMs += (asNum(asObj(b['result'])['execution_time']) ?? 0) * 1000;
    const extLatency = entry.studio ? asNum(entry.studio['latencyMs']) : null;
    const latency = extLatency ?? Math.max(0, durMs - execMs);
    const usage = this.replyUsage(entry);
    this.addUsage(usage);
    this.emit(
      {
        type: 'model.reply',
        ...this.envelope(),
        iteration: k,
        purpose: 'turn',
        model: this.info.model,
        text: entry.response,
        usage,
        latencyMs: latency,
        ...(turnPrompt ? { transient: [turnPrompt] } : {}),
      },
      startMs === null ? null : startMs + latency,
    );
    let cursor = startMs === null ? null : startMs + latency;
    entry.blocks.forEach((b, bi) => {
      cursor = this.writeBlock(k, bi, b, cursor);
    });
    this.emit(
      { type: 'iteration.end', ...this.envelope(), iteration: k, appended: endAppended, finalAnswer: entry.finalAnswer, durationMs: durMs },
      endMs ?? cursor,
    );
    this.history = [...(turnPrompt ? sent.slice(0, -1) : sent), ...endAppended];
    if (compaction) {
      this.emit(
        {
          type: 'compaction',
          ...this.envelope(),
          iteration: k + 1,
          count: 1,
          tokensBefore: estimateTokens(this.history),
          summary: compaction.find((m, i) => i >= 1 && m.role === 'assistant')?.content ?? '',
          messages: compaction,
        },
        endMs ?? cursor,
      );
      this.history = compaction;
    }
    if (entry.finalAnswer !== null && this.answer === null) this.answer = entry.finalAnswer;
    this.lastEndMs = endMs ?? cursor;
  }

  /** The turn prompt appended before this call: what `sent` has beyond the history. */
  private appendedBefore(sent: ChatMessage[]): ChatMessage[] {
    const c = commonPrefix(this.history, sent);
    if (c === this.history.length) return sent.slice(c);
    // Paper era: the previous turn prompt was not kept, so only the new one is appended.
    return sent.slice(-1);
  }

  private writeBlock(k: number, bi: number, b: Obj, startMs: number | null): number | null {
    const r = asObj(b['result']);
    const exec = (asNum(r['execution_time']) ?? 0) * 1000;
    this.emit({ type: 'block.start', ...this.envelope(), iteration: k, block: bi, code: asStr(b['code']) }, startMs);
    let cursor = startMs;
    asArr(r['rlm_calls']).forEach((raw, ci) => {
      cursor = this.writeCall(k, bi, ci, asObj(raw), cursor);
    });
    const stderr = asStr(r['stderr']);
    const endMs = startMs === null ? cursor : Math.max(startMs + exec, cursor ?? 0);
    this.emit(
      {
        type: 'block.end',
        ...this.envelope(),
        iteration: k,
        block: bi,
        stdout: asStr(r['stdout']),
        stderr,
        error: errorFromStderr(stderr),
        durationMs: exec,
        cpuMs: 0,
        submitted: asAnswer(r['final_answer']),
        variables: variablesOf(r['locals']),
        ...localsField(r['locals']),
        replReset: null,
      },
      endMs,
    );
    return endMs;
  }

  private writeCall(k: number, bi: number, ci: number, c: Obj, startMs: number | null): number | null {
    const callId = asCallId(`${this.info.runId}:${k}.${bi}.${ci}`);
    const meta = isObj(c['metadata']) ? c['metadata'] : null;
    const model = asStr(c['root_model'], this.info.model);
    const prompt = asStr(c['prompt']);
    const latency = (asNum(c['execution_time']) ?? 0) * 1000;
    const usage = usageOf(c['usage_summary']);
    const childRunId = meta ? asRunId(`${this.info.runId}/${k}.${bi}.${ci}`) : null;
    const ext = isObj(c['rlm_studio']) ? c['rlm_studio'] : {};
    const batch = isObj(ext['batch'])
      ? { batchId: asStr(ext['batch']['batchId']), index: asNum(ext['batch']['index']) ?? 0, size: asNum(ext['batch']['size']) ?? 1 }
      : null;
    let childStart: number | null = null;
    let entries: Entry[] = [];
    if (meta) {
      entries = asArr(meta['iterations']).filter(isObj).map(readEntry);
      const first = entries[0];
      if (first && first.timestampMs !== null) childStart = first.timestampMs - (first.iterationTime ?? 0) * 1000;
    }
    const callStart = startMs === null ? childStart : Math.max(startMs, childStart ?? startMs);
    this.emit(
      {
        type: 'subcall.start',
        ...this.envelope(),
        callId,
        iteration: k,
        block: bi,
        kind: meta ? 'rlm' : ext['leaf'] === true ? 'rlm' : 'llm',
        leaf: !meta && ext['leaf'] === true,
        prompt,
        model,
        batch,
        childRunId,
      },
      callStart,
    );
    let endMs = callStart === null ? null : callStart + latency;
    if (meta && childRunId) {
      const runMeta = readMetadata(asObj(meta['run_metadata']));
      const child = new RunWriter(
        {
          runId: childRunId,
          parentRunId: this.info.runId,
          depth: this.info.depth + 1,
          turn: this.info.turn,
          model: runMeta.rootModel === 'unknown' ? model : runMeta.rootModel,
          limits: limitsOf(runMeta),
          spawnedBy: { runId: this.info.runId, iteration: k, block: bi, callId },
          query: null,
          context: { type: 'string', totalChars: prompt.length, chunkLengths: [prompt.length] },
          usage,
          replies: entries.length,
          repl: isObj(meta['run_metadata']) && 'environment_type' in meta['run_metadata'] ? runMeta.repl : this.info.repl,
          prompts: runMeta.prompts ?? this.info.prompts,
        },
        this.stamper,
        this.out,
        this.warn,
      );
      const sents = childPrompts(entries, (m) => this.warn(`child run ${childRunId}: ${m}`));
      entries.forEach((e, i) => child.add(e, sents[i] ?? e.prompt));
      const response = asStr(c['response']);
      child.finish(response.startsWith('Error:') ? response : null);
      const t = child.total;
      this.total.inputTokens += t.inputTokens;
      this.total.outputTokens += t.outputTokens;
      if (t.costUsd !== null) this.total.costUsd = (this.total.costUsd ?? 0) + t.costUsd;
      this.total.calls += t.calls;
      endMs = Math.max(endMs ?? 0, this.stamper.now);
      this.emit(
        {
          type: 'subcall.end',
          ...this.envelope(),
          callId,
          response,
          error: asStr(c['error'], '') || null,
          usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 },
          latencyMs: latency,
        },
        endMs,
      );
    } else {
      const response = asStr(c['response']);
      const own: Usage = { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, costUsd: usage.costUsd };
      this.addUsage(own);
      const failed = response.startsWith('Error:') ? response : null;
      this.emit(
        {
          type: 'subcall.end',
          ...this.envelope(),
          callId,
          response,
          error: asStr(c['error'], '') || failed,
          usage: own,
          latencyMs: latency,
        },
        endMs,
      );
    }
    return endMs;
  }

  /** Writes the last entry and run.end. `failure`: the error text a parent received instead. */
  finish(failure: string | null = null): void {
    if (!this.started) {
      // A child with an empty trajectory still exists as a run.
      this.emitRunStart([], null);
    }
    if (this.pending) this.write(this.pending.entry, this.pending.sent, null);
    this.pending = null;
    const stopReason = this.answer !== null ? (this.sawDefault ? 'max_iterations' : 'answered') : 'error';
    const message =
      stopReason === 'max_iterations'
        ? `stopped at the iteration limit (${this.info.limits.maxIterations})`
        : stopReason === 'error'
          ? (failure ?? 'the log ends without a final answer (the run stopped before answering, or a limit ended it)')
          : null;
    const endMs = this.lastEndMs ?? this.startMs;
    this.emit(
      {
        type: 'run.end',
        ...this.envelope(),
        answer: this.answer,
        stopReason,
        message,
        iterations: this.iterations,
        durationMs: endMs !== null && this.startMs !== null ? Math.max(0, endMs - this.startMs) : 0,
        usage: { ...this.total },
      },
      endMs,
    );
  }
}

export function limitsOf(meta: RlmPythonMetadata): Limits {
  return {
    maxDepth: meta.maxDepth,
    maxIterations: meta.maxIterations,
    maxBudgetUsd: null,
    maxTimeoutMs: null,
    maxTokens: null,
    maxErrors: null,
    // The reference's fixed semaphore for llm_query_batched and its default max_concurrent_subcalls.
    maxConcurrencyLlm: 16,
    maxConcurrencyRlm: 4,
    maxErrorsMode: 'stderr',
    childLlmModel: 'own',
  };
}

/**
 * The message list each child iteration sent. The reference logs every child iteration
 * with the same (final) list, so when all prompts are identical we cut it back per turn:
 * [system, metadata, turn1] then + assistant reply, + REPL output (if any block), + next turn.
 */
function childPrompts(entries: Entry[], warn: Warn): ChatMessage[][] {
  const turns = entries.filter((e) => !isDefaultAnswer(e));
  const first = turns[0];
  if (!first || turns.length < 2) return entries.map((e) => e.prompt);
  const final = first.prompt;
  const aliased = turns.every(
    (e) => e.prompt.length === final.length && sameMessage(e.prompt[e.prompt.length - 1], final[final.length - 1]),
  );
  if (!aliased) return entries.map((e) => e.prompt);
  const out: ChatMessage[][] = [];
  let len = Math.min(3, final.length);
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as Entry;
    if (isDefaultAnswer(e) && e.prompt.length !== final.length) {
      out.push(e.prompt);
      continue;
    }
    if (len > final.length) {
      warn('could not rebuild per-turn prompts from the aliased history; using it as logged');
      return entries.map((x) => x.prompt);
    }
    out.push(final.slice(0, len));
    const reply = final[len];
    if (i < entries.length - 1 && reply && reply.role !== 'assistant') {
      warn('could not rebuild per-turn prompts from the aliased history; using it as logged');
      return entries.map((x) => x.prompt);
    }
    len += 1 + (e.blocks.length > 0 ? 1 : 0) + 1;
  }
  return out;
}
