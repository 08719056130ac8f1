// Counterfactual sub-calls (issue 13, part 3): a recorded sub-call re-run with an edited
// prompt or model, and what a fork needs to substitute its new result. Pure: the host uses it
// to check a request and to write the record, the app to show a call's panel.
import { z } from 'zod';
import { asCallId, type Limits, type ReplLanguage, type RunId, type SubcallCounterfactual } from '../events.ts';
import type { CallNode, RunNode, TrajectoryState } from '../trajectory/types.ts';

const usage = z.strictObject({
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number().nullable(),
  cachedInputTokens: z.number().optional(),
  reasoningTokens: z.number().optional(),
});

/**
 * One counterfactual re-run, as the host reports it and as each line of the source log's
 * sidecar (`…rlm.counterfactuals.ndjson`, append-only) records it; a child run's record is
 * written when it starts and again when its session ends (the last line of an id wins).
 */
export const CounterfactualRecord = z.strictObject({
  version: z.literal(1),
  id: z.string().min(1),
  createdAt: z.string(),
  source: z.strictObject({ sessionId: z.string(), logFile: z.string().nullable(), format: z.enum(['native', 'rlm-python']) }),
  /** The call as recorded. */
  call: z.strictObject({
    callId: z.string(),
    runId: z.string(),
    iteration: z.number().int(),
    block: z.number().int(),
    kind: z.enum(['llm', 'rlm']),
    /** It spawned a child run (re-run as a session of its own). */
    child: z.boolean(),
    prompt: z.string(),
    model: z.string(),
    response: z.string().nullable(),
    error: z.string().nullable(),
  }),
  /** What was re-run: the edited prompt and model, on this endpoint profile. */
  edited: z.strictObject({ prompt: z.string(), model: z.string(), profile: z.string() }),
  status: z.enum(['running', 'done', 'failed']),
  /** The new result (null while a child run is still running). */
  result: z
    .strictObject({ response: z.string(), error: z.string().nullable(), usage: usage.nullable(), latencyMs: z.number().nullable() })
    .nullable(),
  /** A child run's re-run: the session that ran it as its own RLM. */
  session: z.strictObject({ sessionId: z.string(), logFile: z.string().nullable() }).nullable(),
  message: z.string().nullable(),
});
export type CounterfactualRecord = z.infer<typeof CounterfactualRecord>;

/** A sub-call of a loaded trajectory, as a counterfactual panel and the host see it. */
export interface CounterfactualCall {
  call: CallNode;
  /** The run that made the call. */
  run: RunNode;
  /** The child run the call spawned, when it did (absent from the tree: null). */
  childRun: RunNode | null;
  /** Leaf `llm_query` / `rlm_query` fallback (a plain call), or a child RLM. */
  child: boolean;
}

/** The call `callId` of a trajectory, or a message saying why it cannot be re-run. */
export function findCounterfactualCall(state: TrajectoryState, callId: string): CounterfactualCall | string {
  const call = state.calls.get(asCallId(callId));
  if (!call) return `no sub-call ${callId} in this session`;
  const run = state.runs.get(call.runId);
  if (!run?.start) return `the run ${call.runId} that made call ${callId} has no run.start`;
  if (!call.end) return `call ${callId} has no recorded result (the run stopped before it returned)`;
  const childRunId: RunId | null = call.start.childRunId;
  const childRun = childRunId !== null ? (state.runs.get(childRunId) ?? null) : null;
  return { call, run, childRun, child: childRunId !== null };
}

/** What a child run re-run as a session of its own starts with: its model, language and the depth left below it. */
export function childSessionSettings(
  found: CounterfactualCall,
): { model: string; limits: Pick<Limits, 'maxDepth' | 'maxIterations'>; repl: ReplLanguage | undefined } | string {
  const start = found.childRun?.start ?? null;
  const limits = start?.limits ?? found.run.start?.limits;
  if (!limits) return 'the run has no recorded limits';
  const depth = found.run.depth + 1;
  return {
    model: start?.model ?? found.call.start.model,
    // The child was at `depth` below the root: as a root of its own it keeps the same depth below it.
    limits: { maxDepth: Math.max(1, limits.maxDepth - depth), maxIterations: limits.maxIterations },
    repl: start?.repl ?? found.run.start?.repl,
  };
}

/** The `counterfactual` a fork's `subcall.end` carries for a finished re-run. */
export function substitutionOf(record: CounterfactualRecord): {
  callId: string;
  response: string;
  error: string | null;
  counterfactual: SubcallCounterfactual;
} | null {
  if (record.status !== 'done' || record.result === null) return null;
  return {
    callId: record.call.callId,
    response: record.result.response,
    error: record.result.error,
    counterfactual: {
      id: record.id,
      recorded: {
        callId: record.call.callId,
        prompt: record.call.prompt,
        model: record.call.model,
        response: record.call.response ?? '',
        error: record.call.error,
      },
      rerun: {
        prompt: record.edited.prompt,
        model: record.edited.model,
        usage: record.result.usage ?? { inputTokens: 0, outputTokens: 0, costUsd: 0 },
        sessionLogFile: record.session?.logFile ?? null,
      },
    },
  };
}

/** Latest record per id from sidecar lines (oldest first); unreadable lines are counted, not fatal. */
export function foldCounterfactualLines(lines: readonly string[]): { records: CounterfactualRecord[]; bad: number } {
  const byId = new Map<string, CounterfactualRecord>();
  let bad = 0;
  for (const line of lines) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      bad++;
      continue;
    }
    const r = CounterfactualRecord.safeParse(value);
    if (!r.success) {
      bad++;
      continue;
    }
    byId.delete(r.data.id);
    byId.set(r.data.id, r.data);
  }
  return { records: [...byId.values()], bad };
}
