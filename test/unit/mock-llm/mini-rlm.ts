// A test-only stand-in for the engine: builds the real prompts (engine/prompts.ts), asks a
// Policy directly (no HTTP), and runs the ```repl code in node:vm so the JavaScript the
// scenarios write is actually executed. Not a sandbox and not the engine: top-level
// `const`/`let` at column 0 become globals so variables persist across turns, which is all
// the scenario code relies on.
import vm from 'node:vm';
import { buildMetadataMessage, buildReplOutputMessage, buildSystemPrompt, buildTurnPrompt } from '../../../src-main/engine/prompts.ts';
import { FINAL_ANSWER_REQUEST } from '../../../src-main/lm/prompt-markers.ts';
import type { BlockOutput } from '../../../src-main/engine/prompts.ts';
import type { MockMessage, Policy } from '../../../src-main/mock-llm/policy.ts';
import type { ContextMeta } from '../../../src-shared/events.ts';

export interface MiniRunOptions {
  policy: Policy;
  context: unknown;
  query: string | null;
  maxIterations?: number;
  /** As in the engine: rlm_query spawns a child while depth + 1 < maxDepth. */
  maxDepth?: number;
  depth?: number;
}

export interface MiniRun {
  answer: string | null;
  /** True when the answer came from the final-answer request. */
  forced: boolean;
  replies: string[];
  outputs: string[];
  messages: MockMessage[];
  subPrompts: string[];
  childRuns: MiniRun[];
}

export function contextMeta(context: unknown): ContextMeta {
  if (typeof context === 'string') return { type: 'string', totalChars: context.length, chunkLengths: [context.length] };
  const parts = Array.isArray(context) ? context : Object.values(context as object);
  const lengths = parts.map((p) => (typeof p === 'string' ? p : JSON.stringify(p)).length);
  return { type: Array.isArray(context) ? 'array' : 'object', totalChars: lengths.reduce((a, b) => a + b, 0), chunkLengths: lengths };
}

export function replBlocks(reply: string): string[] {
  return [...reply.matchAll(/```repl\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

export async function miniRun(o: MiniRunOptions): Promise<MiniRun> {
  const maxIterations = o.maxIterations ?? 8;
  const maxDepth = o.maxDepth ?? 2;
  const depth = o.depth ?? 0;
  const run: MiniRun = { answer: null, forced: false, replies: [], outputs: [], messages: [], subPrompts: [], childRuns: [] };
  const ask = (messages: MockMessage[], model: string): string => o.policy({ model, messages: messages.map((m) => ({ ...m })) });

  const llm = async (prompt: string): Promise<string> => {
    run.subPrompts.push(prompt);
    return ask([{ role: 'user', content: String(prompt) }], 'mock-sub');
  };
  const rlm = async (prompt: string): Promise<string> => {
    if (depth + 1 >= maxDepth) return llm(prompt);
    const child = await miniRun({ ...o, context: String(prompt), query: null, depth: depth + 1 });
    run.childRuns.push(child);
    return child.answer ?? 'Error: the child run gave no answer';
  };
  let stdout: string[] = [];
  const print = (...args: unknown[]): void => {
    stdout.push(args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
  };
  const answer = { content: '', ready: false };
  const sandbox = vm.createContext({
    context: o.context,
    print,
    console: { log: print },
    answer,
    llm_query: llm,
    llm_query_batched: (ps: string[]) => Promise.all(ps.map(llm)),
    rlm_query: rlm,
    rlm_query_batched: (ps: string[]) => Promise.all(ps.map(rlm)),
  });

  const messages: MockMessage[] = [
    { role: 'system', content: buildSystemPrompt({ tools: [], recursion: maxDepth > 1, compaction: false, finalPatterns: false }) },
    { role: 'user', content: buildMetadataMessage(contextMeta(o.context), o.query) },
  ];
  run.messages = messages;
  for (let turn = 1; turn <= maxIterations; turn++) {
    messages.push({ role: 'user', content: buildTurnPrompt({ turn, maxIterations, contextCount: 1, historyCount: 0 }) });
    const reply = ask(messages, 'mock-root');
    run.replies.push(reply);
    messages.push({ role: 'assistant', content: reply });
    const outputs: BlockOutput[] = [];
    for (const code of replBlocks(reply)) {
      stdout = [];
      let error: { name: string; message: string } | null = null;
      try {
        const body = code.replace(/^(?:const|let) (\w+);/gm, '$1 = undefined;').replace(/^(?:const|let) /gm, '');
        await vm.runInContext(`(async () => {\n${body}\n})()`, sandbox);
      } catch (err) {
        const e = err as { name?: unknown; message?: unknown };
        error = { name: String(e.name ?? 'Error'), message: String(e.message ?? err) };
      }
      outputs.push({ stdout: stdout.length > 0 ? `${stdout.join('\n')}\n` : '', stderr: '', error, variables: [], replReset: null });
      if (answer.ready) {
        run.answer = answer.content;
        return run;
      }
    }
    const out = buildReplOutputMessage(outputs);
    run.outputs.push(out);
    messages.push({ role: 'user', content: out });
  }
  messages.push({ role: 'user', content: FINAL_ANSWER_REQUEST });
  run.answer = ask(messages, 'mock-root');
  run.forced = true;
  return run;
}
