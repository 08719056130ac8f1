// Option parsing shared by the commands: number parsers that name the option in their
// error, and the limit options `run` and `eval` both take (scripts rely on these names).
import { type Command, InvalidArgumentError, Option } from 'commander';
import { withoutUndefined } from '../../src-shared/defined.ts';
import {
  CHILD_LLM_MODELS,
  type ChildLlmModel,
  MAX_ERRORS_MODES,
  type MaxErrorsMode,
  languageOfChoice,
  REPL_CHOICES,
  REPL_LANGUAGES,
  type ReplChoice,
} from '../../src-shared/events.ts';
import { RLM_DEFAULTS, type ConversationSettings } from '../engine/config.ts';
import { UsageError } from './errors.ts';

export function positiveInt(name: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n) || n < 1)
      throw new InvalidArgumentError(`${name} must be a positive integer, got "${v}".`);
    return n;
  };
}

export function nonNegativeInt(name: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!/^\d+$/.test(v.trim()) || !Number.isSafeInteger(n)) throw new InvalidArgumentError(`${name} must be an integer ≥ 0, got "${v}".`);
    return n;
  };
}

/** A scorer's id in scores.jsonl (`score --name`, `stats --scores`). */
export const isScorerId = (v: string): boolean => /^[\w.-]{1,80}$/.test(v);

export function scorerIdArg(flag: string) {
  return (v: string): string => {
    if (!isScorerId(v)) throw new InvalidArgumentError(`${flag} must be a scorer id (letters, digits, _ . -), got "${v}".`);
    return v;
  };
}

/** A TCP port, 0 for any free one: a larger number otherwise fails only at listen, in Node's words. */
export function portNumber(name: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!/^\d+$/.test(v.trim()) || n > 65535) throw new InvalidArgumentError(`${name} must be a port from 0 to 65535, got "${v}".`);
    return n;
  };
}

function positiveNumber(name: string) {
  return (v: string): number => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`${name} must be a positive number, got "${v}".`);
    return n;
  };
}

/** The values `addLimitOptions` parses. */
export interface LimitOptions {
  subModel?: string;
  maxDepth?: number;
  maxIterations?: number;
  maxBudget?: number;
  maxTimeout?: number;
  maxTokens?: number;
  maxErrors?: number;
  maxErrorsMode?: MaxErrorsMode;
  maxConcurrency?: number;
  maxConcurrencyLlm?: number;
  maxConcurrencyRlm?: number;
  childLlmModel?: ChildLlmModel;
  apiKeyEnv?: string;
  finalPatterns?: boolean;
  repl?: ReplChoice;
  python?: string;
  /** A prompt pack's path (loaded by the command: `loadPromptsOption`). */
  prompts?: string;
  contextWindow?: number;
}

/** `--repl javascript|python` for commands that run only the portable REPLs (`demo`). */
export function languageOption(): Option {
  return new Option('--repl <language>', 'the language of the REPL the model writes code for (default javascript)').choices(REPL_LANGUAGES);
}

/** `--repl javascript|python|cpython`; commander refuses any other value and lists the choices. */
function replOption(): Option {
  return new Option(
    '--repl <language>',
    "the REPL the model writes code for: javascript (default), python (Pyodide in an isolate) or cpython (this machine's CPython inside an OS sandbox: threads, installed packages; Linux with bubblewrap)",
  ).choices(REPL_CHOICES);
}

/** `--python BIN`: the interpreter of `--repl cpython`. */
function pythonOption(): Option {
  return new Option('--python <bin>', 'with --repl cpython: the CPython (3.10 or newer) to run (default python3 on PATH)');
}

/** The engine's REPL settings for `--repl` and `--python`; a usage error for --python without cpython. */
function replSettings(o: { repl?: ReplChoice | undefined; python?: string | undefined }): Pick<ConversationSettings, 'repl' | 'cpython'> {
  if (o.python !== undefined && o.repl !== 'cpython')
    throw new UsageError('--python names the interpreter of --repl cpython; add --repl cpython');
  if (!o.repl) return {};
  return {
    repl: languageOfChoice(o.repl),
    ...(o.repl === 'cpython' ? { cpython: o.python === undefined ? {} : { python: o.python } } : {}),
  };
}

/** `--sub-model`, the limits of one session, the key variable, `--final-patterns` and `--repl`. */
export function addLimitOptions(cmd: Command): Command {
  return cmd
    .option('--sub-model <name>', 'model for llm_query and leaf calls (default: --model)')
    .addOption(
      new Option(
        '--child-llm-model <which>',
        `model of a child run's llm_query that names none: sub = --sub-model (else the child's own model), own = always the child's own model, as the reference routes (default ${RLM_DEFAULTS.childLlmModel})`,
      ).choices(CHILD_LLM_MODELS),
    )
    .addOption(
      new Option(
        '--max-depth <n>',
        `recursion cap: rlm_query spawns children while depth + 1 < n; 0 = no REPL, one plain call with the whole context and query, the reference's baseline (default ${RLM_DEFAULTS.maxDepth})`,
      ).argParser(nonNegativeInt('--max-depth')),
    )
    .addOption(
      new Option('--max-iterations <n>', 'turns per run before asking for a final answer').argParser(positiveInt('--max-iterations')),
    )
    .addOption(
      new Option('--max-budget <usd>', 'stop when a session has spent this many dollars').argParser(positiveNumber('--max-budget')),
    )
    .addOption(new Option('--max-timeout <seconds>', 'stop a session after this much wall time').argParser(positiveNumber('--max-timeout')))
    .addOption(new Option('--max-tokens <n>', 'stop when input+output tokens exceed n').argParser(positiveInt('--max-tokens')))
    .addOption(
      new Option(
        '--max-errors <n>',
        'stop after n consecutive iterations with errors (see --max-errors-mode; default: no limit)',
      ).argParser(positiveInt('--max-errors')),
    )
    .addOption(
      new Option(
        '--max-errors-mode <mode>',
        `what --max-errors counts: thrown = iterations with a block that raised, stderr = any stderr output too, as the reference counts (default ${RLM_DEFAULTS.maxErrorsMode})`,
      ).choices(MAX_ERRORS_MODES),
    )
    .addOption(
      new Option('--max-concurrency <n>', 'sets both --max-concurrency-llm and --max-concurrency-rlm').argParser(
        positiveInt('--max-concurrency'),
      ),
    )
    .addOption(
      new Option(
        '--max-concurrency-llm <n>',
        `concurrent calls within one llm_query_batched (default ${RLM_DEFAULTS.maxConcurrencyLlm}, as the reference)`,
      ).argParser(positiveInt('--max-concurrency-llm')),
    )
    .addOption(
      new Option(
        '--max-concurrency-rlm <n>',
        `concurrent child runs within one rlm_query_batched (default ${RLM_DEFAULTS.maxConcurrencyRlm}, as the reference)`,
      ).argParser(positiveInt('--max-concurrency-rlm')),
    )
    .option('--api-key-env <var>', 'environment variable holding the API key (default OPENAI_API_KEY)')
    .option('--final-patterns', 'paper-era protocol: FINAL(answer) / FINAL_VAR(name) in replies (code included) and as REPL functions')
    .addOption(replOption())
    .option('--prompts <PACK.json>', "the prompt pack every text the model reads comes from (default: ours for --repl; see 'prompts')")
    .addOption(
      new Option(
        '--context-window <n>',
        "the root model's context window in tokens: compaction and the per-call budgets the prompts quote follow it (default: the model table)",
      ).argParser(positiveInt('--context-window')),
    )
    .addOption(pythonOption());
}

/** The engine's names and units for what `addLimitOptions` parsed (seconds become ms). */
export function sessionSettings(o: LimitOptions): ConversationSettings {
  return withoutUndefined<ConversationSettings>({
    subModel: o.subModel ?? null,
    maxDepth: o.maxDepth,
    maxIterations: o.maxIterations,
    maxBudgetUsd: o.maxBudget ?? null,
    maxTimeoutMs: o.maxTimeout === undefined ? null : o.maxTimeout * 1000,
    maxTokens: o.maxTokens ?? null,
    maxErrors: o.maxErrors ?? null,
    ...(o.maxErrorsMode ? { maxErrorsMode: o.maxErrorsMode } : {}),
    maxConcurrency: o.maxConcurrency,
    ...(o.maxConcurrencyLlm !== undefined ? { maxConcurrencyLlm: o.maxConcurrencyLlm } : {}),
    ...(o.maxConcurrencyRlm !== undefined ? { maxConcurrencyRlm: o.maxConcurrencyRlm } : {}),
    ...(o.childLlmModel ? { childLlmModel: o.childLlmModel } : {}),
    finalPatterns: o.finalPatterns ?? false,
    ...replSettings(o),
    ...(o.contextWindow !== undefined ? { contextWindow: o.contextWindow } : {}),
  });
}
