// The waterfall's data: every model call, block and sub-call of a session as a time span,
// capped for drawing, and the caption that says what the chart can and cannot show.
import type { RunId } from '../../src-shared/events.ts';
import { blocksOf, walkRuns, type TrajectoryState } from '../../src-shared/trajectory/index.ts';

interface Span {
  key: string;
  kind: 'model' | 'block' | 'llm' | 'rlm';
  runId: RunId;
  depth: number;
  start: number;
  end: number;
  label: string;
}

/** More spans than this are not drawn (thousands of 1-pixel rows say nothing and cost seconds). */
const SPAN_LIMIT = 3000;

export interface SessionSpans {
  /** The first `limit` spans in run, iteration and block order. */
  spans: Span[];
  /** How many spans the session has in all. */
  total: number;
}

/** Every model call, block and sub-call of the session as a time span: the first `limit`, and how many there are. */
export function sessionSpans(traj: TrajectoryState, limit = SPAN_LIMIT): SessionSpans {
  const spans: Span[] = [];
  let total = 0;
  const add = (s: () => Span): void => {
    total++;
    if (spans.length < limit) spans.push(s());
  };
  for (const run of walkRuns(traj)) {
    for (const it of run.iterations) {
      const reply = it.reply;
      if (reply)
        add(() => ({
          key: `m:${run.id}:${it.iteration}`,
          kind: 'model',
          runId: run.id,
          depth: run.depth,
          start: reply.t - reply.latencyMs,
          end: reply.t,
          label: `${run.id} #${it.iteration} model`,
        }));
      for (const b of blocksOf(it)) {
        const end = b.end;
        if (end)
          add(() => ({
            key: `b:${run.id}:${it.iteration}:${b.block}`,
            kind: 'block',
            runId: run.id,
            depth: run.depth,
            start: b.start ? b.start.t : end.t - end.durationMs,
            end: end.t,
            label: `${run.id} #${it.iteration} block ${b.block + 1}`,
          }));
        for (const cid of b.calls) {
          const c = traj.calls.get(cid);
          const cend = c?.end;
          if (c && cend && !c.start.childRunId)
            add(() => ({
              key: `c:${cid}`,
              kind: 'llm',
              runId: run.id,
              depth: run.depth + 1,
              start: c.start.t,
              end: cend.t,
              label: `${c.start.kind} call ${cid}`,
            }));
        }
      }
    }
  }
  return { spans, total };
}

export interface WaterfallCaption {
  title: string;
  /** Above the calls-in-flight curve. */
  inFlight: string;
  /** Drawn beside a sub-call's duration in its tooltip; empty when its start is known. */
  callNote: string;
}

/**
 * What the chart says about itself. `untimed`: the log records sub-calls' durations but not
 * when they started (the reference library's format), so they were placed end to end and
 * the concurrency among them is unknown rather than 1.
 */
export function waterfallCaption(shown: number, total: number, maxInFlight: number, untimed: boolean): WaterfallCaption {
  const count = shown < total ? `the first ${shown} of ${total} calls` : `${total} calls`;
  const capped = shown < total ? ` (first ${shown} of ${total} calls)` : '';
  if (untimed)
    return {
      title: `Waterfall: ${count} over time (sub-call start times not recorded in this log: sub-calls drawn end to end; critical path outlined)`,
      inFlight: `calls in flight unknown: sub-call timing not recorded${capped}`,
      callNote: ' (start not recorded: placed after the previous call)',
    };
  return {
    title: `Waterfall: ${count} over time (critical path outlined; top: calls in flight)`,
    inFlight: `max ${maxInFlight} in flight${capped}`,
    callNote: '',
  };
}
