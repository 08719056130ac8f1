// A reply's thinking kept apart from its text. Endpoints with a reasoning parser return it in a
// field of its own; a Qwen3-family model served without one writes it at the start of the
// content as <think>…</think>. What the code parser reads is the text: with the thinking split
// off (our default), a ```repl block the model only thought about is not run; with it kept in
// the text, as the reference library reads a reply, it is.
import type { ReplyReasoning } from '../../src-shared/events.ts';
import { splitThink } from '../../src-shared/think.ts';
import type { CompletionResult } from '../lm/types.ts';

/** 'split' (default): a <think> section is taken out of the reply text; 'keep': it stays in it, as the reference reads it. */
export type ThinkInReply = 'split' | 'keep';

/** The reply text the engine works with and its thinking, from any of the three sources. */
export function replyParts(res: CompletionResult, mode: ThinkInReply): { text: string; reasoning: ReplyReasoning | null } {
  if (res.reasoning) return { text: res.text, reasoning: res.reasoning };
  const think = splitThink(res.text);
  if (think === null) return { text: res.text, reasoning: null };
  if (mode === 'keep') return { text: res.text, reasoning: { text: think.reasoning, source: 'think', inText: true } };
  return { text: think.text, reasoning: { text: think.reasoning, source: 'think' } };
}
