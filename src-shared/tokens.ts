// The one token estimate used wherever a count is not reported: the engine's history sizes and
// compaction threshold, a client whose endpoint reports no usage, and logs imported from the
// reference library. It is the reference's own fallback (no tokenizer): total characters / 4,
// rounded up, so native and imported logs of the same messages agree.
import type { ChatMessage } from './events.ts';

const CHARS_PER_TOKEN = 4;

/** Estimated tokens of a message list: its characters / 4, rounded up (no per-message overhead). */
export function estimateTokens(messages: readonly Pick<ChatMessage, 'content'>[]): number {
  let chars = 0;
  for (const m of messages) chars += m.content.length;
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** Estimated tokens of one text, by the same rule. */
export function estimateTextTokens(text: string): number {
  return estimateTokens([{ content: text }]);
}
