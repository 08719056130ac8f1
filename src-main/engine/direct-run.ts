// A completion at maxDepth 0, the reference's baseline: no REPL and no turns; the context and
// the query go to the root model in one plain call, and its reply is the answer. Recorded as a
// run with one model call (purpose 'direct', iteration 0) and no iterations.
import { requestFieldsOf } from '../lm/request-fields.ts';
import { estimateTokens } from '../../src-shared/tokens.ts';
import { contextWindowFor } from '../lm/context-windows.ts';
import { lengthRefusalOf, overflowMessage } from '../lm/length-refusal.ts';
import { replyParts } from './reasoning-split.ts';
import {
  DIRECT_CALL_ITERATION,
  type ChatMessage,
  type EventSink,
  type Limits,
  type ReplLanguage,
  type RunId,
  type StopReason,
} from '../../src-shared/events.ts';
import type { LmClient } from '../lm/types.ts';
import type { SandboxValue } from '../sandbox/types.ts';
import { describeContext } from './context-meta.ts';
import { packIdentity, type PromptPack } from '../lm/prompt-pack.ts';
import { directPrompt } from './prompts.ts';
import { setLongTimeout } from './long-timeout.ts';
import type { RunOutcome } from './run.ts';
import { UsageLedger } from './usage-ledger.ts';

export interface DirectRunParams {
  client: LmClient;
  sink: EventSink;
  runId: RunId;
  turn: number;
  model: string;
  subModel: string | null;
  query: string | null;
  context: SandboxValue;
  limits: Limits;
  repl: ReplLanguage;
  signal: AbortSignal | undefined;
  pack: PromptPack;
}

/** The context as the direct call's text: JSON for an array or object. */
function contextText(context: SandboxValue): string {
  return typeof context === 'string' ? context : JSON.stringify(context, null, 2);
}

export async function runDirect(p: DirectRunParams): Promise<RunOutcome> {
  const started = performance.now();
  const envelope = { runId: p.runId, parentRunId: null, depth: 0 };
  const messages: ChatMessage[] = [{ role: 'user', content: directPrompt(contextText(p.context), p.query, p.pack) }];
  p.sink.emit({
    type: 'run.start',
    ...envelope,
    spawnedBy: null,
    turn: p.turn,
    model: p.model,
    subModel: p.subModel,
    query: p.query,
    context: describeContext(p.context, p.pack.semantics),
    limits: p.limits,
    messages: [...messages],
    tools: [],
    repl: p.repl,
    ...requestFieldsOf(p.client, undefined),
    prompts: packIdentity(p.pack),
  });
  const ledger = new UsageLedger();
  const abort = new AbortController();
  const onAbort = (): void => abort.abort();
  p.signal?.addEventListener('abort', onAbort, { once: true });
  if (p.signal?.aborted) abort.abort();
  let timedOut = false;
  const cancelTimer =
    p.limits.maxTimeoutMs === null
      ? undefined
      : setLongTimeout(() => {
          timedOut = true;
          abort.abort();
        }, p.limits.maxTimeoutMs);
  let answer: string | null = null;
  let stopReason: StopReason = 'answered';
  let message: string | null = null;
  try {
    if (abort.signal.aborted) throw new Error('aborted');
    const reply = await p.client.complete({ model: p.model, messages, purpose: 'direct', signal: abort.signal });
    ledger.add(reply.usage, p.model);
    const { text: replyText, reasoning } = replyParts(reply, 'split');
    p.sink.emit({
      type: 'model.reply',
      ...envelope,
      iteration: DIRECT_CALL_ITERATION,
      purpose: 'direct',
      model: reply.model || p.model,
      text: replyText,
      usage: reply.usage,
      latencyMs: Math.round(reply.latencyMs),
      ...(reply.retries ? { retries: reply.retries } : {}),
      ...(reasoning ? { reasoning } : {}),
      ...(reply.finishReason ? { finishReason: reply.finishReason } : {}),
    });
    messages.push({ role: 'assistant', content: replyText });
    answer = replyText;
  } catch (err) {
    if (timedOut) {
      stopReason = 'max_timeout';
      message = `time limit reached after ${((performance.now() - started) / 1000).toFixed(1)} s (direct call)`;
      p.sink.emit({ type: 'limit', ...envelope, limit: 'max_timeout', message });
    } else if (abort.signal.aborted) {
      stopReason = 'cancelled';
      message = 'cancelled';
    } else {
      const text = err instanceof Error ? err.message : String(err);
      p.sink.emit({ type: 'model.error', ...envelope, iteration: DIRECT_CALL_ITERATION, purpose: 'direct', model: p.model, message: text });
      const refusal = lengthRefusalOf(err);
      if (refusal) {
        stopReason = 'context_overflow';
        message = overflowMessage(refusal, {
          at: 'the direct call',
          estimatedTokens: estimateTokens(messages),
          assumedWindow: contextWindowFor(p.model),
          model: p.model,
        });
        p.sink.emit({ type: 'limit', ...envelope, limit: 'context_overflow', message });
      } else {
        stopReason = 'error';
        message = `model call failed: ${text}`;
      }
    }
  } finally {
    cancelTimer?.();
    p.signal?.removeEventListener('abort', onAbort);
  }
  const durationMs = Math.round(performance.now() - started);
  const usage = ledger.summary();
  p.sink.emit({ type: 'run.end', ...envelope, answer, stopReason, message, iterations: 0, durationMs, usage });
  return {
    runId: p.runId,
    answer,
    stopReason,
    message,
    iterations: 0,
    durationMs,
    usage: { ...usage, byModel: ledger.byModel() },
    messages,
  };
}
