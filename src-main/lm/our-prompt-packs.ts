// Our own prompt packs, in our words: one for a JavaScript REPL and one for a Python REPL. The
// teaching is the same; the words and snippets that differ between the languages are in
// DIALECTS. The structure (system prompt, metadata message, short per-turn prompts, one
// REPL-output message per turn) follows the reference library so trained habits carry over.
import type { ReplLanguage } from '../../src-shared/events.ts';
import { PROMPT_PACK_FORMAT, PROMPT_PACK_VERSION, type PackTexts, type PromptPack } from './prompt-pack.ts';
import { OUTPUT_CAP_CHARS } from '../../src-shared/output-cap.ts';
import { OUR_REPL_TEXTS } from '../../src-shared/repl-texts.ts';

/** The words and snippets that differ between the two REPLs. */
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
  /** A filter-and-batch example reading the context in pieces of `{chunk_plain}` characters. */
  example: string;
  types: { string: string; array: string; object: string };
  variableName: string;
  variablesList: string;
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
    example:
      'const parts = [];\nfor (let i = 0; i < context.length; i += {chunk_plain}) parts.push(context.slice(i, i + {chunk_plain}));\nconst replies = llm_query_batched(parts.map((p) => "List every date mentioned below, one per line, or NONE.\\n\\n" + p));\nprint(replies.length, replies.slice(0, 2));',
    types: { string: 'a string', array: 'an array', object: 'an object' },
    variableName: '{name}',
    variablesList: 'REPL variables: {names}',
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
    example:
      'parts = [context[i:i + {chunk_plain}] for i in range(0, len(context), {chunk_plain})]\nreplies = llm_query_batched(["List every date mentioned below, one per line, or NONE.\\n\\n" + p for p in parts])\nprint(len(replies), replies[:2])',
    types: { string: 'a str', array: 'a list', object: 'a dict' },
    variableName: "'{name}'",
    variablesList: 'REPL variables: [{names}]',
  },
};

const fence = (code: string): string => `\`\`\`repl\n${code}\n\`\`\``;

function texts(d: Dialect, language: ReplLanguage): PackTexts {
  return {
    ...OUR_REPL_TEXTS[language],
    system: `You are a Recursive Language Model (RLM). You answer a query about a context that can be far larger than your own window. The context is not in this conversation: it is held in a persistent ${d.name} REPL, and you work on it by writing code. You will be prompted turn by turn until you submit an answer.

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
{recursion}
- \`SHOW_VARS()\` → ${d.str}: the variables you have created.
- \`answer\`: ${d.answerInit}.
Sub-call functions never fail in your code: a failed call returns a string starting with "Error:", so check replies before using them.
{tools_section}{history}
Sub-LMs
A sub-LM has no REPL, no tools and no memory of this conversation: it sees only the prompt you give it. Give it clean, focused input with everything it needs (the instruction, the question, the piece of text) and ask for a terse, structured reply (a number, a label, one line, or JSON) that your code can parse.
Budgets, sized for the sub-model's window of about {window_tokens} tokens: one prompt can hold at most about {max_chars} characters, and is read most reliably under about {good_chars}; a batch of more than about {batch_size} prompts rarely pays off, so one batch of well-sized prompts covers about {batch_chars} characters. Batching runs the calls at the same time; it raises neither limit. Fill each prompt close to the reliable size (many items, a whole document) rather than sending many tiny prompts; for many units, send several batches of about {batch_size} one after another, not one huge batch; and prefer one batched call to a loop of single calls. When the work is larger than one batch covers, do not brute-force it: filter with code first down to the parts that matter, or work in stages (a cheap first pass to narrow the candidates, a second pass to read the survivors closely). For example:
{example}

How to work
1. Probe first: print the type, the size and a few short samples of \`context\`. Do not submit on your first turn without having looked at it.
2. Plan before you execute: say in a few lines how the task decomposes into code and sub-LM steps, and sketch the turns (what each computes, which sub-LM calls it makes). Then carry the plan out one turn at a time; one repl block per turn is fine: read its output before going on.
3. At each step print a small sample of what you produced (a few sub-LM replies, a partial count) and check it before building on it. Keep results in variables rather than in your head.
4. Print the candidate answer and check that it answers the query as asked; set ready only after that. Until then you can change the content as often as you like.
5. If you are running out of turns, submit your best inference rather than no answer.

{finish}`,
    systemRecursionOn: `- \`${d.sig('rlm_query')}\` → ${d.str}: hands \`prompt\` to a child RLM, which gets its own ${d.name} REPL with \`prompt\` as its \`context\`, works in turns as you do, and returns its answer. Use it for sub-problems that themselves need code and several steps; a plain \`llm_query\` is cheaper for everything else.\n- \`${d.sig('rlm_query_batched')}\` → ${d.strList}: several child RLMs at once, answers in input order. {child_llm_model}`,
    systemRecursionOff:
      '- `rlm_query` / `rlm_query_batched`: recursion is off in this run; they behave like `llm_query` / `llm_query_batched`.',
    childLlmModelSub: "A child RLM's `llm_query` calls go to the same sub-LM as yours.",
    childLlmModelOwn:
      "A child RLM's `llm_query` calls go to the child's own model (the one named in `rlm_query(prompt, model)`, else yours).",
    systemCompaction: `\nWhen the conversation grows long it is summarised; the complete earlier history stays in the REPL variable \`history\` (${d.historyType}).\n`,
    systemFinish: `When you are done, submit in a repl block:\n${fence(d.submit)}\nThe run ends as soon as ${d.ready} is ${d.trueWord}, with the content as the answer.`,
    systemFinishFinalPatterns: `When you are done, submit in a repl block:\n${fence(d.submit)}\nor write FINAL(your answer) on a line of its own, or FINAL_VAR(name) to answer with the value of a REPL variable (create the variable in a repl block first). FINAL and FINAL_VAR are also functions in the REPL, so they work inside a repl block too (there, give FINAL_VAR the name as a string: FINAL_VAR("name")). The run ends with the first answer submitted.`,
    systemExample: fence(d.example),
    toolsSection: '\nCustom tools and data in the REPL:\n{tools}\n',
    customToolsSection: '\n6. Custom tools and data available in the REPL:\n{tools}\n',
    toolLine: '- `{name}`: {description}',
    toolSeparator: '\n',
    toolFunction: 'a custom function',
    toolValue: 'a custom {type} value',
    customSystemSuffix: '',
    metadata:
      'Your context is {type} of {total_chars} total {total_chars|character|characters}.{chunks} Each sub-LM call can read about {max_chars} characters.',
    metadataQuery: 'Query: {query}\n\n{metadata}',
    metadataChunksArray: ' It has {count} {count|item|items}, of {count|this length|these lengths} in characters: [{lengths}].',
    metadataChunksObject: ' It has {count} {count|entry|entries}, of {count|this length|these lengths} in characters: [{lengths}].',
    metadataChunksMore: ', … and {count} more',
    typeString: d.types.string,
    typeArray: d.types.array,
    typeObject: d.types.object,
    turnFirst:
      'You have not looked at the context yet. Start by inspecting it in the REPL; do not answer before you have seen it.\n\nTurn {turn}/{max_iterations}:',
    turn: 'Turn {turn}/{max_iterations}:',
    contextsNote: '\n\nThere are {count} contexts in the REPL: context_0 … context_{last}.',
    historyNoteOne: '\n\nThe previous conversation is in the REPL variable `history` (also `history_0`).',
    historyNoteMany: '\n\nEarlier conversations are in the REPL variables history_0 … history_{last}.',
    replOutput: 'REPL output:\n{output}',
    replOutputBlock: 'REPL output (block {block}):\n{output}',
    replOutputSeparator: '\n\n',
    blockStdout: '{text}',
    blockStderr: '{text}',
    blockError: '{name}: {message}',
    blockVariables: d.variablesList,
    variableName: d.variableName,
    variableSeparator: ', ',
    blockPartSeparator: '\n\n',
    noOutput: 'No output',
    truncated: '\n... [{cut} more characters cut]',
    replReset: 'The REPL had to be restarted ({reason}): all your variables are gone; the context is loaded again.',
    replLost:
      'The REPL was started afresh since your last turn: the variables you made are gone; the contexts and earlier conversations are loaded again.',
    replyCut:
      'Your previous reply was cut off at the output-token limit, so it is incomplete. Keep replies shorter: one repl block per turn, and little prose.',
    finalVarNotFound:
      "Error: Variable '{name}' not found. Available variables: {available}. Assign it in a repl block, then name it in FINAL_VAR.",
    finalVarNoVariables:
      "Error: Variable '{name}' not found: no variables exist yet. Assign it in a repl block, then name it in FINAL_VAR.",
    unknownModel: 'Error: unknown model "{model}"; this run can use: {models}',
    subcallStopped: 'Error: the run was stopped',
    childFailed: 'Error: child RLM failed - {error}',
    childStopped: 'Error: child RLM stopped ({reason}): {message}.',
    childStoppedPartial: 'Error: child RLM stopped ({reason}): {message}. Partial answer: {answer}',
    childBudgetExhausted: 'Error: budget exhausted (spent ${spent} of ${budget})',
    childTimeExhausted: 'Error: time exhausted before the child run could start',
    finalAnswerRequest:
      'Give your final answer now: you have used all your turns. Answer the query with what you have found so far, in plain text, without code.',
    compactionRequest:
      'Summarise the work so far: the conversation is getting too long for your window. Write 1–3 paragraphs covering what you have done, what remains, every concrete intermediate result exactly (numbers, names, variable names), and your next action. The REPL keeps all its variables.',
    compactionNote:
      'The conversation was compacted {count} {count|time|times}; the summary above replaces it. Continue from there without redoing finished work: SHOW_VARS() lists your variables and `history` holds the full earlier conversation.',
    directCall: '{context}',
    directCallQuery: '{context}\n\n{query}',
  };
}

function ourPack(language: ReplLanguage): PromptPack {
  return {
    format: PROMPT_PACK_FORMAT,
    version: PROMPT_PACK_VERSION,
    name: `rlm-studio-${language}`,
    description: `RLM Studio's own texts for a ${DIALECTS[language].name} REPL.`,
    language,
    semantics: 'rlm-studio',
    numbers: 'grouped',
    outputCap: OUTPUT_CAP_CHARS,
    roles: { finalAnswerRequest: 'user' },
    texts: texts(DIALECTS[language], language),
  };
}

export const OUR_PACKS: Readonly<Record<ReplLanguage, PromptPack>> = {
  javascript: ourPack('javascript'),
  python: ourPack('python'),
};

/** Our pack for a REPL language: what a run uses when it is given none. */
export function defaultPack(language: ReplLanguage = 'javascript'): PromptPack {
  return OUR_PACKS[language];
}
