// The `history_N` a finished turn of a multi-turn session left in its REPL, rebuilt from the
// turn's recorded events, so that a re-executed later turn finds what the original found.
// The events record the history as deltas: the messages the run starts with, what each
// iteration appends, what a compaction replaces it with, and the messages sent once and not
// kept (`transient`, not part of it).
import type { ChatMessage } from '../../src-shared/events.ts';
import type { RunNode } from '../../src-shared/trajectory/types.ts';
import type { ComparisonTerms } from './compare.ts';

/**
 * The history the turn stored, or null when it stored none.
 * - Ours (engine/conversation.ts): the run's messages at its end, unless it was cancelled;
 *   a default answer's reply is part of them.
 * - The reference's (RLM-SPEC §3.2 step 11, §3.6): the messages of its last model call, without
 *   that call's own extra message, when it has an answer (answered, or the default answer); a
 *   turn that raised stored nothing.
 */
export function turnHistory(run: RunNode, terms: ComparisonTerms): ChatMessage[] | null {
  const end = run.end;
  if (!run.start || !end) return null;
  if (terms === 'native' ? end.stopReason === 'cancelled' : end.stopReason !== 'answered' && end.stopReason !== 'max_iterations') {
    return null;
  }
  let history: ChatMessage[] = [...run.start.messages];
  let atLastCall: ChatMessage[] = history;
  let lastReply: string | null = null;
  let defaultAnswer = false;
  for (const it of run.iterations) {
    if (it.compaction) history = [...it.compaction.messages];
    if (it.start) history.push(...it.start.appended);
    if (it.reply) {
      atLastCall = [...history];
      lastReply = it.reply.text;
      defaultAnswer = it.reply.purpose === 'final_answer';
    }
    if (it.end) history.push(...it.end.appended);
  }
  if (terms === 'rlm-python') return atLastCall;
  if (defaultAnswer && lastReply !== null) history.push({ role: 'assistant', content: lastReply });
  return history;
}
