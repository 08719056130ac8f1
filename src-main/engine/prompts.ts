// The texts the model sees. Our own wording, for a JavaScript or a Python REPL; the structure
// (system prompt, metadata message, short per-turn prompts, one REPL-output message per
// turn) follows the reference library so trained habits carry over. The fixed texts others
// recognise (the markers, the final-answer and compaction requests) are in lm/prompt-markers.ts.
import type { ChildLlmModel, ContextMeta, ReplLanguage } from '../../src-shared/events.ts';
import { DEFAULT_CONTEXT_WINDOW } from '../lm/context-windows.ts';
import { subLmBudgets, type SubLmBudgets } from './sub-lm-budgets.ts';
import { MARKERS } from '../lm/prompt-markers.ts';

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
}

/** One sentence on the model a child run's `llm_query` uses, for prompts that describe child runs. */
function childLlmModelSentence(which: ChildLlmModel): string {
  return which === 'own'
    ? "A child RLM's `llm_query` calls go to the child's own model (the one named in `rlm_query(prompt, model)`, else yours)."
    : "A child RLM's `llm_query` calls go to the same sub-LM as yours.";
}

/** The words and snippets that differ between the two REPLs; the teaching is the same. */
interface Dialect {
  name: string;
  probe: string;
  persistence: string;
  contextTypes: string;
  str: string;
  strList: string;
  sig: (name: string) => string;
  answerInit: string;
  submit: string;
  ready: string;
  trueWord: string;
  historyType: string;
  /** A filter-and-batch example reading the context in pieces of `chunk` characters. */
  example: (chunk: number) => string;
}

const DIALECTS: Record<ReplLanguage, Dialect> = {
  javascript: {
    name: 'JavaScript',
    probe: 'print(typeof context, context.length);',
    persistence:
      'Variables persist across blocks and turns (re-declaring a `const` or `let` in a later turn is fine), and top-level `await` works. Only what you print comes back to you: use `print(...)` or `console.log(...)`; the value of a last expression is not shown. The REPL has the JavaScript standard library; there is no `require`, no file system and no network.',
    contextTypes: 'a string, or the parsed value of a JSON context: an array or an object',
    str: 'string',
    strList: 'string[]',
    sig: (name) => `${name}(${name.endsWith('batched') ? 'prompts' : 'prompt'}, model?)`,
    answerInit: 'an object `{ content: "", ready: false }`',
    submit: 'answer.content = finalText;\nanswer.ready = true;',
    ready: '`answer.ready`',
    trueWord: 'true',
    historyType: 'an array',
    example: (chunk) =>
      `const parts = [];\nfor (let i = 0; i < context.length; i += ${chunk}) parts.push(context.slice(i, i + ${chunk}));\nconst replies = llm_query_batched(parts.map((p) => "List every date mentioned below, one per line, or NONE.\\n\\n" + p));\nprint(replies.length, replies.slice(0, 2));`,
  },
  python: {
    name: 'Python',
    probe: 'print(type(context).__name__, len(context))',
    persistence:
      'Variables, functions and imports persist across blocks and turns. Only what you print comes back to you: this is not a notebook, and the value of a last expression is not shown. The standard library imports as usual (`re`, `json`, `collections`, `math`…); there is no network and no file of the machine.',
    contextTypes: 'a `str`, or the parsed value of a JSON context: a `list` or a `dict`',
    str: 'str',
    strList: 'list[str]',
    sig: (name) => `${name}(${name.endsWith('batched') ? 'prompts' : 'prompt'}, model=None)`,
    answerInit: 'a dict `{"content": "", "ready": False}`',
    submit: 'answer["content"] = final_text\nanswer["ready"] = True',
    ready: '`answer["ready"]`',
    trueWord: 'True',
    historyType: 'a list',
    example: (chunk) =>
      `parts = [context[i:i + ${chunk}] for i in range(0, len(context), ${chunk})]\nreplies = llm_query_batched(["List every date mentioned below, one per line, or NONE.\\n\\n" + p for p in parts])\nprint(len(replies), replies[:2])`,
  },
};

const fence = (code: string): string => `\`\`\`repl\n${code}\n\`\`\``;
/**
 * `n.toLocaleString('en-US')` for the whole numbers the prompts print, without it: the first
 * call loads ICU's locale data, ~12 ms before a command line's first request.
 */
export function chars(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+$)/g, ',');
  return n < 0 ? `-${digits}` : digits;
}

/** The custom tools as the system prompt lists them, one line each ('' when there are none). */
function formatToolList(tools: ToolDescription[]): string {
  return tools.map((t) => `- \`${t.name}\`: ${t.description}`).join('\n');
}

/** What the prompt says of a tool that came without a description, in the REPL's own type names. */
export function defaultToolDescription(value: unknown, language: ReplLanguage = 'javascript'): string {
  if (typeof value === 'function') return 'a custom function';
  if (language === 'javascript') return `a custom ${Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value} value`;
  const type =
    value === null
      ? 'None'
      : Array.isArray(value)
        ? 'list'
        : typeof value === 'string'
          ? 'str'
          : typeof value === 'boolean'
            ? 'bool'
            : typeof value === 'number'
              ? Number.isInteger(value)
                ? 'int'
                : 'float'
              : 'dict';
  return `a custom ${type} value`;
}

/**
 * A user's own system prompt: `{tools}` becomes the tool list; `{custom_tools_section}` (the
 * reference library's placeholder) the section as the reference writes it, so its prompt can
 * be used as it stands.
 */
export function fillSystemPrompt(template: string, tools: ToolDescription[]): string {
  const list = formatToolList(tools);
  const section = tools.length === 0 ? '' : `\n6. Custom tools and data available in the REPL:\n${list}\n`;
  return template.replaceAll('{tools}', list).replaceAll('{custom_tools_section}', section);
}

export function buildSystemPrompt(opts: SystemPromptOptions): string {
  const d = DIALECTS[opts.language ?? 'javascript'];
  const b = opts.budgets ?? DEFAULT_SUB_LM_BUDGETS;
  const rlmLines = opts.recursion
    ? `- \`${d.sig('rlm_query')}\` → ${d.str}: hands \`prompt\` to a child RLM, which gets its own ${d.name} REPL with \`prompt\` as its \`context\`, works in turns as you do, and returns its answer. Use it for sub-problems that themselves need code and several steps; a plain \`llm_query\` is cheaper for everything else.\n- \`${d.sig('rlm_query_batched')}\` → ${d.strList}: several child RLMs at once, answers in input order. ${childLlmModelSentence(opts.childLlmModel ?? 'sub')}`
    : `- \`rlm_query\` / \`rlm_query_batched\`: recursion is off in this run; they behave like \`llm_query\` / \`llm_query_batched\`.`;
  const toolLines = opts.tools.length === 0 ? '' : `\nCustom tools and data in the REPL:\n${formatToolList(opts.tools)}\n`;
  const historyLine = opts.compaction
    ? `\nWhen the conversation grows long it is summarised; the complete earlier history stays in the REPL variable \`history\` (${d.historyType}).\n`
    : '';
  const finish = opts.finalPatterns
    ? `When you are done, submit in a repl block:\n${fence(d.submit)}\nor write FINAL(your answer) on a line of its own, or FINAL_VAR(name) to answer with the value of a REPL variable (create the variable in a repl block first). FINAL and FINAL_VAR are also functions in the REPL, so they work inside a repl block too (there, give FINAL_VAR the name as a string: FINAL_VAR("name")). The run ends with the first answer submitted.`
    : `When you are done, submit in a repl block:\n${fence(d.submit)}\nThe run ends as soon as ${d.ready} is ${d.trueWord}, with the content as the answer.`;

  return `${MARKERS.system} (RLM). You answer a query about a context that can be far larger than your own window. The context is not in this conversation: it is held in a persistent ${d.name} REPL, and you work on it by writing code. You will be prompted turn by turn until you submit an answer.

Your role
You are an orchestrator, not a solver or a reader. Your own window is small: keep your tokens for decisions (what to ask next, how to combine replies, when to finish) and hand every long-text operation (reading, summarising, classifying, extracting, checking, even recapping your own progress) to sub-LM calls. Where plain code pins the answer (a regular expression, a keyword search, slicing, counting, arithmetic), use it: it is fast and exact. Long printed output fills your window as the raw context would: to take in a long result, ask a sub-LM for a one- or two-sentence recap and print that.

The REPL
Write code in fenced blocks tagged \`repl\`:
${fence(d.probe)}
Every repl block in your reply runs, in order. ${d.persistence} A block's output beyond about 20,000 characters is cut, so print counts, samples and short summaries, never the whole context.

In the REPL:
- \`context\`: the context (${d.contextTypes}). With several contexts they are also \`context_0\`, \`context_1\`, …
- \`${d.sig('llm_query')}\` → ${d.str}: one call to a sub-LM; it returns when the reply is back.
- \`${d.sig('llm_query_batched')}\` → ${d.strList}: many independent sub-LM calls run concurrently, replies in input order. Much faster than \`llm_query\` in a loop.
${rlmLines}
- \`SHOW_VARS()\` → ${d.str}: the variables you have created.
- \`answer\`: ${d.answerInit}.
Sub-call functions never fail in your code: a failed call returns a string starting with "Error:", so check replies before using them.
${toolLines}${historyLine}
Sub-LMs
A sub-LM has no REPL, no tools and no memory of this conversation: it sees only the prompt you give it. Give it clean, focused input with everything it needs (the instruction, the question, the piece of text) and ask for a terse, structured reply (a number, a label, one line, or JSON) that your code can parse.
Budgets, sized for the sub-model's window of about ${chars(b.windowTokens)} tokens: one prompt can hold at most about ${chars(b.maxChars)} characters, and is read most reliably under about ${chars(b.goodChars)}; a batch of more than about ${b.batchSize} prompts rarely pays off, so one batch of well-sized prompts covers about ${chars(b.batchChars)} characters. Batching runs the calls at the same time; it raises neither limit. Fill each prompt close to the reliable size (many items, a whole document) rather than sending many tiny prompts; for many units, send several batches of about ${b.batchSize} one after another, not one huge batch; and prefer one batched call to a loop of single calls. When the work is larger than one batch covers, do not brute-force it: filter with code first down to the parts that matter, or work in stages (a cheap first pass to narrow the candidates, a second pass to read the survivors closely). For example:
${fence(d.example(b.goodChars))}

How to work
1. Probe first: print the type, the size and a few short samples of \`context\`. Do not submit on your first turn without having looked at it.
2. Plan before you execute: say in a few lines how the task decomposes into code and sub-LM steps, and sketch the turns (what each computes, which sub-LM calls it makes). Then carry the plan out one turn at a time; one repl block per turn is fine: read its output before going on.
3. At each step print a small sample of what you produced (a few sub-LM replies, a partial count) and check it before building on it. Keep results in variables rather than in your head.
4. Print the candidate answer and check that it answers the query as asked; set ready only after that. Until then you can change the content as often as you like.
5. If you are running out of turns, submit your best inference rather than no answer.

${finish}`;
}

/** The context's type as the REPL's language names it. */
function contextTypeName(meta: ContextMeta, language: ReplLanguage = 'javascript'): string {
  if (language === 'python') return meta.type === 'string' ? 'str' : meta.type === 'array' ? 'list' : 'dict';
  return meta.type;
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

export function buildMetadataMessage(
  meta: ContextMeta,
  query: string | null,
  language: ReplLanguage = 'javascript',
  budgets: SubLmBudgets = DEFAULT_SUB_LM_BUDGETS,
): string {
  const listed = meta.chunkLengths.slice(0, MAX_LISTED_CHUNKS).join(', ');
  const more = meta.chunkLengths.length > MAX_LISTED_CHUNKS ? `, … and ${meta.chunkLengths.length - MAX_LISTED_CHUNKS} more` : '';
  const n = meta.chunkLengths.length;
  const chunks =
    meta.type === 'string'
      ? ''
      : ` It has ${meta.type === 'array' ? plural(n, 'item', 'items') : plural(n, 'entry', 'entries')}, of ${n === 1 ? 'this length' : 'these lengths'} in characters: [${listed}${more}].`;
  // An empty query is no query: the model is not shown a bare "Query:" line.
  const head = query === null || query.trim() === '' ? '' : `${MARKERS.query}${query}\n\n`;
  const type = contextTypeName(meta, language);
  const article = /^[aeiou]/.test(type) ? 'an' : 'a';
  return `${head}${MARKERS.metadata}${article} ${type} of ${plural(meta.totalChars, 'total character', 'total characters')}.${chunks} Each sub-LM call can read about ${chars(budgets.maxChars)} characters.`;
}

export interface TurnPromptOptions {
  turn: number;
  maxIterations: number;
  contextCount: number;
  historyCount: number;
}

export function buildTurnPrompt(o: TurnPromptOptions): string {
  const parts: string[] = [];
  if (o.turn === 1) {
    parts.push('You have not looked at the context yet. Start by inspecting it in the REPL; do not answer before you have seen it.');
  }
  parts.push(`Turn ${o.turn}/${o.maxIterations}:`);
  if (o.contextCount > 1) {
    parts.push(`There are ${o.contextCount} contexts in the REPL: context_0 … context_${o.contextCount - 1}.`);
  }
  if (o.historyCount === 1) {
    parts.push('The previous conversation is in the REPL variable `history` (also `history_0`).');
  } else if (o.historyCount > 1) {
    parts.push(`Earlier conversations are in the REPL variables history_0 … history_${o.historyCount - 1}.`);
  }
  return parts.join('\n\n');
}

export interface BlockOutput {
  stdout: string;
  stderr: string;
  error: { name: string; message: string } | null;
  variables: string[];
  replResetNote: string | null;
}

/** Characters of one block's formatted output the model sees before the rest is cut. */
export const OUTPUT_CAP_CHARS = 20_000;

/**
 * Cuts at `cap` characters counted as Python's `len` counts them (code points), as the reference
 * does: a character outside the BMP is never split into a lone surrogate, and the number cut is
 * the reference's.
 */
function truncateForModel(text: string, cap = OUTPUT_CAP_CHARS): string {
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
  return `${text.slice(0, end)}\n... [${cut} more characters cut]`;
}

/** The variable names as the REPL's language writes a list of strings (the reference prints a Python list). */
function formatVariables(names: string[], language: ReplLanguage): string {
  return language === 'python' ? `[${names.map((n) => `'${n}'`).join(', ')}]` : names.join(', ');
}

function formatBlock(b: BlockOutput, language: ReplLanguage): string {
  const parts: string[] = [];
  if (b.replResetNote) parts.push(b.replResetNote);
  if (b.stdout) parts.push(b.stdout.replace(/\n$/, ''));
  if (b.stderr) parts.push(b.stderr.replace(/\n$/, ''));
  if (b.error) parts.push(`${b.error.name}: ${b.error.message}`);
  if (b.variables.length > 0) parts.push(`REPL variables: ${formatVariables(b.variables, language)}`);
  return parts.length === 0 ? 'No output' : parts.join('\n\n');
}

/** One user message with every block's output, each block capped separately. */
export function buildReplOutputMessage(blocks: BlockOutput[], language: ReplLanguage = 'javascript'): string {
  if (blocks.length === 1) return `${MARKERS.replOutput}:\n${truncateForModel(formatBlock(blocks[0]!, language))}`;
  return blocks.map((b, i) => `${MARKERS.replOutput} (block ${i + 1}):\n${truncateForModel(formatBlock(b, language))}`).join('\n\n');
}

export function compactionNote(count: number): string {
  return `The conversation was compacted ${count} time${count === 1 ? '' : 's'}; the summary above replaces it. Continue from there without redoing finished work: SHOW_VARS() lists your variables and \`history\` holds the full earlier conversation.`;
}

/**
 * Told with the first turn of a completion whose REPL had to be replaced because the previous
 * completion was cancelled (or cut off) while a block ran: the model's variables are gone.
 */
export function replLostNote(): string {
  return 'The previous turn was stopped while its code was running, so the REPL was restarted: every variable you created is gone. The contexts and histories were loaded again.';
}
