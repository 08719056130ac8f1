// The event schema of a trajectory: every state change of a session is one of these.
// A native log is a header line followed by these events, one per line, in `seq` order.
// Bump EVENT_SCHEMA_VERSION on any incompatible change; readers refuse newer versions by name.

export const EVENT_SCHEMA_VERSION = 1;
export const NATIVE_FORMAT = 'rlm-studio';

declare const brand: unique symbol;
type Brand<T, B extends string> = T & { readonly [brand]: B };

export type RunId = Brand<string, 'RunId'>;
export type CallId = Brand<string, 'CallId'>;
export type SessionId = Brand<string, 'SessionId'>;
/** Milliseconds. */
type Ms = number;
/** US dollars. */
type Usd = number;

export const asRunId = (s: string): RunId => s as RunId;
export const asCallId = (s: string): CallId => s as CallId;
export const asSessionId = (s: string): SessionId => s as SessionId;

type Role = 'system' | 'user' | 'assistant';
export interface ChatMessage {
  role: Role;
  content: string;
}

export interface Usage {
  /** Every input token, cached ones included (as the endpoints' `prompt_tokens`). */
  inputTokens: number;
  /** Every output token, reasoning included (as `completion_tokens`). */
  outputTokens: number;
  /** Null when neither the endpoint nor the price table knows the price. */
  costUsd: Usd | null;
  /**
   * Of `inputTokens`, those the provider served from its prompt cache
   * (`prompt_tokens_details.cached_tokens`), priced at the cached-input rate. Absent when
   * none were reported. Added in version 1 (optional).
   */
  cachedInputTokens?: number | undefined;
  /**
   * Of `outputTokens`, the model's thinking (`completion_tokens_details.reasoning_tokens`).
   * Absent when none were reported. Added in version 1 (optional).
   */
  reasoningTokens?: number | undefined;
}

/**
 * Where a reply's thinking came from: a field of the endpoint's message (`reasoning_content`:
 * vLLM, DeepSeek, llama.cpp; `reasoning`: OpenRouter, Ollama) or a `<think>…</think>` section
 * at the start of the content (a Qwen3-family model served without a reasoning parser).
 */
export type ReasoningSource = 'reasoning_content' | 'reasoning' | 'think';
export const REASONING_SOURCES: readonly ReasoningSource[] = ['reasoning_content', 'reasoning', 'think'];

/** A reply's thinking, kept apart from its text. */
export interface ReplyReasoning {
  text: string;
  source: ReasoningSource;
  /**
   * Only for 'think': the section was left in the reply text (what the reference reads),
   * instead of split off it. Absent: split off.
   */
  inText?: boolean | undefined;
}

/** 'context_overflow' (added in version 1): the endpoint refused a request for its length. */
export type StopReason =
  'answered' | 'max_iterations' | 'max_budget' | 'max_timeout' | 'max_tokens' | 'max_errors' | 'context_overflow' | 'cancelled' | 'error';

export const STOP_REASONS: readonly StopReason[] = [
  'answered',
  'max_iterations',
  'max_budget',
  'max_timeout',
  'max_tokens',
  'max_errors',
  'context_overflow',
  'cancelled',
  'error',
];

export type ContextType = 'string' | 'array' | 'object';

export interface ContextMeta {
  type: ContextType;
  totalChars: number;
  /** Lengths of the chunks (array items, object values); one entry for a string. */
  chunkLengths: number[];
}

/** What makes a turn count toward `maxErrors`: a block that raised, or (the reference's rule) any stderr output. */
export type MaxErrorsMode = 'thrown' | 'stderr';
export const MAX_ERRORS_MODES: readonly MaxErrorsMode[] = ['thrown', 'stderr'];

/** Where a child run's `llm_query` goes when the code names no model: the session's sub model, or the child's own. */
export type ChildLlmModel = 'sub' | 'own';
export const CHILD_LLM_MODELS: readonly ChildLlmModel[] = ['sub', 'own'];

export interface Limits {
  /** 0: a direct call, no REPL (the reference's baseline). */
  maxDepth: number;
  maxIterations: number;
  maxBudgetUsd: Usd | null;
  maxTimeoutMs: Ms | null;
  maxTokens: number | null;
  maxErrors: number | null;
  /** Concurrent calls in one `llm_query_batched`. Readers fill it from `maxConcurrency` in older logs. */
  maxConcurrencyLlm: number;
  /** Concurrent child runs in one `rlm_query_batched`. Readers fill it from `maxConcurrency` in older logs. */
  maxConcurrencyRlm: number;
  /** Logs written before the two caps were separate: one cap for both batched calls. */
  maxConcurrency?: number;
  /** Absent in older logs: 'thrown'. Added in version 1 (optional). */
  maxErrorsMode?: MaxErrorsMode;
  /** Absent in older logs: 'sub'. Added in version 1 (optional). */
  childLlmModel?: ChildLlmModel;
}

/**
 * Fills the two batched-call caps of limits read from a log written when one cap served both;
 * false when neither form is there.
 */
export function upgradeLimits(limits: Partial<Limits>): limits is Limits {
  const legacy = limits.maxConcurrency;
  if (limits.maxConcurrencyLlm === undefined && legacy !== undefined) limits.maxConcurrencyLlm = legacy;
  if (limits.maxConcurrencyRlm === undefined && legacy !== undefined) limits.maxConcurrencyRlm = legacy;
  return limits.maxConcurrencyLlm !== undefined && limits.maxConcurrencyRlm !== undefined;
}

/** Where in its parent a child run or a sub-call was made. */
export interface SpawnPlace {
  runId: RunId;
  iteration: number;
  block: number;
  callId: CallId;
}

export interface BlockError {
  /** Error class name as the model sees it, e.g. `TypeError`, `SyntaxError`, `TimeoutError`. */
  name: string;
  message: string;
}

/** What happened to the REPL when a block had to be stopped the hard way. */
export type ReplResetReason = 'cpu_limit' | 'wall_limit' | 'memory_limit' | 'crash';

/** The language of a session's REPL: the code the model writes runs in it. */
export type ReplLanguage = 'javascript' | 'python';
export const REPL_LANGUAGES: readonly ReplLanguage[] = ['javascript', 'python'];

/**
 * The REPL a session asks for: a language, and for Python where it runs. 'python' is Pyodide in
 * an isolate (portable, the default); 'cpython' the machine's own CPython inside the OS sandbox
 * (real threads, installed packages; Linux with bubblewrap). Both show the model the same Python.
 */
export type ReplChoice = ReplLanguage | 'cpython';
export const REPL_CHOICES: readonly ReplChoice[] = ['javascript', 'python', 'cpython'];

/** The language the model writes for a REPL choice. */
export function languageOfChoice(choice: ReplChoice): ReplLanguage {
  return choice === 'cpython' ? 'python' : choice;
}

/** The REPL language a header or run.start records; logs written before Python have none. */
export function replLanguageOf(recorded: { repl?: ReplLanguage } | null | undefined): ReplLanguage {
  return recorded?.repl ?? 'javascript';
}

/** The header line of a native log. */
export interface LogHeader {
  format: typeof NATIVE_FORMAT;
  version: number;
  sessionId: SessionId;
  createdAt: string;
  /** The session's REPL language; absent in logs written before Python (JavaScript). */
  repl?: ReplLanguage;
  /** Set when this session was forked from another. */
  forkOf?: {
    logFile: string;
    sessionId: SessionId;
    runId: RunId;
    iteration: number;
    /**
     * A counterfactual fork: the source call whose result was substituted (its iteration is
     * `iteration`, replayed in full, and the run went live after it) and the re-run's id.
     * Added in version 1 (optional).
     */
    counterfactual?: { callId: string; id: string };
  };
  /** Set on a re-execution (`rlm-studio rerun`): the log whose blocks were run again. Added in version 1 (optional). */
  rerunOf?: { logFile: string; format: 'native' | 'rlm-python' };
}

interface Envelope {
  v: number;
  /** Per-file sequence number, from 0. */
  seq: number;
  /** Monotonic milliseconds since the session started. */
  t: Ms;
  /** Wall clock, ISO 8601 UTC. */
  ts: string;
  runId: RunId;
  parentRunId: RunId | null;
  depth: number;
}

export interface RunStartEvent extends Envelope {
  type: 'run.start';
  /** Where the parent spawned this run; null for a root run. */
  spawnedBy: SpawnPlace | null;
  /** Root runs of a multi-turn session count 0, 1, 2…; children copy their root's turn. */
  turn: number;
  model: string;
  subModel: string | null;
  query: string | null;
  context: ContextMeta;
  limits: Limits;
  /** The messages the history starts with (system prompt, metadata, prologue). */
  messages: ChatMessage[];
  tools: string[];
  /** The language of this run's REPL; absent in logs written before Python (JavaScript). */
  repl?: ReplLanguage;
  /**
   * Saved trajectories shown to this run as worked examples (in its system message). Only a
   * root run has them. Added in version 1 (optional).
   */
  examples?: WorkedExampleRef[];
  /**
   * The request fields sent with every model call besides the model and the messages
   * (temperature, top_p, seed, max_completion_tokens, vendor fields…), by the endpoint's
   * names: of the run's own turns, and of its plain sub-calls when another client makes them.
   * Absent when none were set (the endpoints' defaults). Added in version 1 (optional).
   */
  sampling?: RequestFields;
  /**
   * The prompt pack every text of this run came from: its name and the first 16 hex digits of
   * the sha256 of its canonical JSON. Absent in logs written before packs (our own texts).
   */
  prompts?: PromptPackRef;
  /**
   * What stood between this run's code and the machine (see `SandboxInfo`). Absent in logs
   * written before it was recorded, and for REPLs the engine did not choose. Added in version 1 (optional).
   */
  sandbox?: SandboxInfo;
}

/** See `RunStartEvent.prompts`. */
export interface PromptPackRef {
  name: string;
  hash: string;
}

/**
 * The layers that protected a run's REPL, innermost first: 'isolate' (a V8 isolate without
 * Node), 'memory-limit' (the REPL's memory limit, held against every allocation path),
 * 'scrubbed-env' (its process started without the user's environment: no API keys), 'bwrap'
 * (an OS sandbox: no network, read-only system, no home folder), 'rlimits' (the process's
 * resource limits: file size, open files, CPU), 'seccomp' (a filter refusing new processes).
 * Other names may follow.
 */
export interface SandboxInfo {
  layers: string[];
}

const SANDBOX_LAYER_NAMES: Record<string, string> = {
  isolate: 'isolate',
  'memory-limit': 'memory limit',
  'scrubbed-env': 'scrubbed environment',
  rlimits: 'resource limits',
  seccomp: 'seccomp (no new processes)',
  bwrap: 'OS sandbox (bubblewrap)',
};

/** The layers in words, innermost first ('isolate + memory limit + scrubbed environment'). */
export function sandboxLayersText(info: SandboxInfo): string {
  return info.layers.length === 0 ? 'none' : info.layers.map((l) => SANDBOX_LAYER_NAMES[l] ?? l).join(' + ');
}

/** See `RunStartEvent.sampling`. */
export interface RequestFields {
  turns: Record<string, unknown>;
  /** Null when plain sub-calls use the turns' client. */
  subcalls: Record<string, unknown> | null;
}

/** Characters all of a run's worked examples may take together when the user sets none. */
export const DEFAULT_EXAMPLE_BUDGET = 12_000;

/** A worked example a run was given: the log it was rendered from and what it cost. */
export interface WorkedExampleRef {
  /** The log's path as given (CLI) or as chosen on the host (app). */
  source: string;
  /** Characters of the rendering that went into the system message. */
  chars: number;
  /** The REPL language of the example's code. */
  repl?: ReplLanguage;
}

export interface IterationStartEvent extends Envelope {
  type: 'iteration.start';
  iteration: number;
  /** Messages appended to the history just before this model call (the turn prompt…). */
  appended: ChatMessage[];
  /** Length of the history sent to the model, after `appended`. */
  historyLength: number;
  /** Estimated tokens of the history sent. */
  historyTokens: number;
}

/**
 * 'direct': the one plain call of a run at maxDepth 0 (no REPL, no iterations); it is
 * recorded as iteration 0 (`DIRECT_CALL_ITERATION`). Added in version 1.
 */
export type ModelCallPurpose = 'turn' | 'final_answer' | 'compaction' | 'direct';
export const MODEL_CALL_PURPOSES: readonly ModelCallPurpose[] = ['turn', 'final_answer', 'compaction', 'direct'];
/** The iteration number a direct call's events carry: iterations of the turn loop count from 1. */
export const DIRECT_CALL_ITERATION = 0;

export interface ModelReplyEvent extends Envelope {
  type: 'model.reply';
  iteration: number;
  purpose: ModelCallPurpose;
  model: string;
  text: string;
  usage: Usage;
  /** From the request to the reply, the client's retries included. */
  latencyMs: Ms;
  /**
   * Requests the endpoint refused or failed (429, 5xx, timeouts) before the one that answered:
   * the client's retries, which `latencyMs` includes. Absent when none. Added in version 1
   * (optional): readers that predate it ignore it.
   */
  retries?: number;
  /**
   * Messages sent after the history with this call only and not kept in it: the
   * final-answer request, the compaction request. Absent for ordinary turns.
   */
  transient?: ChatMessage[];
  /** The model's thinking, apart from `text`; absent when it returned none. Added in version 1 (optional). */
  reasoning?: ReplyReasoning;
  /**
   * Why the reply ended, as the endpoint said: 'stop', 'length' (cut by the output-token cap)…
   * Absent when it did not say. Added in version 1 (optional).
   */
  finishReason?: string;
}

/** True for a reply the output-token cap cut off. */
export function wasCut(e: { finishReason?: string }): boolean {
  return e.finishReason === 'length';
}

export interface ModelErrorEvent extends Envelope {
  type: 'model.error';
  iteration: number;
  purpose: ModelCallPurpose;
  model: string;
  message: string;
}

export interface BlockStartEvent extends Envelope {
  type: 'block.start';
  iteration: number;
  /** 0-based index of the ```repl block in the reply. */
  block: number;
  code: string;
  /** Set when a person edited the code before it ran (step-through). */
  edited?: { original: string; byHand: true };
}

export interface BlockEndEvent extends Envelope {
  type: 'block.end';
  iteration: number;
  block: number;
  stdout: string;
  stderr: string;
  error: BlockError | null;
  durationMs: Ms;
  /** CPU time of the isolate while running this block. */
  cpuMs: Ms;
  /** `answer.content` at the moment `answer.ready` became true in this block. */
  submitted: string | null;
  /** Names of the REPL's simple variables after the block (what the model is told). */
  variables: string[];
  /**
   * Every variable after the block, name → value, as the reference format's `locals`. A live
   * run records null, booleans, finite numbers and strings of up to 200 characters as
   * themselves and anything else as a rendering of at most 200 characters; a reference log's
   * import keeps the values it logged (JSON). Added in version 1 (optional): absent in older logs.
   */
  locals?: Record<string, unknown>;
  /** Set when the REPL had to be replaced (state lost). */
  replReset: ReplResetReason | null;
  /** Only in a re-execution's log: how this output compares with the recorded one. Added in version 1 (optional). */
  rerun?: BlockRerun;
}

/** A block's output in the terms a re-execution compares. */
export interface ComparedOutput {
  stdout: string;
  /** In the reference's terms the error is part of it, as the reference writes it (`\nTypeError: …`). */
  stderr: string;
  /** In the reference's terms always null (it is in `stderr`). */
  error: BlockError | null;
  submitted: string | null;
}

/** What the original log recorded for a re-executed block, and whether the new output matched it. */
export interface BlockRerun {
  /** 'rlm-python': compared as the reference library records a block (RLM-SPEC §6.7); 'native': field by field. */
  terms: 'native' | 'rlm-python';
  same: boolean;
  recorded: ComparedOutput;
  /** This execution's output in the same terms. */
  new: ComparedOutput;
}

export type SubcallKind = 'llm' | 'rlm';

export interface SubcallStartEvent extends Envelope {
  type: 'subcall.start';
  callId: CallId;
  iteration: number;
  block: number;
  kind: SubcallKind;
  /** True when an `rlm_query` fell back to a plain call at max depth. */
  leaf: boolean;
  prompt: string;
  model: string;
  batch: { batchId: string; index: number; size: number } | null;
  /** The child run's id when this call spawns a child RLM. */
  childRunId: RunId | null;
}

export interface SubcallEndEvent extends Envelope {
  type: 'subcall.end';
  callId: CallId;
  /** What the code received: the answer, or an `Error: …` string. */
  response: string;
  error: string | null;
  /** Tokens of this call's own model request; zero for a child run (its events carry its usage). */
  usage: Usage;
  latencyMs: Ms;
  /** As `model.reply`'s: the client's retries before a plain call was answered; absent when none. */
  retries?: number;
  /** As `model.reply`'s: a plain call's thinking, apart from `response`. Added in version 1 (optional). */
  reasoning?: ReplyReasoning;
  /** As `model.reply`'s: why a plain call's reply ended. Added in version 1 (optional). */
  finishReason?: string;
  /**
   * Only in a counterfactual fork's log: this call was not made, its result was substituted
   * from a counterfactual re-run of the source log's call (`response`/`error` above are what
   * the code received). Added in version 1 (optional): readers that predate it ignore it.
   */
  counterfactual?: SubcallCounterfactual;
}

/** A sub-call result substituted in a fork: the source log's record of the call and the re-run whose result replaced it. */
export interface SubcallCounterfactual {
  /** The counterfactual re-run's id (a line in the source log's `.counterfactuals.jsonl` sidecar). */
  id: string;
  /** The call as the source log recorded it. */
  recorded: { callId: string; prompt: string; model: string; response: string; error: string | null };
  /** The re-run: its (edited) prompt and model, its usage, and for a child run the session that ran it. */
  rerun: { prompt: string; model: string; usage: Usage; sessionLogFile: string | null };
}

export interface IterationEndEvent extends Envelope {
  type: 'iteration.end';
  iteration: number;
  /** Messages appended to the history after the reply (assistant reply, REPL output). */
  appended: ChatMessage[];
  finalAnswer: string | null;
  durationMs: Ms;
}

export interface CompactionEvent extends Envelope {
  type: 'compaction';
  /** The iteration about to start when the history was compacted. */
  iteration: number;
  count: number;
  tokensBefore: number;
  summary: string;
  /** The new history (replaces the old one). */
  messages: ChatMessage[];
}

export interface ReplResetEvent extends Envelope {
  type: 'repl.reset';
  iteration: number;
  block: number;
  reason: ReplResetReason;
}

export type LimitName = Exclude<StopReason, 'answered' | 'cancelled' | 'error'>;

export interface LimitEvent extends Envelope {
  type: 'limit';
  limit: LimitName;
  message: string;
}

export interface RunEndEvent extends Envelope {
  type: 'run.end';
  answer: string | null;
  stopReason: StopReason;
  /** For limits and errors: the reason in words. */
  message: string | null;
  iterations: number;
  durationMs: Ms;
  /** This run's own model calls plus all descendants' (each call counted once). */
  usage: Usage & { calls: number };
}

export type TrajectoryEvent =
  | RunStartEvent
  | IterationStartEvent
  | ModelReplyEvent
  | ModelErrorEvent
  | BlockStartEvent
  | BlockEndEvent
  | SubcallStartEvent
  | SubcallEndEvent
  | IterationEndEvent
  | CompactionEvent
  | ReplResetEvent
  | LimitEvent
  | RunEndEvent;

/** An event before the sink stamps `v`, `seq`, `t` and `ts`. */
export type EventDraft = TrajectoryEvent extends infer E ? (E extends TrajectoryEvent ? Omit<E, 'v' | 'seq' | 't' | 'ts'> : never) : never;

/** Where the engine sends its events. It has no idea who listens. */
export interface EventSink {
  emit(event: EventDraft): void;
}

/** Requests the client retried before this event's call was answered (0 for any other event). */
export function retriesOf(e: TrajectoryEvent): number {
  return (e.type === 'model.reply' || e.type === 'subcall.end' ? e.retries : 0) ?? 0;
}

/** "1 retry", "3 retries": how the command line and the app say it. */
export function retriesText(n: number): string {
  return `${n} ${n === 1 ? 'retry' : 'retries'}`;
}

export function assertNever(x: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(x)}`);
}
