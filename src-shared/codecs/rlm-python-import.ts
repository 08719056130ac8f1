// Import of the reference library's log (see rlm-python-format.ts) into our events.
//
// What the reference format does not say, and how we fill it in:
// - Timestamps are local time without a zone; we read them as UTC. `t` is synthesised from
//   them and from `iteration_time`/`execution_time`, kept monotonic.
// - Root turns' token usage is never logged (it is returned to the caller only): those
//   replies get zero tokens and an unknown cost. A child run's `usage_summary` (its LM
//   handler's total) is apportioned evenly over the child's replies. Note the reference
//   counts a child's `llm_query` calls in that total and again in their own rlm_calls
//   entries; we import both as logged (we cannot tell them from leaf `rlm_query` calls).
// - Plain calls and leaf `rlm_query` calls look the same (no `metadata`): both become
//   kind 'llm' sub-calls.
// - Child iterations' `prompt` lists are all the child's final history (RLM-SPEC Q4): we
//   rebuild each turn's list from it. Paper-era logs send the per-turn prompt without
//   keeping it in history: it becomes the reply's `transient` message, as the engine records
//   a request sent with one call only.
// - `locals` (every variable after a block, the whole value each time, context included) are
//   kept on block.end where short: a value whose JSON has at most 200 characters as logged,
//   a longer string as its first 200 characters and "…", anything longer as its JSON cut to
//   200 characters ending in "…" (as native runs record them; a 40 MB context logged twice
//   per block would otherwise be held in memory for every block).
// - `environment_type` "javascript" (our export of a JavaScript REPL run) marks the runs as
//   JavaScript; anything else ("local" and the reference's other environments) as Python.
import {
  EVENT_SCHEMA_VERSION,
  asCallId,
  asRunId,
  type CallId,
  type ChatMessage,
  type ContextMeta,
  type ContextType,
  type EventDraft,
  type Limits,
  type ReplLanguage,
  type RunId,
  type TrajectoryEvent,
  type Usage,
} from '../events.ts';
import { estimateTokens } from '../tokens.ts';
import { LineSplitter, ProblemLimiter, type Line, type ReadProblem } from './lines.ts';
import { LOCAL_CHARS, shortenLocals } from './rlm-python-locals.ts';
import { ENVIRONMENT_TYPES, type Obj, parsePyTimestamp, type RlmPythonMetadata } from './rlm-python-format.ts';

// --- raw JSON helpers -------------------------------------------------------------------

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const asObj = (v: unknown): Obj => (isObj(v) ? v : {});
const asArr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const asStr = (v: unknown, d = ''): string => (typeof v === 'string' ? v : v === null || v === undefined ? d : JSON.stringify(v));
const asNum = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function asMessage(v: unknown): ChatMessage {
  const o = asObj(v);
  const role = o['role'] === 'system' || o['role'] === 'assistant' ? o['role'] : 'user';
  return { role, content: asStr(o['content']) };
}

/** A final answer: a string, the legacy `[kind, text]` pair (text wins), or null. */
function asAnswer(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.length >= 2) return asStr(v[1]);
  if (v === null || v === undefined) return null;
  return asStr(v);
}

function sameMessage(a: ChatMessage | undefined, b: ChatMessage | undefined): boolean {
  return a !== undefined && b !== undefined && a.role === b.role && a.content === b.content;
}

function commonPrefix(a: ChatMessage[], b: ChatMessage[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && sameMessage(a[i], b[i])) i++;
  return i;
}

/** Usage of one `usage_summary`: all models summed; cost from `total_cost` where given. */
function usageOf(summary: unknown): Usage & { calls: number } {
  const s = asObj(summary);
  let inputTokens = 0;
  let outputTokens = 0;
  let calls = 0;
  let modelCost: number | null = null;
  for (const m of Object.values(asObj(s['model_usage_summaries']))) {
    const u = asObj(m);
    inputTokens += asNum(u['total_input_tokens']) ?? 0;
    outputTokens += asNum(u['total_output_tokens']) ?? 0;
    calls += asNum(u['total_calls']) ?? 0;
    const c = asNum(u['total_cost']);
    if (c !== null) modelCost = (modelCost ?? 0) + c;
  }
  const costUsd = asNum(s['total_cost']) ?? modelCost;
  return { inputTokens, outputTokens, costUsd, calls };
}

const CONTEXT_TYPES: Record<string, ContextType> = { str: 'string', list: 'array', dict: 'object', tuple: 'array' };

/** Context shape from the metadata message ("Your context is a str of 1364 total characters…"). */
function contextFromMessages(messages: ChatMessage[]): ContextMeta {
  for (const m of messages.slice(0, 4)) {
    const r = /context is an? (\w+) (?:of|with) ([\d,]+) total characters/.exec(m.content);
    if (!r) continue;
    const totalChars = Number((r[2] ?? '0').replace(/,/g, ''));
    const chunks = /chunks of char lengths: \[([\d,\s]*)\]/.exec(m.content);
    const chunkLengths =
      chunks && chunks[1]
        ? chunks[1]
            .split(',')
            .map((x) => Number(x.trim()))
            .filter((x) => Number.isFinite(x))
        : [totalChars];
    return { type: CONTEXT_TYPES[r[1] ?? ''] ?? 'string', totalChars, chunkLengths };
  }
  return { type: 'string', totalChars: 0, chunkLengths: [] };
}

function queryFromMessages(messages: ChatMessage[]): string | null {
  for (const m of messages.slice(0, 4)) {
    if (m.role !== 'user') continue;
    const r = /^Answer the following: ([\s\S]*?)\n\n/.exec(m.content);
    if (r) return r[1] ?? null;
  }
  return null;
}

/** `TypeError: …` from a Python traceback tail; the last such line wins. */
export function errorFromStderr(stderr: string): { name: string; message: string } | null {
  const text = stderr.trim();
  if (text === '') return null;
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const r = /^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Timeout|Iteration))(?::\s?(.*))?$/.exec((lines[i] ?? '').trim());
    if (r) return { name: (r[1] ?? 'Error').split('.').pop() ?? 'Error', message: r[2] ?? '' };
  }
  return { name: 'Error', message: text.length > 500 ? `${text.slice(0, 500)}…` : text };
}

function variablesOf(locals: unknown): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(asObj(locals))) {
    if (k.startsWith('_')) continue;
    // Modules, functions and other non-simple values are serialised as "<kind 'name'>".
    if (typeof v === 'string' && /^<[\w.]+ /.test(v) && v.endsWith('>')) continue;
    out.push(k);
  }
  return out;
}

/**
 * The JSON of `v`, rendered only until it passes `limit` characters: the text so far, and
 * whether it is the whole value (a 40 MB context is never rendered in full).
 */
function jsonHead(v: unknown, limit: number): { text: string; whole: boolean } {
  const parts: string[] = [];
  let used = 0;
  const put = (t: string): boolean => {
    parts.push(t);
    used += t.length;
    return used <= limit;
  };
  const walk = (x: unknown): boolean => {
    if (x === null || typeof x === 'boolean' || typeof x === 'number') return put(JSON.stringify(x) ?? 'null');
    // A longer string is cut past the limit: the text is then too long, so never whole.
    if (typeof x === 'string') return put(JSON.stringify(x.length > limit ? x.slice(0, limit + 1) : x));
    if (Array.isArray(x)) {
      if (!put('[')) return false;
      for (let i = 0; i < x.length; i++) if ((i > 0 && !put(',')) || !walk(x[i])) return false;
      return put(']');
    }
    if (typeof x === 'object') {
      if (!put('{')) return false;
      let first = true;
      for (const k in x as Obj) {
        if (!Object.hasOwn(x as Obj, k)) continue;
        if ((!first && !put(',')) || !put(`${JSON.stringify(k)}:`) || !walk((x as Obj)[k])) return false;
        first = false;
      }
      return put('}');
    }
    return put('null');
  };
  const whole = walk(v);
  return { text: parts.join(''), whole };
}

/** One logged local, kept whole when short (see the header comment). */
function shortLocal(v: unknown): unknown {
  if (typeof v === 'string') return v.length <= LOCAL_CHARS ? v : `${v.slice(0, LOCAL_CHARS)}\u2026`;
  const head = jsonHead(v, LOCAL_CHARS);
  return head.whole ? v : `${head.text.slice(0, LOCAL_CHARS - 1)}\u2026`;
}

function localsField(locals: unknown): { locals?: Record<string, unknown> } {
  if (!isObj(locals)) return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(locals))
    Object.defineProperty(out, k, { value: shortLocal(v), enumerable: true, writable: true, configurable: true });
  return { locals: out };
}

function readMetadata(o: Obj): RlmPythonMetadata {
  return {
    timestamp: typeof o['timestamp'] === 'string' ? o['timestamp'] : null,
    rootModel: asStr(o['root_model'], 'unknown'),
    maxDepth: asNum(o['max_depth']) ?? 1,
    maxIterations: asNum(o['max_iterations']) ?? 30,
    backend: asStr(o['backend'], 'openai'),
    repl: o['environment_type'] === ENVIRONMENT_TYPES.javascript ? 'javascript' : 'python',
    raw: o,
  };
}

// --- event emission ---------------------------------------------------------------------------

/** Stamps drafts with v/seq/t/ts; `t` never goes backwards. */
class Stamper {
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
    return Object.assign(draft, { v: EVENT_SCHEMA_VERSION, seq: this.seq++, t, ts: this.lastTs.text }) as TrajectoryEvent;
  }

  get now(): number {
    return (this.epochMs ?? 0) + this.lastT;
  }
}

interface Entry {
  iteration: number;
  timestampMs: number | null;
  prompt: ChatMessage[];
  response: string;
  blocks: Obj[];
  finalAnswer: string | null;
  /** Seconds; null for the default-answer entry. */
  iterationTime: number | null;
  /** Our own export's extension: exact usage and latency of the reply. */
  studio: Obj | null;
}

function readEntry(o: Obj): Entry {
  return {
    iteration: asNum(o['iteration']) ?? 0,
    timestampMs: parsePyTimestamp(o['timestamp']),
    prompt: asArr(o['prompt']).map(asMessage),
    response: asStr(o['response']),
    blocks: asArr(o['code_blocks']).map(asObj),
    finalAnswer: asAnswer(o['final_answer']),
    iterationTime: asNum(o['iteration_time']),
    studio: isObj(o['rlm_studio']) ? o['rlm_studio'] : null,
  };
}

const isDefaultAnswer = (e: Entry): boolean => e.iterationTime === null && e.blocks.length === 0 && e.finalAnswer !== null;

interface RunInfo {
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
}

type Out = (e: TrajectoryEvent) => void;
type Warn = (message: string) => void;

/**
 * Writes one run's events from its entries. Entries arrive one by one (a root run is
 * streamed line by line); each is written once the next is known, because the next
 * prompt tells what the history gained after this one.
 */
class RunWriter {
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

function limitsOf(meta: RlmPythonMetadata): Limits {
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

// --- the incremental reader ----------------------------------------------------------------

export type RlmPythonItem =
  | { kind: 'metadata'; metadata: RlmPythonMetadata; line: number }
  | { kind: 'event'; event: TrajectoryEvent; line: number }
  | { kind: 'problem'; problem: ReadProblem };

export interface RlmPythonReaderOptions {
  /** Prefix of run ids (default `r`): root runs are `<prefix><turn>`. */
  runPrefix?: string;
  /** Parse every line whole: no reuse of the previous line's prompt, no cutting of `locals` (tests compare the two). */
  wholeLines?: boolean;
}

/**
 * Parses iteration lines without parsing again the history they repeat. Each line's `prompt`
 * is the whole history sent with that call, so a run of n iterations logs its first messages
 * n times (a long run's file is mostly that, and its parse grows with the square of its
 * length). When a line's prompt array starts with the previous line's array text, followed
 * by a comma, only the messages after it are parsed; the earlier ones are the previous
 * line's values. The result equals `JSON.parse(text)`: the shared text is the same complete
 * values, and any line this cannot split cleanly is parsed whole. (One difference: a line
 * with a second top-level `"prompt": []` key after the first would get the first's value.)
 */
class PromptReuse {
  private previous: { body: string; values: unknown[] } | null = null;

  parse(text: string): unknown {
    const span = promptSpan(text);
    if (span === null) {
      this.previous = null;
      return JSON.parse(text);
    }
    const body = text.slice(span.open + 1, span.close);
    const prev = this.previous;
    let values: unknown[] | null = null;
    if (prev && prev.body.length > 0 && body.startsWith(prev.body)) {
      if (body.length === prev.body.length) values = prev.values.slice();
      else if (body.charCodeAt(prev.body.length) === 44) {
        const more = tryParse(`[${body.slice(prev.body.length + 1)}]`);
        if (Array.isArray(more)) values = prev.values.concat(more as unknown[]);
      }
    }
    const rest = values === null ? null : tryParse(`${text.slice(0, span.open)}[]${text.slice(span.close + 1)}`);
    if (values === null || !isObj(rest) || !Array.isArray(rest['prompt']) || rest['prompt'].length > 0) {
      const whole: unknown = JSON.parse(text);
      const prompt = isObj(whole) ? whole['prompt'] : null;
      this.previous = Array.isArray(prompt) ? { body, values: prompt as unknown[] } : null;
      return whole;
    }
    rest['prompt'] = values;
    this.previous = { body, values };
    return rest;
  }
}

/**
 * Where the top-level `prompt` array of an iteration line is, as the reference writes it
 * (`{"type": …, "iteration": …, "timestamp": …, "prompt": [ … ], "response": …`): the index
 * of its `[` and of its `]`. Null when the line is not laid out that way.
 */
function promptSpan(text: string): { open: number; close: number } | null {
  const key = text.indexOf('"prompt": [');
  // Top level: only the first keys' plain values before it, nothing nested.
  if (key < 0 || key > 400 || text.lastIndexOf('{', key) !== 0 || text.lastIndexOf('[', key) >= 0) return null;
  const open = key + 10;
  // An unescaped quote is never inside a string, so this is the end of a value at some depth;
  // a wrong one leaves an unbalanced text that fails to parse (then the line is parsed whole).
  const close = text.indexOf('], "response": ', open);
  if (close < 0) return null;
  return { open, close };
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export class RlmPythonReader {
  private splitter = new LineSplitter();
  private limiter = new ProblemLimiter();
  private stamper = new Stamper();
  private meta: RlmPythonMetadata | null = null;
  private root: RunWriter | null = null;
  private lastIteration = 0;
  private turn = -1;
  private out: RlmPythonItem[] = [];
  private line = 0;
  private sawAnything = false;
  private ended = false;
  private readonly prefix: string;
  private warned = new Set<string>();
  errors = 0;
  events = 0;

  private readonly prompts: PromptReuse | null;

  constructor(options: RlmPythonReaderOptions = {}) {
    this.prefix = options.runPrefix ?? 'r';
    this.prompts = options.wholeLines ? null : new PromptReuse();
  }

  push(chunk: string): RlmPythonItem[] {
    for (const line of this.splitter.push(chunk)) this.readLine(line);
    return this.take();
  }

  pushLine(text: string, no: number, terminated = true): RlmPythonItem[] {
    this.readLine({ no, text, terminated });
    return this.take();
  }

  end(): RlmPythonItem[] {
    if (this.ended) return [];
    this.ended = true;
    for (const line of this.splitter.end()) this.readLine(line);
    this.closeRoot();
    if (!this.sawAnything) this.problem('empty', { line: null, severity: 'error', message: 'the file is empty' });
    else if (this.turn < 0)
      this.problem('no-iterations', {
        line: null,
        severity: 'warning',
        message: 'the log has no iteration lines (a run that never got to its first model reply?)',
      });
    for (const p of this.limiter.summary()) this.out.push({ kind: 'problem', problem: p });
    return this.take();
  }

  private take(): RlmPythonItem[] {
    const out = this.out;
    this.out = [];
    return out;
  }

  private problem(kind: string, p: ReadProblem): void {
    if (p.severity === 'error') this.errors++;
    const shown = this.limiter.add(kind, p);
    if (shown) this.out.push({ kind: 'problem', problem: shown });
  }

  private emit = (e: TrajectoryEvent): void => {
    this.events++;
    this.out.push({ kind: 'event', event: e, line: this.line });
  };

  private warn = (message: string): void => {
    const key = message.replace(/\d+/g, '#');
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.problem('warn', { line: this.line, severity: 'warning', message });
  };

  /**
   * The line's value: without the history it repeats and with its long `locals` cut (see
   * `PromptReuse` and rlm-python-locals.ts), unless asked for whole lines. A line that fails
   * that way is parsed whole, so its error is the whole line's.
   */
  private parseLine(text: string): unknown {
    if (!this.prompts) return JSON.parse(text);
    try {
      return this.prompts.parse(shortenLocals(text));
    } catch {
      return JSON.parse(text);
    }
  }

  private readLine(line: Line): void {
    if (line.text.trim() === '') return;
    this.sawAnything = true;
    this.line = line.no;
    let value: unknown;
    try {
      value = this.parseLine(line.text);
    } catch (err) {
      if (!line.terminated) {
        this.problem('truncated', {
          line: line.no,
          severity: 'warning',
          message: `the last line is cut off (${line.text.length} characters, no newline); everything before it was read`,
        });
      } else {
        this.problem('json', {
          line: line.no,
          severity: 'error',
          message: `not valid JSON (${err instanceof Error ? err.message : String(err)}); line skipped`,
        });
      }
      return;
    }
    if (!isObj(value)) {
      this.problem('shape', { line: line.no, severity: 'error', message: 'not a JSON object; line skipped' });
      return;
    }
    if (value['type'] === 'metadata') {
      if (this.meta) this.problem('meta', { line: line.no, severity: 'warning', message: 'a second metadata line; the first one is kept' });
      else {
        this.meta = readMetadata(value);
        this.stamper.epochMs = parsePyTimestamp(value['timestamp']);
        this.out.push({ kind: 'metadata', metadata: this.meta, line: line.no });
      }
      return;
    }
    // The reference visualizer treats every non-metadata line as an iteration; so do we, but say so.
    if (value['type'] !== 'iteration') {
      this.problem('type', {
        line: line.no,
        severity: 'warning',
        message: `unexpected line type ${JSON.stringify(value['type'])}; read as an iteration`,
      });
    }
    const missing = ['iteration', 'response', 'code_blocks'].filter((k) => !(k in value));
    if (missing.length > 0 || typeof value['iteration'] !== 'number') {
      this.problem('iteration', {
        line: line.no,
        severity: 'error',
        message: `not an iteration entry: missing or invalid ${missing.length > 0 ? missing.map((m) => `\`${m}\``).join(', ') : '`iteration`'}; line skipped`,
      });
      return;
    }
    const entry = readEntry(value);
    if (!this.meta) {
      this.problem('no-meta', {
        line: line.no,
        severity: 'warning',
        message: 'no metadata line before the first iteration; model and limits unknown',
      });
      this.meta = readMetadata({});
    }
    if (!this.root || entry.iteration <= this.lastIteration) {
      // Iteration numbers restart at each completion() of a persistent (multi-turn) RLM.
      this.closeRoot();
      this.turn++;
      const meta = this.meta;
      this.root = new RunWriter(
        {
          runId: asRunId(`${this.prefix}${this.turn}`),
          parentRunId: null,
          depth: 0,
          turn: this.turn,
          model: meta.rootModel,
          limits: limitsOf(meta),
          spawnedBy: null,
          query: null,
          context: null,
          usage: null,
          replies: 0,
          repl: meta.repl,
        },
        this.stamper,
        this.emit,
        this.warn,
      );
    }
    this.lastIteration = entry.iteration;
    this.root.add(entry, entry.prompt);
  }

  private closeRoot(): void {
    if (!this.root) return;
    this.root.finish();
    this.root = null;
  }
}

export interface RlmPythonReadResult {
  metadata: RlmPythonMetadata | null;
  events: TrajectoryEvent[];
  problems: ReadProblem[];
}

export function readRlmPythonText(text: string): RlmPythonReadResult {
  const reader = new RlmPythonReader();
  const result: RlmPythonReadResult = { metadata: null, events: [], problems: [] };
  for (const item of [...reader.push(text), ...reader.end()]) {
    if (item.kind === 'metadata') result.metadata = item.metadata;
    else if (item.kind === 'event') result.events.push(item.event);
    else result.problems.push(item.problem);
  }
  return result;
}
