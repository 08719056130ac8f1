// What travels through Redis, validated on arrival: an evaluation's configuration (stored once
// per evaluation; the API keys stay on each worker, named by environment variable), one job per
// session, and a finished job's return value (the result line and the log, gzipped).
import { z } from 'zod';
import { PromptPackSchema } from '../../lm/prompt-pack-schema.ts';
import type { TaskResult } from '../results.ts';
import { SCORERS } from '../tasks/types.ts';

const SamplingSchema = z.object({
  temperature: z.number().optional(),
  topP: z.number().optional(),
  seed: z.number().optional(),
  maxOutputTokens: z.number().optional(),
});

const Settings = z.object({
  subModel: z.string().nullable().optional(),
  maxDepth: z.number().int().nonnegative().optional(),
  maxIterations: z.number().int().positive().optional(),
  maxBudgetUsd: z.number().nullable().optional(),
  maxTimeoutMs: z.number().nullable().optional(),
  maxTokens: z.number().nullable().optional(),
  maxErrors: z.number().nullable().optional(),
  maxErrorsMode: z.enum(['thrown', 'stderr']).optional(),
  maxConcurrency: z.number().int().positive().optional(),
  maxConcurrencyLlm: z.number().int().positive().optional(),
  maxConcurrencyRlm: z.number().int().positive().optional(),
  childLlmModel: z.enum(['sub', 'own']).optional(),
  finalPatterns: z.boolean().optional(),
  repl: z.enum(['javascript', 'python']).optional(),
  contextWindow: z.number().int().positive().optional(),
  /** Python in each worker's own CPython, inside its OS sandbox (`--repl cpython`). */
  // Exact: the wire is JSON, which has no undefined; the engine's option has none either.
  cpython: z.object({ python: z.string().exactOptional() }).optional(),
});

export const WireConfig = z.object({
  model: z.string(),
  baseUrl: z.string(),
  /** The variable each worker reads the root endpoint's key from; null: OPENAI_API_KEY when set, else none. */
  apiKeyEnv: z.string().nullable(),
  sampling: SamplingSchema,
  sub: z.object({ baseUrl: z.string(), apiKeyEnv: z.string().nullable(), sampling: SamplingSchema }).nullable(),
  settings: Settings,
  systemPrompt: z.string().nullable(),
  /** `--stream` (true) or `--no-stream` (false); absent: streamed, except under a reference pack (`streamFor`). */
  stream: z.boolean().optional(),
  /** The --prompts pack, whole (absent: each worker uses ours). */
  prompts: PromptPackSchema.optional(),
  /** The --tools module's source, loaded by each worker (so it must not import files beside it). */
  tools: z.object({ file: z.string(), source: z.string() }).nullable(),
  examples: z.array(z.object({ source: z.string(), repl: z.enum(['javascript', 'python']), text: z.string() })).nullable(),
  dataset: z.string(),
  outDir: z.string(),
  coordinator: z.string(),
  sessions: z.number().int().nonnegative(),
  createdAt: z.string(),
});
export type WireConfig = z.infer<typeof WireConfig>;

export const JobData = z.object({
  evalId: z.string(),
  /** The session's key in results.jsonl. */
  key: z.string(),
  repeat: z.number().int().nonnegative(),
  task: z.object({
    id: z.string(),
    kind: z.string(),
    query: z.string(),
    expected: z.union([z.string(), z.number(), z.array(z.string())]),
    scorer: z.enum(SCORERS),
    sizeTokens: z.number().optional(),
    seed: z.number().optional(),
  }),
  /** Redis key of the context's JSON. */
  contextKey: z.string(),
});
export type JobData = z.infer<typeof JobData>;

const ResultShape = z.looseObject({
  id: z.string(),
  score: z.number(),
  stopReason: z.string(),
  usage: z.looseObject({ calls: z.number() }),
});

export const JobReturn = z.object({
  result: ResultShape.transform((r) => r as unknown as TaskResult),
  /** The native log, gzipped and base64-encoded; null when none was written. */
  log: z.string().nullable(),
  /** `host:pid` of the worker that ran it. */
  worker: z.string(),
});
/** What a worker returns for a job. */
export interface JobReturnValue {
  result: TaskResult;
  log: string | null;
  worker: string;
}
