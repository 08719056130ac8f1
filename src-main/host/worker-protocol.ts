// Messages between the host and a session's worker process, over the fork() IPC channel.
// Both directions are validated on arrival: a worker is a separate process that may be
// half-dead or confused, and the host must not trust it any more than a client.
import { z } from 'zod';
import {
  Breakpoint,
  BreakpointKind,
  ContextSource,
  ReplChoiceInput,
  ReplLanguageInput,
  ReplyEditInput,
  SamplingInput,
} from '../../src-shared/protocol.ts';
import { PromptPackSchema } from '../lm/prompt-pack-schema.ts';
import { ReplayPlan } from '../lm/replay-client.ts';

const nullableNum = z.number().nullable();

/** Everything a worker needs to run one session. The API key travels here and nowhere else. */
export const WorkerSpec = z.strictObject({
  sessionId: z.string(),
  baseUrl: z.string(),
  apiKey: z.string().nullable(),
  model: z.string(),
  subModel: z.string().nullable(),
  prices: z.record(
    z.string(),
    z.strictObject({ inputPerMTok: z.number(), outputPerMTok: z.number(), cachedInputPerMTok: z.number().optional() }),
  ),
  /** Sampling of root calls (the turns of the root and of child runs). */
  sampling: SamplingInput,
  /** Sub-calls' own endpoint (a sub-call profile); null: sub-calls use the root's client. */
  sub: z
    .strictObject({
      baseUrl: z.string(),
      apiKey: z.string().nullable(),
      prices: z.record(
        z.string(),
        z.strictObject({ inputPerMTok: z.number(), outputPerMTok: z.number(), cachedInputPerMTok: z.number().optional() }),
      ),
      sampling: SamplingInput,
    })
    .nullable(),
  context: ContextSource,
  query: z.string().nullable(),
  limits: z.strictObject({
    maxDepth: z.number().int().optional(),
    maxIterations: z.number().int().optional(),
    maxBudgetUsd: nullableNum.optional(),
    maxTimeoutMs: nullableNum.optional(),
    maxTokens: nullableNum.optional(),
    maxErrors: nullableNum.optional(),
    maxErrorsMode: z.enum(['thrown', 'stderr']).optional(),
    maxConcurrency: z.number().int().optional(),
    maxConcurrencyLlm: z.number().int().optional(),
    maxConcurrencyRlm: z.number().int().optional(),
    childLlmModel: z.enum(['sub', 'own']).optional(),
  }),
  breakpoints: z.array(Breakpoint),
  startPaused: z.boolean(),
  replay: ReplayPlan.nullable(),
  repl: ReplChoiceInput,
  /** Replaces the built-in system prompt; null: the built-in one. */
  systemPrompt: z.string().nullable(),
  finalPatterns: z.boolean(),
  /** A custom tools module, loaded by the worker. */
  tools: z.string().nullable(),
  /** Worked examples, rendered on the host from the logs the session names. */
  examples: z.array(z.strictObject({ source: z.string(), repl: ReplLanguageInput, text: z.string() })).optional(),
  /** Keep the engine conversation (its REPL) after a finished completion, for `followUp` turns until `end`. */
  followUps: z.boolean().optional(),
  /** The prompt pack, read on the host (absent: ours for the REPL). */
  prompts: PromptPackSchema.optional(),
  /** The root model's context window in tokens (absent: the model table's). */
  contextWindow: z.number().int().positive().optional(),
});
export type WorkerSpec = z.infer<typeof WorkerSpec>;

/** A re-execution of a recorded session (`session.rerun`) instead of a live run. */
export const RerunSpec = z.strictObject({
  sessionId: z.string(),
  /** The recorded log: its file on the host, or its events (a log opened from text). */
  source: z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('file'), path: z.string() }),
    z.strictObject({ kind: z.literal('events'), events: z.array(z.unknown()) }),
  ]),
  format: z.enum(['native', 'rlm-python']),
  context: ContextSource,
  /** A custom tools module on the host, or null. */
  tools: z.string().nullable(),
  repl: ReplChoiceInput,
});
export type RerunSpec = z.infer<typeof RerunSpec>;

export const ToWorker = z.discriminatedUnion('t', [
  z.strictObject({ t: z.literal('start'), spec: WorkerSpec }),
  z.strictObject({ t: z.literal('rerun'), spec: RerunSpec }),
  /** To a spare worker: start a Python interpreter now, so a Python session takes it at once. */
  z.strictObject({ t: z.literal('warm'), repl: z.literal('python') }),
  z.strictObject({ t: z.literal('pause') }),
  z.strictObject({ t: z.literal('continue'), all: z.boolean().optional() }),
  z.strictObject({ t: z.literal('step') }),
  z.strictObject({ t: z.literal('cancel') }),
  z.strictObject({ t: z.literal('breakpoints'), breakpoints: z.array(Breakpoint) }),
  z.strictObject({ t: z.literal('edit'), req: z.number().int(), edit: ReplyEditInput }),
  z.strictObject({ t: z.literal('variables'), req: z.number().int(), runId: z.string() }),
  /** Another completion in the kept conversation: `context` null means the query text is the context. */
  z.strictObject({ t: z.literal('followUp'), query: z.string(), context: ContextSource.nullable(), breakpoints: z.array(Breakpoint) }),
  /** The kept conversation is no longer wanted: dispose it and exit. */
  z.strictObject({ t: z.literal('end') }),
]);
export type ToWorker = z.infer<typeof ToWorker>;

const PauseInfoSchema = z.strictObject({
  kind: z.union([BreakpointKind, z.literal('manual')]),
  runId: z.string(),
  depth: z.number().int(),
  iteration: z.number().int(),
  block: z.number().int().nullable(),
  reply: z.strictObject({ text: z.string(), blocks: z.array(z.string()) }).nullable(),
});

const LiveReplyDeltaSchema = z.strictObject({
  runId: z.string(),
  depth: z.number().int().nonnegative(),
  iteration: z.number().int(),
  purpose: z.enum(['turn', 'final_answer', 'compaction', 'direct']),
  model: z.string(),
  content: z.string(),
  reasoning: z.string(),
  tokens: z.number().int().nonnegative(),
  elapsedMs: z.number().nonnegative(),
});

const VariableViewSchema = z.strictObject({ name: z.string(), type: z.string(), size: z.number().nullable(), preview: z.string() });

export const FromWorker = z.discriminatedUnion('t', [
  z.strictObject({ t: z.literal('ready') }),
  /** Events are checked with the codec's event schema by the host (see live-sessions.ts). */
  z.strictObject({ t: z.literal('events'), events: z.array(z.unknown()) }),
  z.strictObject({ t: z.literal('status'), status: z.enum(['running', 'paused']), pause: PauseInfoSchema.nullable() }),
  z.strictObject({
    t: z.literal('result'),
    req: z.number().int(),
    ok: z.boolean(),
    error: z.string().optional(),
    variables: z.array(VariableViewSchema).optional(),
    pause: PauseInfoSchema.nullable().optional(),
  }),
  z.strictObject({
    t: z.literal('done'),
    stopReason: z.string(),
    message: z.string().nullable(),
    replay: z.strictObject({ replayed: z.number(), live: z.number(), edited: z.number() }).nullable(),
  }),
  z.strictObject({ t: z.literal('fatal'), message: z.string() }),
  /** A reply while it streams (not logged): pieces in the order they came. */
  z.strictObject({ t: z.literal('live'), deltas: z.array(LiveReplyDeltaSchema) }),
]);
export type FromWorker = z.infer<typeof FromWorker>;
