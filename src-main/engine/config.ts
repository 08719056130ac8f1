// What a run is configured with. Limits use the reference library's meaning.
import {
  CHILD_LLM_MODELS,
  type ChildLlmModel,
  type Limits,
  MAX_ERRORS_MODES,
  type MaxErrorsMode,
  REPL_LANGUAGES,
  type ReplLanguage,
  type RunId,
  type SubcallCounterfactual,
  type SubcallKind,
} from '../../src-shared/events.ts';
import type { LmClient } from '../lm/types.ts';
import type { HostFunction, SandboxValue } from '../sandbox/types.ts';
import type { EngineGates } from './gates.ts';
import type { PromptPack } from '../lm/prompt-pack.ts';
import type { ThinkInReply } from './reasoning-split.ts';
import type { WorkedExample } from './worked-example.ts';

/** A user-supplied tool: a host function or a value, with the line the system prompt shows. */
export interface ToolSpec {
  value: HostFunction | SandboxValue;
  description?: string;
}

export interface SandboxLimits {
  memoryLimitMb: number;
  /** CPU time per block. */
  blockCpuMs: number;
  /** Wall time per block, not counting time blocked in sub-calls. */
  blockWallMs: number;
}

export interface RlmConfig {
  client: LmClient;
  model: string;
  /** Model for `llm_query` and leaf calls when the code names none; defaults to `model`. */
  subModel?: string | null;
  /** Further models the code may name in `llm_query(p, model)`; anything else is an error. */
  extraModels?: string[];
  /**
   * Recursion cap, as in the reference: the root is depth 0 and `rlm_query` spawns a child
   * only while depth + 1 < maxDepth; otherwise it is a plain LM call. 0 is the reference's
   * baseline: no REPL, the context and query go to the model in one plain call.
   */
  maxDepth?: number;
  /**
   * Which model a child run's `llm_query` uses when the code names none: 'sub' (default) the
   * conversation's sub model, as the root's does; 'own' the child's own model, as the reference routes.
   */
  childLlmModel?: ChildLlmModel;
  maxIterations?: number;
  maxBudgetUsd?: number | null;
  maxTimeoutMs?: number | null;
  /** Input + output tokens of a run and its descendants. Not a sampling parameter. */
  maxTokens?: number | null;
  /** Consecutive turns with an error, as `maxErrorsMode` counts them. */
  maxErrors?: number | null;
  /**
   * What makes a turn count toward `maxErrors`: 'thrown' (default) a block that raised;
   * 'stderr' a block that raised or wrote to stderr, as the reference counts.
   */
  maxErrorsMode?: MaxErrorsMode;
  /** Sets both batched caps below at once (each of them wins over it). */
  maxConcurrency?: number;
  /** Concurrent calls inside one `llm_query_batched`; default 16, as the reference. */
  maxConcurrencyLlm?: number;
  /** Concurrent child runs inside one `rlm_query_batched`; default 4, as the reference. */
  maxConcurrencyRlm?: number;
  /** The language the model's code runs in, for the root and every child run; default JavaScript. */
  repl?: ReplLanguage;
  /**
   * Python in the machine's CPython inside the OS sandbox (`--repl cpython`) instead of Pyodide;
   * `python` names the interpreter (default `python3` on PATH). Only with `repl: 'python'`.
   */
  cpython?: { python?: string };
  /** Replaces the built-in system prompt; `{tools}` in it becomes the list of custom tools. */
  systemPrompt?: string;
  /**
   * Saved trajectories rendered as worked examples (`renderWorkedExample`), appended to each
   * root run's system prompt (built-in or custom). Not with maxDepth 0: there is no REPL to
   * write code for.
   */
  examples?: WorkedExample[];
  /** Tools for the root run. */
  tools?: Record<string, ToolSpec>;
  /** Tools for child runs; defaults to `tools`; `{}` gives children none. */
  subTools?: Record<string, ToolSpec>;
  compaction?: boolean;
  /** Fraction of the model's window at which the root history is summarised. */
  compactionThreshold?: number;
  /**
   * The model's context window in tokens: compaction triggers at a share of it, and the sub-LM
   * budgets the prompts quote are sized from it when the sub-calls use this model. Defaults
   * from the table (lm/context-windows.ts).
   */
  contextWindow?: number;
  /** The prompt pack every text comes from; default our own for `repl`. */
  prompts?: PromptPack;
  /** Accept paper-era FINAL(...) / FINAL_VAR(name) in reply text. */
  finalPatterns?: boolean;
  /**
   * A <think>…</think> section at the start of a reply: 'split' (default) off the reply text,
   * so code the model only thought about is not run; 'keep' in it, as the reference reads a
   * reply (a reference prompt pack). Either way the thinking is recorded apart too.
   */
  thinkInReply?: ThinkInReply;
  /**
   * Tell the model when the output-token cap cut its reply inside a ```repl block (default
   * true); the reference says nothing (a reference prompt pack sets false).
   */
  replyCutNotice?: boolean;
  sandbox?: Partial<SandboxLimits>;
  /** Hooks a debugger awaits at each step; absent means run straight through. */
  gates?: EngineGates;
  /**
   * The client of plain sub-calls (`llm_query`, `llm_query_batched`, `rlm_query` at max depth),
   * with their endpoint and sampling; absent: `client`. The turns of the root and of child runs
   * always use `client`, as the reference's child RLMs use the root's backend. A plain call
   * naming the root model (when a distinct sub-model is set) goes to `client`, as the
   * reference routes a call naming a registered model to that model's client.
   */
  subClient?: LmClient;
  /**
   * Sub-call results to use instead of making the call (a counterfactual fork): asked before
   * each sub-call; a call it answers is recorded with its `counterfactual` and never made
   * (no model request, no child run).
   */
  substitutions?: SubcallSubstitutions;
}

/** A sub-call as the engine is about to make it. */
interface SubcallAsk {
  runId: RunId;
  iteration: number;
  block: number;
  kind: SubcallKind;
  prompt: string;
  /** It would spawn a child run. */
  child: boolean;
}

interface SubcallSubstitutions {
  take(call: SubcallAsk): { response: string; error: string | null; counterfactual: SubcallCounterfactual } | null;
}

/** The model choice and limits of a conversation: what a command line or a profile sets. */
export type ConversationSettings = Pick<
  RlmConfig,
  | 'subModel'
  | 'maxDepth'
  | 'maxIterations'
  | 'maxBudgetUsd'
  | 'maxTimeoutMs'
  | 'maxTokens'
  | 'maxErrors'
  | 'maxErrorsMode'
  | 'maxConcurrency'
  | 'maxConcurrencyLlm'
  | 'maxConcurrencyRlm'
  | 'childLlmModel'
  | 'finalPatterns'
  | 'repl'
  | 'contextWindow'
  | 'cpython'
>;

export const RLM_DEFAULTS = {
  maxDepth: 1,
  maxIterations: 30,
  maxConcurrencyLlm: 16,
  maxConcurrencyRlm: 4,
  maxErrorsMode: 'thrown' as MaxErrorsMode,
  childLlmModel: 'sub' as ChildLlmModel,
  compactionThreshold: 0.85,
  sandbox: { memoryLimitMb: 512, blockCpuMs: 20_000, blockWallMs: 120_000 } satisfies SandboxLimits,
} as const;

export function limitsOf(c: RlmConfig): Limits {
  return {
    maxDepth: c.maxDepth ?? RLM_DEFAULTS.maxDepth,
    maxIterations: c.maxIterations ?? RLM_DEFAULTS.maxIterations,
    maxBudgetUsd: c.maxBudgetUsd ?? null,
    maxTimeoutMs: c.maxTimeoutMs ?? null,
    maxTokens: c.maxTokens ?? null,
    maxErrors: c.maxErrors ?? null,
    maxErrorsMode: c.maxErrorsMode ?? RLM_DEFAULTS.maxErrorsMode,
    maxConcurrencyLlm: c.maxConcurrencyLlm ?? c.maxConcurrency ?? RLM_DEFAULTS.maxConcurrencyLlm,
    maxConcurrencyRlm: c.maxConcurrencyRlm ?? c.maxConcurrency ?? RLM_DEFAULTS.maxConcurrencyRlm,
    childLlmModel: c.childLlmModel ?? RLM_DEFAULTS.childLlmModel,
  };
}

/** Checks a configuration before anything runs; throws with the name of the bad field. */
export function validateConfig(c: RlmConfig): void {
  const positiveInt = (name: string, v: number | null | undefined): void => {
    if (v !== undefined && v !== null && (!Number.isInteger(v) || v < 1)) {
      throw new RangeError(`${name} must be a positive integer, got ${v}`);
    }
  };
  const positive = (name: string, v: number | null | undefined): void => {
    if (v !== undefined && v !== null && !(Number.isFinite(v) && v > 0)) {
      throw new RangeError(`${name} must be a positive number, got ${v}`);
    }
  };
  if (!c.model) throw new RangeError('model must be a non-empty model name');
  if (c.repl !== undefined && !REPL_LANGUAGES.includes(c.repl)) {
    throw new RangeError(`repl must be one of ${REPL_LANGUAGES.join(', ')}, got ${String(c.repl)}`);
  }
  if (c.cpython && c.repl !== 'python') throw new RangeError(`cpython runs Python: it needs repl 'python', got ${String(c.repl)}`);
  if (c.maxDepth !== undefined && (!Number.isInteger(c.maxDepth) || c.maxDepth < 0)) {
    throw new RangeError(`maxDepth must be an integer ≥ 0, got ${c.maxDepth}`);
  }
  if ((c.examples?.length ?? 0) > 0 && c.maxDepth === 0) {
    throw new RangeError('worked examples need a REPL: maxDepth 0 is a direct call with no code to write');
  }
  if (c.prompts !== undefined && c.prompts.language !== (c.repl ?? 'javascript')) {
    throw new RangeError(
      `the prompt pack "${c.prompts.name}" is written for a ${c.prompts.language} REPL, and this run's REPL is ${c.repl ?? 'javascript'} (choose it with --repl)`,
    );
  }
  positiveInt('contextWindow', c.contextWindow);
  positiveInt('maxIterations', c.maxIterations);
  positiveInt('maxTokens', c.maxTokens);
  positiveInt('maxErrors', c.maxErrors);
  positiveInt('maxConcurrency', c.maxConcurrency);
  positiveInt('maxConcurrencyLlm', c.maxConcurrencyLlm);
  positiveInt('maxConcurrencyRlm', c.maxConcurrencyRlm);
  if (c.maxErrorsMode !== undefined && !MAX_ERRORS_MODES.includes(c.maxErrorsMode)) {
    throw new RangeError(`maxErrorsMode must be one of ${MAX_ERRORS_MODES.join(', ')}, got ${String(c.maxErrorsMode)}`);
  }
  if (c.childLlmModel !== undefined && !CHILD_LLM_MODELS.includes(c.childLlmModel)) {
    throw new RangeError(`childLlmModel must be one of ${CHILD_LLM_MODELS.join(', ')}, got ${String(c.childLlmModel)}`);
  }
  positive('maxBudgetUsd', c.maxBudgetUsd);
  positive('maxTimeoutMs', c.maxTimeoutMs);
  if (c.compactionThreshold !== undefined && !(c.compactionThreshold > 0 && c.compactionThreshold <= 1)) {
    throw new RangeError(`compactionThreshold must be in (0, 1], got ${c.compactionThreshold}`);
  }
  const reserved = new Set([
    'context',
    'history',
    'answer',
    'print',
    'llm_query',
    'llm_query_batched',
    'rlm_query',
    'rlm_query_batched',
    'SHOW_VARS',
    'FINAL_VAR',
    'FINAL',
  ]);
  for (const [which, tools] of [
    ['tools', c.tools],
    ['subTools', c.subTools],
  ] as const) {
    const clash = Object.keys(tools ?? {}).filter((n) => reserved.has(n) || /^(context|history)_\d+$/.test(n));
    if (clash.length > 0) throw new RangeError(`${which} use reserved names: ${clash.join(', ')}`);
  }
}
