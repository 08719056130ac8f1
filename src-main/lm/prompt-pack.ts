// A prompt pack: every text the loop sends a model, as versioned data with named slots. The
// engine holds no model-facing wording of its own; it picks slots and fills their variables.
// Our packs are in lm/our-prompt-packs.ts; `prompts import-reference` writes one from the
// user's copy of the reference library. docs/prompt-packs.md describes the format. The schema
// that checks a pack file is in prompt-pack-schema.ts, so that a run with our packs never
// loads zod before its first request.
import { createHash } from 'node:crypto';
import type { PromptPackRef } from '../../src-shared/events.ts';

export const PROMPT_PACK_FORMAT = 'rlm-studio-prompt-pack';
export const PROMPT_PACK_VERSION = 1;

/**
 * Each slot with the variables its template may use (`{name}`, or `{name|one|many}` to pick a
 * word by whether the number is 1). Any other brace is text.
 */
export const SLOT_VARIABLES = {
  /** The root system prompt (built-in, not `--system-prompt`). */
  system: [
    'tools_section',
    'recursion',
    'history',
    'finish',
    'example',
    'window_tokens',
    'max_chars',
    'good_chars',
    'batch_size',
    'batch_chars',
  ],
  /** `{recursion}` when child runs can be spawned. */
  systemRecursionOn: ['child_llm_model'],
  /** `{recursion}` when `rlm_query` is a plain call. */
  systemRecursionOff: [],
  /** `{child_llm_model}`: a child's `llm_query` goes to the sub-model. */
  childLlmModelSub: [],
  /** `{child_llm_model}`: a child's `llm_query` goes to the child's own model. */
  childLlmModelOwn: [],
  /** `{history}` with compaction on; also appended to a custom system prompt under reference semantics. */
  systemCompaction: [],
  /** `{finish}`: how to submit. */
  systemFinish: [],
  /** `{finish}` with the paper-era FINAL / FINAL_VAR protocol on. */
  systemFinishFinalPatterns: [],
  /** `{example}`: a batching example reading the context in pieces of `{chunk}` characters. */
  systemExample: ['chunk', 'chunk_plain'],
  /** `{tools_section}` when there are custom tools ('' when none). */
  toolsSection: ['tools'],
  /** `{custom_tools_section}` in a user's own system prompt. */
  customToolsSection: ['tools'],
  /** One custom tool in `{tools}` (joined by `toolSeparator`). */
  toolLine: ['name', 'description'],
  toolSeparator: [],
  /** A tool without a description: a function, and a value of a REPL type. */
  toolFunction: [],
  toolValue: ['type'],
  /** Appended to a user's own system prompt (the reference appends its orchestrator text). */
  customSystemSuffix: [],
  /** The metadata message (second message), without a query. */
  metadata: ['type', 'total_chars', 'chunks', 'max_chars'],
  /** The metadata message with a query in front. */
  metadataQuery: ['query', 'metadata'],
  /** `{chunks}` for an array / an object context. */
  metadataChunksArray: ['count', 'lengths'],
  metadataChunksObject: ['count', 'lengths'],
  /** Ends `{lengths}` when more than 100 chunks. */
  metadataChunksMore: ['count'],
  /** `{type}` of the metadata message. */
  typeString: [],
  typeArray: [],
  typeObject: [],
  /** Per-turn prompt, the first turn of a run, and later turns. */
  turnFirst: ['turn', 'max_iterations'],
  turn: ['turn', 'max_iterations'],
  /** Appended to the turn prompt: several contexts; one or several earlier conversations. */
  contextsNote: ['count', 'last'],
  historyNoteOne: [],
  historyNoteMany: ['count', 'last'],
  /** The REPL-output message: one block, or each of several (joined by `replOutputSeparator`). */
  replOutput: ['output'],
  replOutputBlock: ['block', 'output'],
  replOutputSeparator: [],
  /** The parts of one block's output, joined by `blockPartSeparator`; `noOutput` when there are none. */
  blockStdout: ['text'],
  blockStderr: ['text'],
  blockError: ['name', 'message'],
  blockVariables: ['names'],
  variableName: ['name'],
  variableSeparator: [],
  blockPartSeparator: [],
  noOutput: [],
  /** Appended to a block's output cut at `outputCap` characters. */
  truncated: ['cut'],
  /** A block after which the REPL had to be restarted. */
  replReset: ['reason'],
  /** The REPL was replaced since the last turn and lost the variables the model made. */
  replLost: [],
  /** The model's previous reply was cut at its output limit (issue 38). */
  replyCut: [],
  /**
   * What paper-era `FINAL_VAR(name)` returns to the code when no variable has that name:
   * `available` lists the variables in the REPL's own notation; `finalVarNoVariables` when there are none.
   */
  finalVarNotFound: ['name', 'available'],
  finalVarNoVariables: ['name'],
  /**
   * What `SHOW_VARS()` returns: `variables` maps each name to its type name in the REPL's own
   * notation (Python `{'a': 'int'}`, JavaScript `{"a": "number"}`); `showVarsEmpty` when there are none.
   */
  showVars: ['variables'],
  showVarsEmpty: [],
  /** What `llm_query`/`rlm_query` return for an empty prompt (no call is made). */
  emptyPrompt: [],
  /** What a sub-call naming a model the run may not use returns: `models`, those it may (joined by ', '). */
  unknownModel: ['model', 'models'],
  /** What a plain sub-call that failed returns (`error`: why); alone, and as one prompt of a batch. */
  subcallFailed: ['error'],
  subcallFailedBatched: ['error'],
  /** What a sub-call given arguments of the wrong type returns: the prompt, a batch's prompts, one of them, the model. */
  badPrompt: ['function', 'type'],
  badPrompts: ['function', 'type'],
  badPromptsItem: ['function', 'index', 'type'],
  badModel: ['function', 'type'],
  /** What a sub-call returns when the run was stopped before or while it was made. */
  subcallStopped: [],
  /** What `rlm_query` returns when its child run could not run, or stopped without an answer. */
  childFailed: ['error'],
  childStopped: ['reason', 'message'],
  childStoppedPartial: ['reason', 'message', 'answer'],
  /** ... when the budget (`spent` and `budget`, in dollars) or the time was used up before the child could start. */
  childBudgetExhausted: ['spent', 'budget'],
  childTimeExhausted: [],
  /** The request at the iteration limit (its role: `roles.finalAnswerRequest`). */
  finalAnswerRequest: [],
  /** The summary request, and the note after the summary. */
  compactionRequest: [],
  compactionNote: ['count'],
  /** The depth-0 call: the context alone, or with a query. */
  directCall: ['context'],
  directCallQuery: ['context', 'query'],
} as const satisfies Record<string, readonly string[]>;

export type SlotName = keyof typeof SLOT_VARIABLES;
export const SLOT_NAMES = Object.keys(SLOT_VARIABLES) as SlotName[];

/** A pack as its file holds it (lm/prompt-pack-schema.ts checks a file against this). */
export interface PromptPack {
  format: typeof PROMPT_PACK_FORMAT;
  version: typeof PROMPT_PACK_VERSION;
  name: string;
  description?: string | undefined;
  /** Where the texts came from (for an imported pack: the library, its version and path). */
  source?: string | undefined;
  /** The REPL language its texts teach; a run in another language is refused. */
  language: 'javascript' | 'python';
  /**
   * 'reference': context lengths, fence parsing and custom system prompts as the reference
   * library does them; 'rlm-studio': ours (docs/prompt-packs.md lists each).
   */
  semantics: 'rlm-studio' | 'reference';
  /** How numbers are written into texts: 'grouped' 384,000; 'plain' 384000. */
  numbers: 'grouped' | 'plain';
  /** Characters of one block's formatted output kept before `truncated`. */
  outputCap: number;
  /** The role of messages whose role differs between packs. */
  roles: { finalAnswerRequest: 'user' | 'assistant' };
  texts: Record<SlotName, string>;
}
export type PackTexts = PromptPack['texts'];

/**
 * Whether model calls stream: as asked, else yes, except under a reference prompt pack, so that
 * every request is byte for byte the reference library's (it never streams). The CLI, the
 * queue's workers and the app's sessions all decide by this.
 */
export function streamFor(asked: boolean | undefined, prompts: PromptPack | undefined): boolean {
  return asked ?? prompts?.semantics !== 'reference';
}

/** sha256 of the pack's canonical JSON (keys sorted), first 16 hex digits. */
export function packHash(pack: PromptPack): string {
  return createHash('sha256').update(canonicalJson(pack)).digest('hex').slice(0, 16);
}

/** What a run records of its pack: enough to tell packs apart and find the one used. */
export function packIdentity(pack: PromptPack): PromptPackRef {
  return { name: pack.name, hash: packHash(pack) };
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export class PromptPackError extends Error {
  override name = 'PromptPackError';
}

/** A variable's value: text as it is, a number as the pack writes numbers. */
export type SlotValue = string | number;

const PLACEHOLDER = /\{([a-z][a-z_]*)(?:\|([^|{}]*)\|([^|{}]*))?\}/g;

/**
 * A slot's text with its variables filled in, in one pass (a value is never read for
 * placeholders). Only the slot's own variables are replaced; other braces stay text.
 */
export function fill(pack: PromptPack, slot: SlotName, values: Partial<Record<string, SlotValue>> = {}): string {
  return fillTemplate(pack.texts[slot], SLOT_VARIABLES[slot], values, pack.numbers);
}

function fillTemplate(
  template: string,
  names: readonly string[],
  values: Partial<Record<string, SlotValue>>,
  numbers: PromptPack['numbers'],
): string {
  return template.replace(PLACEHOLDER, (whole, name: string, one: string | undefined, many: string | undefined) => {
    if (!names.includes(name)) return whole;
    const v = values[name];
    if (v === undefined) return whole;
    if (one !== undefined) return Number(v) === 1 ? one : (many ?? '');
    return typeof v === 'number' ? formatNumber(v, numbers) : v;
  });
}

export function formatNumber(n: number, numbers: PromptPack['numbers']): string {
  if (numbers === 'plain' || !Number.isSafeInteger(n)) return String(n);
  const digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ',');
  return n < 0 ? `-${digits}` : digits;
}
