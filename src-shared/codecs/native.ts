// Reader and writer of the native `*.rlm.jsonl` format: a header line, then one event per
// line. The reader is pure and incremental (feed it chunks or lines, it yields what it
// could read) and never throws on bad input: every damaged line becomes a problem naming
// the line and what is wrong, and everything readable is still returned.
import { z } from 'zod';
import {
  CHILD_LLM_MODELS,
  EVENT_SCHEMA_VERSION,
  MAX_ERRORS_MODES,
  MODEL_CALL_PURPOSES,
  NATIVE_FORMAT,
  REASONING_SOURCES,
  REPL_LANGUAGES,
  STOP_REASONS,
  upgradeLimits,
  type LogHeader,
  type TrajectoryEvent,
} from '../events.ts';
import { LineSplitter, ProblemLimiter, type Line, type ReadProblem } from './lines.ts';
import { encodeLine } from './native-lines.ts';

// --- schemas --------------------------------------------------------------------------
// Loose objects: fields added later (additive, optional) pass through untouched, so a
// convert or re-save keeps them.

const num = z.number();
const nonNegInt = z.number().int().nonnegative();
const str = z.string();
const runId = z.string().min(1);
const message = z.looseObject({ role: z.enum(['system', 'user', 'assistant']), content: str });
const usage = z.looseObject({
  inputTokens: num,
  outputTokens: num,
  costUsd: num.nullable(),
  cachedInputTokens: num.optional(),
  reasoningTokens: num.optional(),
});
const reasoning = z.looseObject({ text: str, source: z.enum(REASONING_SOURCES as [string, ...string[]]), inText: z.boolean().optional() });
const purpose = z.enum(MODEL_CALL_PURPOSES as [string, ...string[]]);
const resetReason = z.enum(['cpu_limit', 'wall_limit', 'memory_limit', 'crash']);
const replLanguage = z.enum(REPL_LANGUAGES as [string, ...string[]]);

const envelope = {
  v: nonNegInt,
  seq: nonNegInt,
  t: num,
  ts: str,
  runId,
  parentRunId: runId.nullable(),
  depth: nonNegInt,
};

const spawnPlace = z.looseObject({ runId, iteration: num, block: num, callId: str });
const comparedOutput = z.looseObject({
  stdout: str,
  stderr: str,
  error: z.looseObject({ name: str, message: str }).nullable(),
  submitted: str.nullable(),
});

const eventSchemas = [
  z.looseObject({
    ...envelope,
    type: z.literal('run.start'),
    spawnedBy: spawnPlace.nullable(),
    turn: nonNegInt,
    model: str,
    subModel: str.nullable(),
    query: str.nullable(),
    context: z.looseObject({ type: z.enum(['string', 'array', 'object']), totalChars: num, chunkLengths: z.array(num) }),
    limits: z.looseObject({
      maxDepth: num,
      maxIterations: num,
      maxBudgetUsd: num.nullable(),
      maxTimeoutMs: num.nullable(),
      maxTokens: num.nullable(),
      maxErrors: num.nullable(),
      maxConcurrencyLlm: num.optional(),
      maxConcurrencyRlm: num.optional(),
      maxConcurrency: num.optional(),
      maxErrorsMode: z.enum(MAX_ERRORS_MODES as [string, ...string[]]).optional(),
      childLlmModel: z.enum(CHILD_LLM_MODELS as [string, ...string[]]).optional(),
    }),
    messages: z.array(message),
    tools: z.array(str),
    repl: replLanguage.optional(),
    examples: z.array(z.looseObject({ source: str, chars: nonNegInt, repl: replLanguage.optional() })).optional(),
    sampling: z
      .looseObject({ turns: z.record(z.string(), z.unknown()), subcalls: z.record(z.string(), z.unknown()).nullable() })
      .optional(),
    prompts: z.looseObject({ name: str, hash: str }).optional(),
    sandbox: z.looseObject({ layers: z.array(str) }).optional(),
  }),
  z.looseObject({
    ...envelope,
    type: z.literal('iteration.start'),
    iteration: num,
    appended: z.array(message),
    historyLength: num,
    historyTokens: num,
  }),
  z.looseObject({
    ...envelope,
    type: z.literal('model.reply'),
    iteration: num,
    purpose,
    model: str,
    text: str,
    usage,
    latencyMs: num,
    retries: nonNegInt.optional(),
    transient: z.array(message).optional(),
    reasoning: reasoning.optional(),
    finishReason: str.optional(),
  }),
  z.looseObject({ ...envelope, type: z.literal('model.error'), iteration: num, purpose, model: str, message: str }),
  z.looseObject({
    ...envelope,
    type: z.literal('block.start'),
    iteration: num,
    block: nonNegInt,
    code: str,
    edited: z.looseObject({ original: str, byHand: z.literal(true) }).optional(),
  }),
  z.looseObject({
    ...envelope,
    type: z.literal('block.end'),
    iteration: num,
    block: nonNegInt,
    stdout: str,
    stderr: str,
    error: z.looseObject({ name: str, message: str }).nullable(),
    durationMs: num,
    cpuMs: num,
    submitted: str.nullable(),
    variables: z.array(str),
    locals: z.record(z.string(), z.unknown()).optional(),
    replReset: resetReason.nullable(),
    rerun: z
      .looseObject({
        terms: z.enum(['native', 'rlm-python']),
        same: z.boolean(),
        recorded: comparedOutput,
        new: comparedOutput,
      })
      .optional(),
  }),
  z.looseObject({
    ...envelope,
    type: z.literal('subcall.start'),
    callId: str,
    iteration: num,
    block: nonNegInt,
    kind: z.enum(['llm', 'rlm']),
    leaf: z.boolean(),
    prompt: str,
    model: str,
    batch: z.looseObject({ batchId: str, index: nonNegInt, size: nonNegInt }).nullable(),
    childRunId: runId.nullable(),
  }),
  z.looseObject({
    ...envelope,
    type: z.literal('subcall.end'),
    callId: str,
    response: str,
    error: str.nullable(),
    usage,
    latencyMs: num,
    retries: nonNegInt.optional(),
    reasoning: reasoning.optional(),
    finishReason: str.optional(),
    counterfactual: z
      .looseObject({
        id: str,
        recorded: z.looseObject({ callId: str, prompt: str, model: str, response: str, error: str.nullable() }),
        rerun: z.looseObject({ prompt: str, model: str, usage, sessionLogFile: str.nullable() }),
      })
      .optional(),
  }),
  z.looseObject({
    ...envelope,
    type: z.literal('iteration.end'),
    iteration: num,
    appended: z.array(message),
    finalAnswer: str.nullable(),
    durationMs: num,
  }),
  z.looseObject({
    ...envelope,
    type: z.literal('compaction'),
    iteration: num,
    count: num,
    tokensBefore: num,
    summary: str,
    messages: z.array(message),
  }),
  z.looseObject({ ...envelope, type: z.literal('repl.reset'), iteration: num, block: nonNegInt, reason: resetReason }),
  z.looseObject({
    ...envelope,
    type: z.literal('limit'),
    limit: z.enum(['max_iterations', 'max_budget', 'max_timeout', 'max_tokens', 'max_errors', 'context_overflow']),
    message: str,
  }),
  z.looseObject({
    ...envelope,
    type: z.literal('run.end'),
    answer: str.nullable(),
    stopReason: z.enum(STOP_REASONS as [string, ...string[]]),
    message: str.nullable(),
    iterations: num,
    durationMs: num,
    usage: z.looseObject({ inputTokens: num, outputTokens: num, costUsd: num.nullable(), calls: num }),
  }),
];

// One schema per type, picked directly (faster than a discriminated union over 13 shapes).
const SCHEMA_BY_TYPE = new Map<string, (typeof eventSchemas)[number]>(eventSchemas.map((s) => [s.shape.type.value, s]));

// --- fast structural check ---------------------------------------------------------------
// The same rules as the schemas above, as plain predicates. zod compiles its checks with
// `new Function`, which the app's CSP (no 'unsafe-eval') forbids, so in the browser it
// interprets them (100,634 events in Node: 0.41 s jitless, 0.21 s compiled, 0.07 s here). A
// value that passes here is valid for its schema and is returned as is (its own key order;
// zod's copy put the schema's keys first: JSON-equal, not byte-equal); one that fails is
// handed to zod, so problem messages are zod's, unchanged. These predicates may only ever
// be stricter than the schemas, never looser.

type Obj = Record<string, unknown>;
type Pred = (x: unknown) => boolean;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);
const fNum = (x: unknown): boolean => typeof x === 'number' && Number.isFinite(x);
const fNumN = (x: unknown): boolean => x === null || fNum(x);
const fNonNegInt = (x: unknown): boolean => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
const fStr = (x: unknown): boolean => typeof x === 'string';
const fStrN = (x: unknown): boolean => x === null || typeof x === 'string';
const fRunId = (x: unknown): boolean => typeof x === 'string' && x.length > 0;
const fRunIdN = (x: unknown): boolean => x === null || fRunId(x);
const oneOf = (values: readonly string[]): Pred => {
  const set = new Set(values);
  return (x) => typeof x === 'string' && set.has(x);
};
const arrayOf =
  (p: Pred): Pred =>
  (x) => {
    if (!Array.isArray(x)) return false;
    for (let i = 0; i < x.length; i++) if (!p(x[i])) return false;
    return true;
  };
const nullable =
  (p: Pred): Pred =>
  (x) =>
    x === null || p(x);
const obj = (shape: Record<string, Pred>): Pred => {
  const keys = Object.keys(shape);
  const preds = keys.map((k) => shape[k] as Pred);
  return (x) => {
    if (!isObj(x)) return false;
    for (let i = 0; i < keys.length; i++) if (!(preds[i] as Pred)(x[keys[i] as string])) return false;
    return true;
  };
};
const optional =
  (p: Pred): Pred =>
  (x) =>
    x === undefined || p(x);
const fRole = oneOf(['system', 'user', 'assistant']);
const fMessage = (x: unknown): boolean => isObj(x) && fRole(x.role) && typeof x.content === 'string';
const fMessages = arrayOf(fMessage);
const fUsage = obj({
  inputTokens: fNum,
  outputTokens: fNum,
  costUsd: fNumN,
  cachedInputTokens: optional(fNum),
  reasoningTokens: optional(fNum),
});
const fReasoning = obj({ text: fStr, source: oneOf(REASONING_SOURCES), inText: optional((x) => typeof x === 'boolean') });
const fPurpose = oneOf(MODEL_CALL_PURPOSES);
const fReset = oneOf(['cpu_limit', 'wall_limit', 'memory_limit', 'crash']);
const fCompared = obj({ stdout: fStr, stderr: fStr, error: nullable(obj({ name: fStr, message: fStr })), submitted: fStrN });
const fEnvelope = obj({ v: fNonNegInt, seq: fNonNegInt, t: fNum, ts: fStr, runId: fRunId, parentRunId: fRunIdN, depth: fNonNegInt });

const FAST_BY_TYPE = new Map<string, Pred>([
  [
    'run.start',
    obj({
      spawnedBy: nullable(obj({ runId: fRunId, iteration: fNum, block: fNum, callId: fStr })),
      turn: fNonNegInt,
      model: fStr,
      subModel: fStrN,
      query: fStrN,
      context: obj({ type: oneOf(['string', 'array', 'object']), totalChars: fNum, chunkLengths: arrayOf(fNum) }),
      limits: obj({
        maxDepth: fNum,
        maxIterations: fNum,
        maxBudgetUsd: fNumN,
        maxTimeoutMs: fNumN,
        maxTokens: fNumN,
        maxErrors: fNumN,
        maxConcurrencyLlm: optional(fNum),
        maxConcurrencyRlm: optional(fNum),
        maxConcurrency: optional(fNum),
        maxErrorsMode: optional(oneOf(MAX_ERRORS_MODES)),
        childLlmModel: optional(oneOf(CHILD_LLM_MODELS)),
      }),
      messages: fMessages,
      tools: arrayOf(fStr),
      repl: optional(oneOf(REPL_LANGUAGES)),
      examples: optional(arrayOf(obj({ source: fStr, chars: fNonNegInt, repl: optional(oneOf(REPL_LANGUAGES)) }))),
      sampling: optional(obj({ turns: isObj, subcalls: (x: unknown) => x === null || isObj(x) })),
      prompts: optional(obj({ name: fStr, hash: fStr })),
      sandbox: optional(obj({ layers: arrayOf(fStr) })),
    }),
  ],
  ['iteration.start', obj({ iteration: fNum, appended: fMessages, historyLength: fNum, historyTokens: fNum })],
  [
    'model.reply',
    obj({
      iteration: fNum,
      purpose: fPurpose,
      model: fStr,
      text: fStr,
      usage: fUsage,
      latencyMs: fNum,
      retries: optional(fNonNegInt),
      transient: optional(fMessages),
      reasoning: optional(fReasoning),
      finishReason: optional(fStr),
    }),
  ],
  ['model.error', obj({ iteration: fNum, purpose: fPurpose, model: fStr, message: fStr })],
  [
    'block.start',
    obj({ iteration: fNum, block: fNonNegInt, code: fStr, edited: optional(obj({ original: fStr, byHand: (x) => x === true })) }),
  ],
  [
    'block.end',
    obj({
      iteration: fNum,
      block: fNonNegInt,
      stdout: fStr,
      stderr: fStr,
      error: nullable(obj({ name: fStr, message: fStr })),
      durationMs: fNum,
      cpuMs: fNum,
      submitted: fStrN,
      variables: arrayOf(fStr),
      locals: optional(isObj),
      replReset: nullable(fReset),
      rerun: optional(
        obj({ terms: oneOf(['native', 'rlm-python']), same: (x) => typeof x === 'boolean', recorded: fCompared, new: fCompared }),
      ),
    }),
  ],
  [
    'subcall.start',
    obj({
      callId: fStr,
      iteration: fNum,
      block: fNonNegInt,
      kind: oneOf(['llm', 'rlm']),
      leaf: (x) => typeof x === 'boolean',
      prompt: fStr,
      model: fStr,
      batch: nullable(obj({ batchId: fStr, index: fNonNegInt, size: fNonNegInt })),
      childRunId: fRunIdN,
    }),
  ],
  [
    'subcall.end',
    obj({
      callId: fStr,
      response: fStr,
      error: fStrN,
      usage: fUsage,
      latencyMs: fNum,
      retries: optional(fNonNegInt),
      reasoning: optional(fReasoning),
      finishReason: optional(fStr),
      counterfactual: optional(
        obj({
          id: fStr,
          recorded: obj({ callId: fStr, prompt: fStr, model: fStr, response: fStr, error: fStrN }),
          rerun: obj({ prompt: fStr, model: fStr, usage: fUsage, sessionLogFile: fStrN }),
        }),
      ),
    }),
  ],
  ['iteration.end', obj({ iteration: fNum, appended: fMessages, finalAnswer: fStrN, durationMs: fNum })],
  ['compaction', obj({ iteration: fNum, count: fNum, tokensBefore: fNum, summary: fStr, messages: fMessages })],
  ['repl.reset', obj({ iteration: fNum, block: fNonNegInt, reason: fReset })],
  [
    'limit',
    obj({ limit: oneOf(['max_iterations', 'max_budget', 'max_timeout', 'max_tokens', 'max_errors', 'context_overflow']), message: fStr }),
  ],
  [
    'run.end',
    obj({
      answer: fStrN,
      stopReason: oneOf(STOP_REASONS),
      message: fStrN,
      iterations: fNum,
      durationMs: fNum,
      usage: obj({ inputTokens: fNum, outputTokens: fNum, costUsd: fNumN, calls: fNum }),
    }),
  ],
]);

const headerSchema = z.looseObject({
  format: z.literal(NATIVE_FORMAT),
  version: nonNegInt,
  sessionId: z.string().min(1),
  createdAt: str,
  repl: replLanguage.optional(),
  forkOf: z
    .looseObject({
      logFile: str,
      sessionId: str,
      runId: str,
      iteration: num,
      counterfactual: z.looseObject({ callId: str, id: str }).optional(),
    })
    .optional(),
  rerunOf: z.looseObject({ logFile: str, format: z.enum(['native', 'rlm-python']) }).optional(),
});

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const path = issue.path.length > 0 ? `\`${issue.path.map(String).join('.')}\`: ` : '';
  return `${path}${issue.message}`;
}

// --- validation of single values -------------------------------------------------------

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

/** Validates one parsed JSON value as an event of this schema version. */
export function checkEvent(value: unknown): Checked<TrajectoryEvent> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, message: 'not a JSON object' };
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string') return { ok: false, message: 'no event `type`' };
  const schema = SCHEMA_BY_TYPE.get(type);
  if (!schema) return { ok: false, message: `unknown event type "${type}" (this reader knows schema version ${EVENT_SCHEMA_VERSION})` };
  const fast = FAST_BY_TYPE.get(type);
  if (fast !== undefined && fEnvelope(value) && fast(value)) return withLimits(value as TrajectoryEvent);
  const r = schema.safeParse(value);
  if (!r.success) return { ok: false, message: `invalid ${type} event: ${describeIssue(r.error)}` };
  // The schema mirrors events.ts field by field; ids are plain strings on the wire.
  return withLimits(r.data as unknown as TrajectoryEvent);
}

/** A run.start's limits in today's form (older logs have one batched-call cap for both kinds). */
function withLimits(e: TrajectoryEvent): Checked<TrajectoryEvent> {
  if (e.type === 'run.start' && !upgradeLimits(e.limits)) {
    return {
      ok: false,
      message: 'invalid run.start event: `limits` has neither maxConcurrency nor maxConcurrencyLlm and maxConcurrencyRlm',
    };
  }
  return { ok: true, value: e };
}

function checkHeader(value: unknown): Checked<LogHeader> {
  const r = headerSchema.safeParse(value);
  if (!r.success) return { ok: false, message: `invalid header: ${describeIssue(r.error)}` };
  return { ok: true, value: r.data as unknown as LogHeader };
}

// --- the incremental reader ----------------------------------------------------------------

export type NativeItem =
  | { kind: 'header'; header: LogHeader; line: number }
  | { kind: 'event'; event: TrajectoryEvent; line: number }
  | { kind: 'problem'; problem: ReadProblem };

function looksLikeHeader(v: unknown): boolean {
  return typeof v === 'object' && v !== null && 'format' in v && !('type' in v);
}

export class NativeReader {
  private splitter = new LineSplitter();
  private limiter = new ProblemLimiter();
  private sawHeader = false;
  private sawAnything = false;
  private newerEvents = 0;
  private ended = false;
  /** Counts, for callers that want them without keeping the items. */
  events = 0;
  errors = 0;

  /** Feeds a chunk of text; returns what the complete lines in it yield. */
  push(chunk: string): NativeItem[] {
    const out: NativeItem[] = [];
    for (const line of this.splitter.push(chunk)) this.line(line, out);
    return out;
  }

  /** Ends the input: the unterminated last line, if any, and summaries. */
  end(): NativeItem[] {
    if (this.ended) return [];
    this.ended = true;
    const out: NativeItem[] = [];
    for (const line of this.splitter.end()) this.line(line, out);
    if (!this.sawAnything)
      this.problem(out, 'empty', { line: null, severity: 'error', message: 'the file is empty: no header and no events' });
    for (const p of this.limiter.summary()) out.push({ kind: 'problem', problem: p });
    return out;
  }

  /** Feeds one line (without its newline); for callers that split lines themselves. */
  pushLine(text: string, no: number, terminated = true): NativeItem[] {
    const out: NativeItem[] = [];
    this.line({ no, text, terminated }, out);
    return out;
  }

  private problem(out: NativeItem[], kind: string, p: ReadProblem): void {
    if (p.severity === 'error') this.errors++;
    const shown = this.limiter.add(kind, p);
    if (shown) out.push({ kind: 'problem', problem: shown });
  }

  private line(line: Line, out: NativeItem[]): void {
    if (line.text.trim() === '') return;
    this.sawAnything = true;
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch (err) {
      if (!line.terminated) {
        this.problem(out, 'truncated', {
          line: line.no,
          severity: 'warning',
          message: `the last line is cut off (${line.text.length} characters, no newline): the run probably stopped while writing; everything before it was read`,
        });
      } else {
        const why = err instanceof Error ? err.message : String(err);
        this.problem(out, 'json', { line: line.no, severity: 'error', message: `not valid JSON (${why}); line skipped` });
      }
      return;
    }
    if (!this.sawHeader && looksLikeHeader(value)) {
      this.header(value, line.no, out);
      return;
    }
    if (!this.sawHeader) {
      this.sawHeader = true; // Report a missing header once, then read events anyway.
      this.problem(out, 'header', {
        line: line.no,
        severity: 'error',
        message: `expected the ${NATIVE_FORMAT} header line first; reading events without it`,
      });
    }
    const checked = checkEvent(value);
    const v = (value as { v?: unknown }).v;
    if (typeof v === 'number' && v > EVENT_SCHEMA_VERSION) {
      this.newerEvents++;
      this.problem(out, 'newer-event', {
        line: line.no,
        severity: 'error',
        message: `event version ${v} is newer than this reader understands (${EVENT_SCHEMA_VERSION}); ${checked.ok ? 'read as far as it matches' : 'skipped'}; update RLM Studio`,
      });
    }
    if (!checked.ok) {
      const kind = checked.message.startsWith('unknown event type') ? 'unknown-type' : `invalid:${(value as { type?: unknown }).type}`;
      this.problem(out, kind, { line: line.no, severity: 'error', message: `${checked.message}; line skipped` });
      return;
    }
    this.events++;
    out.push({ kind: 'event', event: checked.value, line: line.no });
  }

  private header(value: unknown, no: number, out: NativeItem[]): void {
    this.sawHeader = true;
    const version = (value as { version?: unknown }).version;
    const format = (value as { format?: unknown }).format;
    if (format !== NATIVE_FORMAT) {
      this.problem(out, 'header', {
        line: no,
        severity: 'error',
        message: `header names format "${String(format)}", expected "${NATIVE_FORMAT}"`,
      });
      return;
    }
    if (typeof version === 'number' && version > EVENT_SCHEMA_VERSION) {
      this.problem(out, 'newer-header', {
        line: no,
        severity: 'error',
        message: `the file is ${NATIVE_FORMAT} format version ${version}, newer than this reader understands (version ${EVENT_SCHEMA_VERSION}); update RLM Studio. Events that still match version ${EVENT_SCHEMA_VERSION} are shown`,
      });
    }
    const checked = checkHeader(value);
    if (!checked.ok) {
      this.problem(out, 'header', { line: no, severity: 'error', message: checked.message });
      return;
    }
    out.push({ kind: 'header', header: checked.value, line: no });
  }
}

export interface NativeReadResult {
  header: LogHeader | null;
  events: TrajectoryEvent[];
  problems: ReadProblem[];
}

/** Reads a whole native log held in memory (tests, small files). */
export function readNativeText(text: string): NativeReadResult {
  const reader = new NativeReader();
  const result: NativeReadResult = { header: null, events: [], problems: [] };
  const take = (items: NativeItem[]): void => {
    for (const item of items) {
      if (item.kind === 'header') result.header = item.header;
      else if (item.kind === 'event') result.events.push(item.event);
      else result.problems.push(item.problem);
    }
  };
  take(reader.push(text));
  take(reader.end());
  return result;
}

/** The lines of a native log (each ending in a newline). */
export function* encodeNative(header: LogHeader, events: Iterable<TrajectoryEvent>): Generator<string> {
  yield encodeLine(header);
  for (const e of events) yield encodeLine(e);
}
