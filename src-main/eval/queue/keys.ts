// Names in Redis: the BullMQ queue every worker takes sessions from, and the few keys of our own
// (an evaluation's configuration, contexts by content, the shared endpoint backoff, progress).
import { createHash } from 'node:crypto';

export const QUEUE_NAME = 'rlm-studio-eval';

const PREFIX = 'rlm-studio';
export const keys = {
  /** Set of the evaluations the queue has seen (eval-status lists them). */
  evals: `${PREFIX}:evals`,
  config: (evalId: string): string => `${PREFIX}:eval:${evalId}:config`,
  progress: (evalId: string): string => `${PREFIX}:eval:${evalId}:progress`,
  /** A task's context, by the hash of its JSON: an evaluation's repeats and re-enqueues share one copy. */
  context: (evalId: string, hash: string): string => `${PREFIX}:eval:${evalId}:ctx:${hash}`,
  backoff: (endpoint: string): string => `${PREFIX}:backoff:${sha(endpoint).slice(0, 16)}`,
  failures: (endpoint: string): string => `${PREFIX}:backoff:${sha(endpoint).slice(0, 16)}:failures`,
};

export function sha(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
