// One session of one task: the engine on the task's context and query, a native log, and the
// scored result line. Shared by the local runner and the queue's workers.
import { randomUUID } from 'node:crypto';
import { asSessionId, retriesOf } from '../../src-shared/events.ts';
import { makeHeader } from '../../src-shared/codecs/native-lines.ts';
import { EventRecorder, RlmConversation, type RlmConfig, type RunOutcome } from '../engine/index.ts';
import type { SandboxValue } from '../sandbox/types.ts';
import { NativeLogFile } from '../logs/native-file-sink.ts';
import type { TaskResult } from './results.ts';
import { scoreAnswer } from './tasks/scorers.ts';
import type { ScorerModule } from './scorer-module.ts';
import type { WorkUnit } from './units.ts';

export interface TaskSessionInput {
  unit: WorkUnit;
  loadContext: () => Promise<SandboxValue>;
  logPath: string;
  config: RlmConfig;
  /** Scores the session instead of the task's own scorer. */
  scorer?: ScorerModule;
  signal?: AbortSignal;
}

/** The result line of a session that never ran (its context could not be loaded, a worker could not start it). */
export function notRunResult(unit: WorkUnit, model: string, message: string, logFile: string | null = null): TaskResult {
  return {
    ...baseOf(unit, model),
    score: 0,
    correct: false,
    scoreDetail: 'not run',
    answer: null,
    stopReason: 'error',
    message,
    iterations: 0,
    durationMs: 0,
    usage: { inputTokens: 0, outputTokens: 0, calls: 0, costUsd: 0 },
    logFile,
    finishedAt: new Date().toISOString(),
  };
}

function baseOf(
  unit: WorkUnit,
  model: string,
): Pick<TaskResult, 'id' | 'repeat' | 'kind' | 'sizeTokens' | 'scorer' | 'expected' | 'model'> {
  const t = unit.task;
  return {
    id: t.id,
    ...(unit.repeat === 0 ? {} : { repeat: unit.repeat }),
    kind: t.kind,
    sizeTokens: t.sizeTokens ?? null,
    scorer: t.scorer,
    expected: t.expected,
    model,
  };
}

/** Runs the session to a result; null when `signal` interrupted it (no result: it runs again on resume). */
export async function runTaskSession(i: TaskSessionInput): Promise<TaskResult | null> {
  const { unit, config } = i;
  let context: SandboxValue;
  try {
    context = await i.loadContext();
  } catch (err) {
    return notRunResult(unit, config.model, (err as Error).message);
  }
  const log = new NativeLogFile(i.logPath, makeHeader(asSessionId(randomUUID()), new Date(), undefined, config.repl ?? 'javascript'));
  let retries = 0;
  const recorder = new EventRecorder((e) => {
    retries += retriesOf(e);
    log.append(e);
  });
  let outcome: RunOutcome;
  let session: RlmConversation | null = null;
  try {
    session = new RlmConversation(config, { sink: recorder });
    outcome = await session.completion(context, unit.task.query, i.signal ? { signal: i.signal } : {});
  } catch (err) {
    return notRunResult(unit, config.model, (err as Error).message, log.path);
  } finally {
    session?.close();
    log.close();
  }
  if (outcome.stopReason === 'cancelled' && i.signal?.aborted) return null;
  const t = unit.task;
  let score;
  try {
    score = i.scorer
      ? await i.scorer.score({
          answer: outcome.answer,
          expected: t.expected,
          task: { id: t.id, kind: t.kind, query: t.query, repeat: unit.repeat },
        })
      : scoreAnswer(t.scorer, t.expected, outcome.answer);
  } catch (err) {
    // The session ran and its log is kept: a scorer that fails scores it 0 and says why (rlm-studio score can redo it).
    score = { score: 0, correct: false, detail: (err as Error).message };
  }
  return {
    ...baseOf(unit, config.model),
    ...(i.scorer ? { scorer: i.scorer.id } : {}),
    score: score.score,
    correct: score.correct,
    scoreDetail: score.detail,
    answer: outcome.answer,
    stopReason: outcome.stopReason,
    message: outcome.message,
    iterations: outcome.iterations,
    durationMs: outcome.durationMs,
    usage: outcome.usage,
    ...(retries > 0 ? { retries } : {}),
    logFile: log.path,
    finishedAt: new Date().toISOString(),
  };
}
