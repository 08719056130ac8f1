// One model call outside any RLM run — a judge's verdict, a scanner's question — sent as a
// depth-0 direct call (no REPL) and recorded in a native log of its own, like any model call:
// messages, reply, usage and cost. The log is written whether or not the call succeeded.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { asRunId, asSessionId } from '../../src-shared/events.ts';
import { makeHeader } from '../../src-shared/codecs/native-lines.ts';
import { EventRecorder } from '../engine/event-recorder.ts';
import { runDirect } from '../engine/direct-run.ts';
import { limitsOf } from '../engine/config.ts';
import { defaultPack } from '../lm/our-prompt-packs.ts';
import type { LmClient } from '../lm/types.ts';
import { NativeLogFile } from '../logs/native-file-sink.ts';

export type { LmClient };

export interface RecordedCall {
  /** The reply; null when the call failed (`why` says how). */
  answer: string | null;
  why: string;
  /** The log's path. */
  logPath: string;
  /** Null when the endpoint gave no price. */
  costUsd: number | null;
  inputTokens: number;
  outputTokens: number;
}

/**
 * Sends `prompt` to `model` as one call and records it in `logDir/<key>.<time>.rlm.jsonl`
 * (`runPrefix` names the run: `judge-…`, `scan-…`).
 */
export async function recordedCall(
  o: { client: LmClient; model: string; logDir: string; key: string; runPrefix: string },
  prompt: string,
): Promise<RecordedCall> {
  mkdirSync(o.logDir, { recursive: true });
  const path = join(o.logDir, `${o.key.replace(/[^\w.-]+/g, '_')}.${Date.now().toString(36)}.rlm.jsonl`);
  const log = new NativeLogFile(path, makeHeader(asSessionId(randomUUID()), new Date(), undefined, 'javascript'));
  const recorder = new EventRecorder((e) => log.append(e));
  let outcome;
  try {
    outcome = await runDirect({
      client: o.client,
      sink: recorder,
      runId: asRunId(`${o.runPrefix}-${randomUUID()}`),
      turn: 0,
      model: o.model,
      subModel: null,
      query: null,
      context: prompt,
      limits: limitsOf({ client: o.client, model: o.model, maxDepth: 0 }),
      repl: 'javascript',
      signal: undefined,
      // Our pack's depth-0 call sends the context as it is: the prompt, filled.
      pack: defaultPack('javascript'),
    });
  } finally {
    log.close();
  }
  return {
    answer: outcome.answer,
    why: outcome.message ?? outcome.stopReason,
    logPath: path,
    costUsd: outcome.usage.costUsd,
    inputTokens: outcome.usage.inputTokens,
    outputTokens: outcome.usage.outputTokens,
  };
}
