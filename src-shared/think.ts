// A <think>…</think> section at the start of a reply's content (a Qwen3-family model served
// without a reasoning parser): found and split off by the engine, the live view and exports,
// one rule for all of them.
import type { ReplyReasoning } from './events.ts';

const OPEN = '<think>';
const CLOSE = '</think>';

/**
 * A <think> section at the start of `content` (after blanks): the thinking between the tags
 * and the text after the closing tag, its leading blanks dropped. A content with a closing tag
 * but no opening one is thinking up to it (chat templates that open the section in the
 * prompt). A section that never closes (a reply cut while thinking) is all thinking and no
 * text. Null when there is none.
 */
export function splitThink(content: string): { reasoning: string; text: string } | null {
  const start = content.search(/\S/);
  const opened = start >= 0 && content.startsWith(OPEN, start);
  const close = content.indexOf(CLOSE, opened ? start + OPEN.length : 0);
  if (close < 0) {
    return opened ? { reasoning: content.slice(start + OPEN.length).replace(/^\n/, ''), text: '' } : null;
  }
  if (!opened && content.lastIndexOf(OPEN, close) >= 0) return null; // a <think> later in the text: not ours to cut
  const inner = content.slice(opened ? start + OPEN.length : 0, close);
  return { reasoning: inner.replace(/^\n/, '').replace(/\n$/, ''), text: content.slice(close + CLOSE.length).replace(/^\s+/, '') };
}

/** The content the endpoint sent, rebuilt from a recorded text and its thinking (for exports in the reference's terms). */
export function contentAsSent(text: string, reasoning: ReplyReasoning | undefined): string {
  if (!reasoning || reasoning.source !== 'think' || reasoning.inText) return text;
  return `${OPEN}\n${reasoning.text}\n${CLOSE}\n\n${text}`;
}
