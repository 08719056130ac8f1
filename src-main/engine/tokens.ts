import type { ChatMessage } from '../../src-shared/events.ts';

/**
 * Token estimate of a message list: about four characters a token plus a few tokens of
 * framing per message. Used for compaction and history charts, never for billing.
 */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  let n = 0;
  for (const m of messages) n += Math.ceil(m.content.length / 4) + 3;
  return n;
}
