// The critical path of a run: the chain of model calls, blocks and sub-calls its end waited on.
import { type CallId, type RunId } from '../events.ts';
import { blocksOf } from './reducer.ts';
import { isChildRunCall } from './totals.ts';
import type { CallNode, TrajectoryState } from './types.ts';

export interface PathStep {
  kind: 'model' | 'block' | 'llm' | 'rlm';
  runId: RunId;
  iteration: number;
  block: number | null;
  callId: CallId | null;
  startT: number;
  endT: number;
  ms: number;
}

/**
 * The chain of work that determined a run's wall time: each iteration's model reply, then
 * each block; inside a block, walking back from its end, the sub-call that finished last,
 * then the one that finished last before that one started, and so on (concurrent calls
 * off the chain are hidden behind the chain). A child run on the chain is expanded into
 * its own critical path. Block time not covered by calls is a 'block' step.
 */
export function criticalPath(state: TrajectoryState, runId: RunId): PathStep[] {
  const run = state.runs.get(runId);
  if (!run) return [];
  const steps: PathStep[] = [];
  for (const it of run.iterations) {
    const reply = it.reply;
    if (reply) {
      steps.push({
        kind: 'model',
        runId,
        iteration: it.iteration,
        block: null,
        callId: null,
        startT: reply.t - reply.latencyMs,
        endT: reply.t,
        ms: reply.latencyMs,
      });
    }
    for (const b of blocksOf(it)) {
      if (!b.end) continue;
      const blockStart = b.start ? b.start.t : b.end.t - b.end.durationMs;
      const chain: CallNode[] = [];
      let cursor = b.end.t;
      const calls = b.calls.map((id) => state.calls.get(id)).filter((c): c is CallNode => c !== undefined && c.end !== null);
      for (;;) {
        let best: CallNode | null = null;
        for (const c of calls) {
          const end = (c.end as NonNullable<CallNode['end']>).t;
          if (end <= cursor && c.start.t >= blockStart && (!best || end > (best.end as NonNullable<CallNode['end']>).t)) best = c;
        }
        if (!best) break;
        chain.unshift(best);
        cursor = best.start.t;
        calls.splice(calls.indexOf(best), 1);
      }
      let covered = 0;
      const inner: PathStep[] = [];
      for (const c of chain) {
        const end = c.end as NonNullable<CallNode['end']>;
        const ms = end.t - c.start.t;
        covered += ms;
        if (isChildRunCall(c) && c.start.childRunId) inner.push(...criticalPath(state, c.start.childRunId));
        else
          inner.push({
            kind: isChildRunCall(c) ? 'rlm' : 'llm',
            runId,
            iteration: it.iteration,
            block: b.block,
            callId: c.id,
            startT: c.start.t,
            endT: end.t,
            ms,
          });
      }
      const own = Math.max(0, b.end.durationMs - covered);
      steps.push({
        kind: 'block',
        runId,
        iteration: it.iteration,
        block: b.block,
        callId: null,
        startT: blockStart,
        endT: b.end.t,
        ms: own,
      });
      steps.push(...inner);
    }
  }
  return steps;
}
