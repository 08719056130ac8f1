// Serves recorded model replies and sub-call results to a re-run of a session (fork), then
// hands over to a live client. Requests carry no run id, so the client learns who is asking
// from the re-run's own events (it listens to them; the engine emits them synchronously
// before each call):
//  - turn calls: the run's history array starts with the run's own system-message object,
//    which `run.start` carries by reference; that object identifies the run.
//  - plain sub-calls: `subcall.start` (run, iteration, block, prompt) precedes each call;
//    a call is matched to the oldest pending start with the same prompt.
//  - child runs: the re-run's child ids are mapped to the original's through the spawning
//    `subcall.start` (parent, iteration, block, prompt, occurrence), so replay holds even
//    when ids are handed out in another order.
// A recorded answer is served only for calls "before" the fork point (see `inReplay`);
// re-executing the same code over the same answers rebuilds the REPL state exactly.
import { z } from 'zod';
import type { ChatMessage, ModelCallPurpose, TrajectoryEvent } from '../../src-shared/events.ts';
import { COMPACTION_REQUEST, FINAL_ANSWER_REQUEST } from './prompt-markers.ts';
import type { CompletionRequest, CompletionResult, LmClient } from './types.ts';

const usage = z.strictObject({
  inputTokens: z.number(),
  outputTokens: z.number(),
  costUsd: z.number().nullable(),
  cachedInputTokens: z.number().optional(),
  reasoningTokens: z.number().optional(),
});
const reasoning = z.strictObject({
  text: z.string(),
  source: z.enum(['reasoning_content', 'reasoning', 'think']),
  inText: z.boolean().optional(),
});

/** The slice of an original session's events a replay needs; crosses the worker boundary. */
export const ReplayPlan = z.strictObject({
  /** The original session's root run (the re-run's first root run maps onto it). */
  rootRunId: z.string(),
  /** Replay `runId` up to, not including, `iteration`; go live from there. */
  target: z.strictObject({ runId: z.string(), iteration: z.number().int().positive() }),
  /** Served as the reply at the target instead of asking the model. */
  editedReply: z.string().nullable(),
  runs: z.array(z.strictObject({ runId: z.string(), parentRunId: z.string().nullable(), spawnIteration: z.number().int().nullable() })),
  replies: z.array(
    z.strictObject({
      runId: z.string(),
      iteration: z.number().int(),
      text: z.string(),
      model: z.string(),
      usage,
      reasoning: reasoning.optional(),
      finishReason: z.string().optional(),
    }),
  ),
  subcalls: z.array(
    z.strictObject({
      runId: z.string(),
      callId: z.string(),
      iteration: z.number().int(),
      block: z.number().int(),
      kind: z.enum(['llm', 'rlm']),
      prompt: z.string(),
      childRunId: z.string().nullable(),
      response: z.string().nullable(),
      error: z.string().nullable(),
      usage: usage.nullable(),
    }),
  ),
  /**
   * A counterfactual fork: this recorded call (in the target run at target.iteration - 1) is
   * not made; the engine gets this result instead. Calls after it that the record does not
   * hold (their prompts changed) go live.
   */
  substitute: z
    .strictObject({
      callId: z.string(),
      response: z.string(),
      error: z.string().nullable(),
      counterfactual: z.strictObject({
        id: z.string(),
        recorded: z.strictObject({
          callId: z.string(),
          prompt: z.string(),
          model: z.string(),
          response: z.string(),
          error: z.string().nullable(),
        }),
        rerun: z.strictObject({ prompt: z.string(), model: z.string(), usage, sessionLogFile: z.string().nullable() }),
      }),
    })
    .optional(),
});
export type ReplayPlan = z.infer<typeof ReplayPlan>;
type Substitute = NonNullable<ReplayPlan['substitute']>;

/** Builds the plan for a fork at (runId, iteration) from the original session's events. */
export function buildReplayPlan(
  events: readonly TrajectoryEvent[],
  target: { runId: string; iteration: number },
  editedReply: string | null,
): ReplayPlan {
  const runs: ReplayPlan['runs'] = [];
  const replies: ReplayPlan['replies'] = [];
  const subcalls = new Map<string, ReplayPlan['subcalls'][number]>();
  let rootRunId: string | null = null;
  for (const e of events) {
    switch (e.type) {
      case 'run.start':
        if (e.parentRunId === null && rootRunId === null) rootRunId = e.runId;
        runs.push({ runId: e.runId, parentRunId: e.parentRunId, spawnIteration: e.spawnedBy?.iteration ?? null });
        break;
      case 'model.reply':
        if (e.purpose === 'turn') {
          replies.push({
            runId: e.runId,
            iteration: e.iteration,
            text: e.text,
            model: e.model,
            usage: e.usage,
            ...(e.reasoning ? { reasoning: e.reasoning } : {}),
            ...(e.finishReason ? { finishReason: e.finishReason } : {}),
          });
        }
        break;
      case 'subcall.start':
        subcalls.set(e.callId, {
          runId: e.runId,
          callId: e.callId,
          iteration: e.iteration,
          block: e.block,
          kind: e.kind,
          prompt: e.prompt,
          childRunId: e.childRunId,
          response: null,
          error: null,
          usage: null,
        });
        break;
      case 'subcall.end': {
        const s = subcalls.get(e.callId);
        if (s) Object.assign(s, { response: e.response, error: e.error, usage: e.usage });
        break;
      }
      default:
        break;
    }
  }
  if (rootRunId === null) throw new Error('the session has no root run to fork from');
  if (!runs.some((r) => r.runId === target.runId)) throw new Error(`run ${target.runId} is not in this session`);
  return { rootRunId, target, editedReply, runs, replies, subcalls: [...subcalls.values()] };
}

interface PendingPlain {
  runId: string;
  kind: 'llm' | 'rlm';
  iteration: number;
  block: number;
  prompt: string;
}

export class ReplayClient implements LmClient {
  private readonly plan: ReplayPlan;
  private readonly live: LmClient;
  /** Re-run run id → original run id. */
  private readonly runMap = new Map<string, string>();
  private readonly runByFirstMessage = new WeakMap<ChatMessage, string>();
  private readonly iterationOf = new Map<string, number>();
  private readonly pending: PendingPlain[] = [];
  private readonly occurrences = new Map<string, number>();
  private readonly replyByKey = new Map<string, ReplayPlan['replies'][number]>();
  private readonly subcallsByKey = new Map<string, ReplayPlan['subcalls']>();
  private readonly replayUntil = new Map<string, number>();
  private rootMapped = false;
  /** Sub-calls asked about so far, by key (the engine asks before each one). */
  private readonly asked = new Map<string, number>();
  /** Set once the substitution has been made: unrecorded calls after it go live. */
  private substituted = false;
  /** The substituted call's `subcall.start`, to be ignored when it comes. */
  private skipStart: { runId: string; prompt: string } | null = null;
  /** Calls answered from the record, and calls sent to the live client. */
  readonly counts = { replayed: 0, live: 0, edited: 0 };

  constructor(plan: ReplayPlan, live: LmClient) {
    this.plan = plan;
    this.live = live;
    for (const r of plan.replies) this.replyByKey.set(`${r.runId}|${r.iteration}`, r);
    for (const s of plan.subcalls) {
      const key = subcallKey(s.runId, s.iteration, s.block, s.kind, s.prompt, s.childRunId !== null);
      const list = this.subcallsByKey.get(key) ?? [];
      list.push(s);
      this.subcallsByKey.set(key, list);
    }
    this.computeRegion();
  }

  /**
   * For each original run, the last iteration served from the record. The target replays
   * iterations < k; its ancestors replay up to the iteration that (indirectly) spawned it;
   * any other run is replayed whole if it was spawned inside the replayed part of its
   * parent, else not at all.
   */
  private computeRegion(): void {
    const parent = new Map(this.plan.runs.map((r) => [r.runId, r] as const));
    const { runId: target, iteration: k } = this.plan.target;
    this.replayUntil.set(target, k - 1);
    let cur = parent.get(target);
    while (cur && cur.parentRunId !== null && cur.spawnIteration !== null) {
      this.replayUntil.set(cur.parentRunId, cur.spawnIteration);
      cur = parent.get(cur.parentRunId);
    }
    const resolve = (runId: string): number => {
      const known = this.replayUntil.get(runId);
      if (known !== undefined) return known;
      const r = parent.get(runId);
      let until = -1;
      if (r && r.parentRunId !== null && r.spawnIteration !== null) {
        until = r.spawnIteration <= resolve(r.parentRunId) ? Number.POSITIVE_INFINITY : -1;
      }
      this.replayUntil.set(runId, until);
      return until;
    };
    for (const r of this.plan.runs) resolve(r.runId);
  }

  private inReplay(originalRunId: string, iteration: number): boolean {
    return iteration <= (this.replayUntil.get(originalRunId) ?? -1);
  }

  /** Feed every event of the re-run, in order, before the engine's next call. */
  observe(e: TrajectoryEvent): void {
    switch (e.type) {
      case 'run.start': {
        const first = e.messages[0];
        if (first) this.runByFirstMessage.set(first, e.runId);
        if (e.parentRunId === null && !this.rootMapped) {
          this.rootMapped = true;
          this.runMap.set(e.runId, this.plan.rootRunId);
        }
        break;
      }
      case 'iteration.start':
        this.iterationOf.set(e.runId, e.iteration);
        break;
      case 'subcall.start': {
        if (this.skipStart && this.skipStart.runId === e.runId && this.skipStart.prompt === e.prompt) {
          this.skipStart = null;
          break;
        }
        const orig = this.runMap.get(e.runId);
        if (e.childRunId !== null) {
          if (orig === undefined) break;
          const s = this.takeRecorded(orig, e.iteration, e.block, e.kind, e.prompt, true);
          if (s?.childRunId) this.runMap.set(e.childRunId, s.childRunId);
        } else {
          this.pending.push({ runId: e.runId, kind: e.kind, iteration: e.iteration, block: e.block, prompt: e.prompt });
        }
        break;
      }
      default:
        break;
    }
  }

  /** The n-th recorded call with this key, n counting the calls seen so far. */
  private takeRecorded(
    orig: string,
    iteration: number,
    block: number,
    kind: 'llm' | 'rlm',
    prompt: string,
    child: boolean,
  ): ReplayPlan['subcalls'][number] | null {
    const key = subcallKey(orig, iteration, block, kind, prompt, child);
    const n = this.occurrences.get(key) ?? 0;
    this.occurrences.set(key, n + 1);
    return this.subcallsByKey.get(key)?.[n] ?? null;
  }

  /**
   * The substituted result when this is the plan's substituted call (the engine asks before
   * every sub-call, in the order it makes them; calls with the same key are told apart by
   * occurrence, as the replay matches them).
   */
  take(call: {
    runId: string;
    iteration: number;
    block: number;
    kind: 'llm' | 'rlm';
    prompt: string;
    child: boolean;
  }): Pick<Substitute, 'response' | 'error' | 'counterfactual'> | null {
    const sub = this.plan.substitute;
    const orig = this.runMap.get(call.runId);
    if (!sub || this.substituted || orig === undefined) return null;
    const key = subcallKey(orig, call.iteration, call.block, call.kind, call.prompt, call.child);
    const n = this.asked.get(key) ?? 0;
    this.asked.set(key, n + 1);
    if (this.subcallsByKey.get(key)?.[n]?.callId !== sub.callId) return null;
    this.substituted = true;
    // The call is not made: later calls with the same key take the records after it.
    this.occurrences.set(key, (this.occurrences.get(key) ?? 0) + 1);
    this.skipStart = { runId: call.runId, prompt: call.prompt };
    this.counts.edited++;
    return { response: sub.response, error: sub.error, counterfactual: sub.counterfactual };
  }

  complete(req: CompletionRequest): Promise<CompletionResult> {
    return this.serve(req, this.live);
  }

  /**
   * The same replay (one record, one set of counts) with another client for the calls that
   * go live: the sub-call endpoint's, when sub-calls have their own.
   */
  withLive(live: LmClient): LmClient {
    return { complete: (req) => this.serve(req, live) };
  }

  private async serve(req: CompletionRequest, live: LmClient): Promise<CompletionResult> {
    const first = req.messages[0];
    const runId = first ? this.runByFirstMessage.get(first) : undefined;
    if (runId !== undefined) return this.turnCall(runId, req, live);
    if (req.messages.length === 1 && first) return this.plainCall(first.content, req, live);
    this.counts.live++;
    return live.complete(req);
  }

  private async turnCall(runId: string, req: CompletionRequest, live: LmClient): Promise<CompletionResult> {
    const orig = this.runMap.get(runId);
    const iteration = this.iterationOf.get(runId) ?? 0;
    if (orig !== undefined && purposeOf(req) === 'turn') {
      if (this.inReplay(orig, iteration)) {
        const r = this.replyByKey.get(`${orig}|${iteration}`);
        if (r) {
          this.counts.replayed++;
          return recordedResult(r);
        }
      } else if (orig === this.plan.target.runId && iteration === this.plan.target.iteration && this.plan.editedReply !== null) {
        // The recorded reply kept as it was (to edit its code at the pause after it) is the
        // model's, at the model's cost: the fork's totals count it as the original's did.
        const recorded = this.replyByKey.get(`${orig}|${iteration}`);
        if (recorded && recorded.text === this.plan.editedReply) {
          this.counts.replayed++;
          return recordedResult(recorded);
        }
        this.counts.edited++;
        return { text: this.plan.editedReply, model: req.model, usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 }, latencyMs: 0 };
      }
    }
    this.counts.live++;
    return live.complete(req);
  }

  private async plainCall(prompt: string, req: CompletionRequest, live: LmClient): Promise<CompletionResult> {
    const i = this.pending.findIndex((p) => p.prompt === prompt);
    if (i >= 0) {
      const p = this.pending.splice(i, 1)[0]!;
      const orig = this.runMap.get(p.runId);
      if (orig !== undefined) {
        const s = this.takeRecorded(orig, p.iteration, p.block, p.kind, prompt, false);
        const replaying = this.inReplay(orig, p.iteration);
        if (s && s.response !== null && replaying) {
          this.counts.replayed++;
          // The engine turns a thrown error into `Error: LM query failed - <message>`, as recorded.
          if (s.error !== null && s.response.startsWith('Error: LM query failed')) throw new Error(s.error);
          return { text: s.response, model: req.model, usage: s.usage ?? { inputTokens: 0, outputTokens: 0, costUsd: 0 }, latencyMs: 0 };
        }
        // Nothing before the fork point goes live. The reference library logs no failed call,
        // so a call it made and lost has no record: it fails again here.
        if (replaying && !this.substituted) {
          this.counts.replayed++;
          throw new Error('no result is recorded for this call in the original log (the reference library does not log failed calls)');
        }
      }
    }
    this.counts.live++;
    return live.complete(req);
  }
}

/**
 * A turn is served from the record; the final-answer and compaction requests go live. The
 * engine says which it asks for; a request without a purpose (from a caller that wraps the
 * engine's requests) is told by our packs' texts.
 */
function purposeOf(req: CompletionRequest): ModelCallPurpose {
  if (req.purpose !== undefined) return req.purpose;
  const last = req.messages.at(-1)?.content;
  return last === FINAL_ANSWER_REQUEST ? 'final_answer' : last === COMPACTION_REQUEST ? 'compaction' : 'turn';
}

/** Plain calls match whatever their kind: an imported log cannot tell a leaf `rlm_query` from `llm_query`. */
function subcallKey(runId: string, iteration: number, block: number, kind: string, prompt: string, child: boolean): string {
  return JSON.stringify([runId, iteration, block, child ? kind : 'plain', child, prompt]);
}

/** A recorded reply served again: its text, thinking and end as the log has them. */
function recordedResult(r: ReplayPlan['replies'][number]): CompletionResult {
  return {
    text: r.text,
    model: r.model,
    usage: r.usage,
    latencyMs: 0,
    ...(r.reasoning ? { reasoning: r.reasoning } : {}),
    ...(r.finishReason ? { finishReason: r.finishReason } : {}),
  };
}
