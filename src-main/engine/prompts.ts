// The texts the model sees. Our own wording, written for a JavaScript REPL; the structure
// (system prompt, metadata message, short per-turn prompts, one REPL-output message per
// turn) follows the reference library so trained habits carry over. `mock-llm` policies
// recognise these messages by the markers exported here, so change them together.
import type { ContextMeta } from '../../src-shared/events.ts';

export const MARKERS = {
  system: 'You are a Recursive Language Model',
  query: 'Query: ',
  turn: /^Turn (\d+)\/(\d+):/m,
  replOutput: 'REPL output',
  finalAnswerRequest: 'Give your final answer now',
  compactionRequest: 'Summarise the work so far',
} as const;

/** How many chunk lengths the metadata message lists before eliding the rest. */
export const MAX_LISTED_CHUNKS = 100;

export interface ToolDescription {
  name: string;
  description: string;
}

export interface SystemPromptOptions {
  tools: ToolDescription[];
  recursion: boolean;
  compaction: boolean;
  finalPatterns: boolean;
}

export function buildSystemPrompt(opts: SystemPromptOptions): string {
  const rlmLine = opts.recursion
    ? '- `rlm_query(prompt, model?)` → string: hands `prompt` to a child RLM that gets its own REPL with `prompt` as its `context`, and returns its answer. Use it for sub-problems that themselves need code and several steps.\n- `rlm_query_batched(prompts, model?)` → string[]: several child RLMs at once, answers in input order.'
    : '- `rlm_query` / `rlm_query_batched`: recursion is off in this run; they behave like `llm_query` / `llm_query_batched`.';
  const toolLines =
    opts.tools.length === 0
      ? ''
      : `\nCustom tools and data in the REPL:\n${opts.tools.map((t) => `- \`${t.name}\`: ${t.description}`).join('\n')}\n`;
  const historyLine = opts.compaction
    ? '\nWhen the conversation grows long it is summarised; the complete earlier history stays in the REPL variable `history` (an array).\n'
    : '';
  const finish = opts.finalPatterns
    ? 'When you are done, either set `answer.content` and `answer.ready = true` in a repl block, or write FINAL(your answer) on its own line, or FINAL_VAR(name) to answer with the value of a REPL variable you created earlier.'
    : 'When you are done, submit inside a repl block:\n```repl\nanswer.content = finalText;\nanswer.ready = true;\n```\nThe run ends as soon as `answer.ready` is true, with `answer.content` as the answer.';

  return `${MARKERS.system} (RLM). A question comes with a context that can be far larger than your window. The context is not in this conversation: it is held in a persistent JavaScript REPL, and you work on it by writing code. You will be prompted turn by turn until you submit an answer.

The REPL
Write code in fenced blocks tagged \`repl\`:
\`\`\`repl
print(typeof context, context.length);
\`\`\`
Every repl block in your reply runs, in order. Variables persist across blocks and turns (re-declaring a \`const\` or \`let\` in a later turn is fine), and top-level \`await\` works. Only what you print comes back to you: use \`print(...)\` or \`console.log(...)\`; the value of a last expression is not shown. Output longer than about 20,000 characters per block is cut, so print samples, counts and short summaries, never the whole context.

Available in the REPL:
- \`context\`: the context (a string, or the parsed value of a JSON context: an array or an object).
- \`llm_query(prompt, model?)\` → string: one call to a sub-LM that can read about 500,000 characters. Synchronous: \`const s = llm_query("Summarise: " + part)\`. Use it to read, classify, extract or summarise pieces of the context.
- \`llm_query_batched(prompts, model?)\` → string[]: many independent sub-LM calls run concurrently; answers in input order. Much faster than calling \`llm_query\` in a loop.
${rlmLine}
- \`SHOW_VARS()\` → string: the variables you have created.
- \`answer\`: an object \`{ content: "", ready: false }\`.
Sub-call functions never throw: a failed call returns a string starting with "Error:".
${toolLines}${historyLine}
How to work
1. Look before you answer: print the type, the size and a few short samples of \`context\` first.
2. Plan a decomposition. Filter with plain code (regular expressions, slicing, counting) where that pins the answer; send the pieces that need reading or judgement to sub-LMs, in batches of a few large prompts rather than many tiny ones.
3. Keep state in variables, print only what you need to decide the next step, and verify a candidate answer before submitting it.
4. Write one or a few repl blocks per turn, then read the output before going on. Do not submit on your first turn without having looked at the context.

${finish}`;
}

export function contextTypeName(meta: ContextMeta): string {
  return meta.type === 'string' ? 'string' : meta.type === 'array' ? 'array' : 'object';
}

export function buildMetadataMessage(meta: ContextMeta, query: string | null): string {
  const listed = meta.chunkLengths.slice(0, MAX_LISTED_CHUNKS).join(', ');
  const more =
    meta.chunkLengths.length > MAX_LISTED_CHUNKS ? `, … and ${meta.chunkLengths.length - MAX_LISTED_CHUNKS} more` : '';
  const chunks =
    meta.type === 'string'
      ? ''
      : ` It has ${meta.chunkLengths.length} ${meta.type === 'array' ? 'items' : 'entries'}, of these lengths in characters: [${listed}${more}].`;
  const head = query === null ? '' : `${MARKERS.query}${query}\n\n`;
  return `${head}Your context is ${meta.type === 'array' ? 'an' : 'a'} ${contextTypeName(meta)} of ${meta.totalChars} total characters.${chunks} Each sub-LM call can read about 500,000 characters.`;
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
    parts.push(
      'You have not looked at the context yet. Start by inspecting it in the REPL; do not answer before you have seen it.',
    );
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

export function truncateForModel(text: string, cap = OUTPUT_CAP_CHARS): string {
  if (text.length <= cap) return text;
  return `${text.slice(0, cap)}\n... [${text.length - cap} more characters cut]`;
}

function formatBlock(b: BlockOutput): string {
  const parts: string[] = [];
  if (b.replResetNote) parts.push(b.replResetNote);
  if (b.stdout) parts.push(b.stdout.replace(/\n$/, ''));
  if (b.stderr) parts.push(b.stderr.replace(/\n$/, ''));
  if (b.error) parts.push(`${b.error.name}: ${b.error.message}`);
  if (b.variables.length > 0) parts.push(`REPL variables: ${b.variables.join(', ')}`);
  return parts.length === 0 ? 'No output' : parts.join('\n\n');
}

/** One user message with every block's output, each block capped separately. */
export function buildReplOutputMessage(blocks: BlockOutput[]): string {
  if (blocks.length === 1) return `${MARKERS.replOutput}:\n${truncateForModel(formatBlock(blocks[0]!))}`;
  return blocks
    .map((b, i) => `${MARKERS.replOutput} (block ${i + 1}):\n${truncateForModel(formatBlock(b))}`)
    .join('\n\n');
}

export const FINAL_ANSWER_REQUEST = `${MARKERS.finalAnswerRequest}: you have used all your turns. Answer the query with what you have found so far, in plain text, without code.`;

export const COMPACTION_REQUEST = `${MARKERS.compactionRequest}: the conversation is getting too long for your window. Write 1–3 paragraphs covering what you have done, what remains, every concrete intermediate result exactly (numbers, names, variable names), and your next action. The REPL keeps all its variables.`;

export function compactionNote(count: number): string {
  return `The conversation was compacted ${count} time${count === 1 ? '' : 's'}; the summary above replaces it. Continue from there without redoing finished work: SHOW_VARS() lists your variables and \`history\` holds the full earlier conversation.`;
}
