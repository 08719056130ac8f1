// A model call's reply while it streams, for whoever shows it live (the app, the command line's
// progress line). Never logged: the log records the reply once, whole, in its model.reply.
import type { ModelCallPurpose, RunId } from './events.ts';

export interface LiveReplyDelta {
  runId: RunId;
  depth: number;
  iteration: number;
  purpose: ModelCallPurpose;
  model: string;
  /** Reply text added since the last delta, as sent (a <think> section included). */
  content: string;
  /** Thinking added since the last delta, from a field of its own ('' when none). */
  reasoning: string;
  /** Output tokens so far, thinking included (characters / 4, as the estimate everywhere). */
  tokens: number;
  /** Milliseconds since the call was made. */
  elapsedMs: number;
}

export interface LiveReplySink {
  delta(d: LiveReplyDelta): void;
}

/** Output tokens per second of a reply so far; null before a measurable time has passed. */
export function tokensPerSecond(tokens: number, elapsedMs: number): number | null {
  return elapsedMs >= 50 ? (tokens * 1000) / elapsedMs : null;
}
