// The messages the model sees, built from a prompt pack (lm/prompt-pack.ts): this module
// decides which slots a message is made of and fills their variables; every word comes from
// the pack. Without a pack, our own for the REPL's language (lm/our-prompt-packs.ts).
import type { ChildLlmModel, ContextMeta, ReplLanguage } from '../../src-shared/events.ts';
import type { ReplTexts } from '../../src-shared/repl-texts.ts';
import { DEFAULT_CONTEXT_WINDOW } from '../lm/context-windows.ts';
import { subLmBudgets, type SubLmBudgets } from './sub-lm-budgets.ts';
import { defaultPack } from '../lm/our-prompt-packs.ts';
import { fill, formatNumber, type PromptPack } from '../lm/prompt-pack.ts';
import type { FinalVarRules } from '../sandbox/types.ts';

/** How many chunk lengths the metadata message lists before eliding the rest. */
const MAX_LISTED_CHUNKS = 100;

/** Budgets quoted when the sub-model's window is not known (the table's default window). */
const DEFAULT_SUB_LM_BUDGETS: SubLmBudgets = subLmBudgets(DEFAULT_CONTEXT_WINDOW);

export interface ToolDescription {
  name: string;
  description: string;
}

export interface SystemPromptOptions {
  tools: ToolDescription[];
  recursion: boolean;
  compaction: boolean;
  finalPatterns: boolean;
  /** Default JavaScript. */
  language?: ReplLanguage;
  /** Sized from the sub-model's context window (`subLmBudgets`); default: the default window's. */
  budgets?: SubLmBudgets;
  /** Where a child run's `llm_query` goes (said where the prompt describes `rlm_query`); default 'sub'. */
  childLlmModel?: ChildLlmModel;
  /** Default: our pack for `language`. */
  pack?: PromptPack;
}

/** The pack a message is built from: the one given, else ours for the language. */
function packOf(pack: PromptPack | undefined, language: ReplLanguage | undefined): PromptPack {
  return pack ?? defaultPack(language ?? 'javascript');
}

/**
 * `n.toLocaleString('en-US')` for the whole numbers the prompts print, without it: the first
 * call loads ICU's locale data, ~12 ms before a command line's first request.
 */
export function chars(n: number): string {
  return Number.isSafeInteger(n) ? formatNumber(n, 'grouped') : n.toLocaleString('en-US');
}

/** The custom tools as the pack lists them ('' when there are none). */
function formatToolList(tools: ToolDescription[], pack: PromptPack): string {
  return tools.map((t) => fill(pack, 'toolLine', { name: t.name, description: t.description })).join(pack.texts.toolSeparator);
}

/** The REPL type name of a tool's value, as its language names it. */
function valueTypeName(value: unknown, language: ReplLanguage): string {
  if (language === 'javascript') return Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  if (value === null) return 'None';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  return 'dict';
}

/** What the prompt says of a tool that came without a description, in the REPL's own type names. */
export function defaultToolDescription(value: unknown, language: ReplLanguage = 'javascript', pack?: PromptPack): string {
  const p = packOf(pack, language);
  if (typeof value === 'function') return p.texts.toolFunction;
  return fill(p, 'toolValue', { type: valueTypeName(value, language) });
}

/**
 * A user's own system prompt. Ours: `{tools}` becomes the tool list, `{custom_tools_section}`
 * (the reference library's placeholder) the pack's tools section. Under reference semantics as
 * the reference fills it: Python's `format` (doubled braces become single), then the pack's
 * suffix and, with compaction, its compaction sentence.
 */
export function fillSystemPrompt(template: string, tools: ToolDescription[], pack: PromptPack = defaultPack(), compaction = false): string {
  const list = formatToolList(tools, pack);
  const section = tools.length === 0 ? '' : fill(pack, 'customToolsSection', { tools: list });
  if (pack.semantics !== 'reference') return template.replaceAll('{tools}', list).replaceAll('{custom_tools_section}', section);
  const formatted = template.replace(/\{\{|\}\}|\{custom_tools_section\}/g, (m) => (m === '{{' ? '{' : m === '}}' ? '}' : section));
  return formatted + pack.texts.customSystemSuffix + (compaction ? pack.texts.systemCompaction : '');
}

export function buildSystemPrompt(opts: SystemPromptOptions): string {
  const pack = packOf(opts.pack, opts.language);
  const b = opts.budgets ?? DEFAULT_SUB_LM_BUDGETS;
  const recursion = opts.recursion
    ? fill(pack, 'systemRecursionOn', {
        child_llm_model: pack.texts[(opts.childLlmModel ?? 'sub') === 'own' ? 'childLlmModelOwn' : 'childLlmModelSub'],
      })
    : pack.texts.systemRecursionOff;
  return fill(pack, 'system', {
    recursion,
    tools_section: opts.tools.length === 0 ? '' : fill(pack, 'toolsSection', { tools: formatToolList(opts.tools, pack) }),
    history: opts.compaction ? pack.texts.systemCompaction : '',
    finish: pack.texts[opts.finalPatterns ? 'systemFinishFinalPatterns' : 'systemFinish'],
    example: fill(pack, 'systemExample', { chunk: b.goodChars, chunk_plain: String(b.goodChars) }),
    window_tokens: b.windowTokens,
    max_chars: b.maxChars,
    good_chars: b.goodChars,
    batch_size: b.batchSize,
    batch_chars: b.batchChars,
  });
}

export function buildMetadataMessage(
  meta: ContextMeta,
  query: string | null,
  language: ReplLanguage = 'javascript',
  budgets: SubLmBudgets = DEFAULT_SUB_LM_BUDGETS,
  pack?: PromptPack,
): string {
  const p = packOf(pack, language);
  const n = meta.chunkLengths.length;
  let chunks = '';
  if (meta.type !== 'string') {
    const listed = meta.chunkLengths
      .slice(0, MAX_LISTED_CHUNKS)
      .map((l) => formatNumber(l, 'plain'))
      .join(', ');
    const more = n > MAX_LISTED_CHUNKS ? fill(p, 'metadataChunksMore', { count: n - MAX_LISTED_CHUNKS }) : '';
    chunks = fill(p, meta.type === 'array' ? 'metadataChunksArray' : 'metadataChunksObject', { count: n, lengths: listed + more });
  }
  const type = p.texts[meta.type === 'string' ? 'typeString' : meta.type === 'array' ? 'typeArray' : 'typeObject'];
  const metadata = fill(p, 'metadata', { type, total_chars: meta.totalChars, chunks, max_chars: budgets.maxChars });
  // An empty query is no query: the model is not shown a bare query line (the reference's test is
  // Python's truth: only '' is empty; ours: blanks too).
  const none = query === null || (p.semantics === 'reference' ? query === '' : query.trim() === '');
  return none ? metadata : fill(p, 'metadataQuery', { query, metadata });
}

export interface TurnPromptOptions {
  turn: number;
  maxIterations: number;
  contextCount: number;
  historyCount: number;
  pack?: PromptPack;
}

export function buildTurnPrompt(o: TurnPromptOptions): string {
  const p = packOf(o.pack, undefined);
  let text = fill(p, o.turn === 1 ? 'turnFirst' : 'turn', { turn: o.turn, max_iterations: o.maxIterations });
  if (o.contextCount > 1) text += fill(p, 'contextsNote', { count: o.contextCount, last: o.contextCount - 1 });
  if (o.historyCount === 1) text += p.texts.historyNoteOne;
  else if (o.historyCount > 1) text += fill(p, 'historyNoteMany', { count: o.historyCount, last: o.historyCount - 1 });
  return text;
}

export interface BlockOutput {
  stdout: string;
  stderr: string;
  error: { name: string; message: string } | null;
  variables: string[];
  /** Why the REPL had to be restarted after this block (the pack says it), or null. */
  replReset: string | null;
}

/**
 * Cuts at `cap` characters counted as Python's `len` counts them (code points), as the reference
 * does: a character outside the BMP is never split into a lone surrogate, and the number cut is
 * the reference's.
 */
function truncateForModel(text: string, pack: PromptPack): string {
  const cap = pack.outputCap;
  // Fewer UTF-16 units than the cap means fewer code points too.
  if (text.length <= cap) return text;
  let end = 0;
  let kept = 0;
  while (kept < cap && end < text.length) {
    end += (text.codePointAt(end) ?? 0) > 0xffff ? 2 : 1;
    kept++;
  }
  if (end >= text.length) return text;
  let cut = 0;
  for (let i = end; i < text.length; i += (text.codePointAt(i) ?? 0) > 0xffff ? 2 : 1) cut++;
  return text.slice(0, end) + fill(pack, 'truncated', { cut: String(cut) });
}

/**
 * One block's output. Ours: stdout and stderr lose their final newline and an error is a part
 * of its own. Reference semantics: both kept as printed, and an error is the end of stderr, as
 * the reference's REPL writes it.
 */
function formatBlock(b: BlockOutput, pack: PromptPack): string {
  const t = pack.texts;
  const reference = pack.semantics === 'reference';
  const parts: string[] = [];
  if (b.replReset) parts.push(fill(pack, 'replReset', { reason: b.replReset }));
  const error = b.error ? fill(pack, 'blockError', { name: b.error.name, message: b.error.message }) : '';
  const stdout = reference ? b.stdout : b.stdout.replace(/\n$/, '');
  const stderr = reference ? (error ? `${b.stderr}\n${error}` : b.stderr) : b.stderr.replace(/\n$/, '');
  if (stdout) parts.push(fill(pack, 'blockStdout', { text: stdout }));
  if (stderr) parts.push(fill(pack, 'blockStderr', { text: stderr }));
  if (error && !reference) parts.push(error);
  if (b.variables.length > 0) {
    const names = b.variables.map((name) => fill(pack, 'variableName', { name })).join(t.variableSeparator);
    parts.push(fill(pack, 'blockVariables', { names }));
  }
  return parts.length === 0 ? t.noOutput : parts.join(t.blockPartSeparator);
}

/** One user message with every block's output, each block capped separately. */
export function buildReplOutputMessage(blocks: BlockOutput[], language: ReplLanguage = 'javascript', pack?: PromptPack): string {
  const p = packOf(pack, language);
  if (blocks.length === 1) return fill(p, 'replOutput', { output: truncateForModel(formatBlock(blocks[0]!, p), p) });
  return blocks
    .map((b, i) => fill(p, 'replOutputBlock', { block: i + 1, output: truncateForModel(formatBlock(b, p), p) }))
    .join(p.texts.replOutputSeparator);
}

export function compactionNote(count: number, pack: PromptPack = defaultPack()): string {
  return fill(pack, 'compactionNote', { count });
}

/** The one message of a depth-0 call: the context as text, with the query where the pack has it. */
export function directPrompt(contextText: string, query: string | null, pack: PromptPack = defaultPack()): string {
  return query === null || query === ''
    ? fill(pack, 'directCall', { context: contextText })
    : fill(pack, 'directCallQuery', { context: contextText, query });
}

/** What the REPL itself returns to the code (SHOW_VARS, an empty prompt, a failed call), from the pack. */
export function replTexts(pack: PromptPack): ReplTexts {
  const t = pack.texts;
  return {
    showVars: t.showVars,
    showVarsEmpty: t.showVarsEmpty,
    emptyPrompt: t.emptyPrompt,
    subcallFailed: t.subcallFailed,
    subcallFailedBatched: t.subcallFailedBatched,
    badPrompt: t.badPrompt,
    badPrompts: t.badPrompts,
    badPromptsItem: t.badPromptsItem,
    badModel: t.badModel,
  };
}

/**
 * How paper-era FINAL_VAR behaves in a run's REPL: its "not found" texts from the pack, and under
 * the reference's semantics, only the variables a block started with (its REPL makes a block's
 * assignments variables when the block ends).
 */
export function finalVarRules(pack: PromptPack): FinalVarRules {
  return { notFound: pack.texts.finalVarNotFound, noVariables: pack.texts.finalVarNoVariables, blockStart: pack.semantics === 'reference' };
}
