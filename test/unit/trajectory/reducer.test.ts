import { describe, expect, it } from 'vitest';
import { asRunId, type TrajectoryEvent } from '../../../src-shared/events.ts';
import { applyEvent, blocksOf, createTrajectoryState, reduceEvents, walkRuns } from '../../../src-shared/trajectory/reducer.ts';
import { logStats, StatsAccumulator } from '../../../src-shared/trajectory/log-stats.ts';
import { scenario } from './synthetic.ts';

const EXPECTED = {
  sessions: 2,
  runs: 4,
  maxDepth: 1,
  iterations: 9,
  codeBlocks: 6,
  llmCalls: 4,
  rlmCalls: 2,
  errors: 1,
  inputTokens: 867,
  outputTokens: 87,
  costUsd: 0.013,
  wallMs: 900,
  retries: 0,
  cachedInputTokens: 0,
  reasoningTokens: 0,
  cutReplies: 0,
  byModel: {
    m: { inputTokens: 800, outputTokens: 80, calls: 9, costUsd: 0.009 },
    'm-sub': { inputTokens: 67, outputTokens: 7, calls: 4, costUsd: 0.004 },
  },
};

describe('trajectory reducer', () => {
  it('builds sessions → runs → iterations → blocks → calls, with interleaved children', () => {
    const s = reduceEvents(scenario().events);
    expect(s.problems).toEqual([]);
    expect(s.roots).toEqual(['root0', 'root1']);
    const root = s.runs.get(asRunId('root0'));
    expect(root?.children).toEqual(['root0/c1', 'root0/c2']);
    expect(root?.iterations.map((i) => i.iteration)).toEqual([1, 2, 3]);
    const it1 = root?.iterations[0];
    expect(it1?.reply?.text).toBe('it1');
    expect(it1 && blocksOf(it1).map((b) => b.start?.code)).toEqual(['boom()', 'llm_query_batched([...])']);
    expect(it1?.blocks[0]?.end?.error?.name).toBe('ReferenceError');
    expect(it1?.blocks[1]?.calls).toEqual(['b0', 'b1', 'b2']);
    expect(s.calls.get(it1?.blocks[1]?.calls[1] as never)?.end?.response).toBe('answer of b1');
    const it2 = root?.iterations[1];
    expect(it2?.blocks[0]?.calls.map((id) => s.calls.get(id)?.start.childRunId)).toEqual(['root0/c1', 'root0/c2']);
    const c2 = s.runs.get(asRunId('root0/c2'));
    expect(c2?.depth).toBe(1);
    expect(c2?.rootRunId).toBe('root0');
    expect(c2?.spawnedBy?.callId).toBe('k2');
    expect(c2?.end?.answer).toBe('B');
    expect(c2?.iterations[0]?.blocks[0]?.calls).toEqual(['leaf1']);
    expect([...walkRuns(s)].map((r) => r.id)).toEqual(['root0', 'root0/c1', 'root0/c2', 'root1']);
  });

  it('keeps the default answer as an extra iteration with a final_answer reply', () => {
    const s = reduceEvents(scenario().events);
    const r1 = s.runs.get(asRunId('root1'));
    expect(r1?.turn).toBe(1);
    expect(r1?.iterations.map((i) => i.iteration)).toEqual([1, 2, 3, 4]);
    expect(r1?.iterations[3]?.reply?.purpose).toBe('final_answer');
    expect(r1?.iterations[3]?.start).toBeNull();
    expect(r1?.limits.map((l) => l.limit)).toEqual(['max_iterations']);
    expect(r1?.end?.stopReason).toBe('max_iterations');
  });

  it('gives the same tree event by event as over the whole list, and counts as expected', () => {
    const events = scenario().events;
    const live = createTrajectoryState();
    const revisions: number[] = [];
    for (const e of events) revisions.push(applyEvent(live, e).revision);
    expect(revisions).toEqual(events.map((_, i) => i + 1));
    expect(logStats(live)).toEqual(logStats(reduceEvents(events)));
    expect(logStats(live)).toEqual(EXPECTED);
    const acc = new StatsAccumulator();
    for (const e of events) acc.push(e);
    expect(acc.result()).toEqual(EXPECTED);
  });

  it('counts the retries recorded on model replies and plain sub-calls, in both counts', () => {
    let marked = false;
    const events = scenario().events.map((e): TrajectoryEvent => {
      if (e.type === 'model.reply' && !marked) {
        marked = true;
        return { ...e, retries: 2 };
      }
      return e.type === 'subcall.end' && e.callId === 'b1' ? { ...e, retries: 1 } : e;
    });
    expect(logStats(reduceEvents(events)).retries).toBe(3);
    const acc = new StatsAccumulator();
    for (const e of events) acc.push(e);
    expect(acc.result().retries).toBe(3);
  });

  it('tolerates events for unknown runs, unknown calls and duplicates without throwing', () => {
    const events = scenario().events;
    // Drop the child run.start of c1 and the subcall.start of b0; duplicate one event.
    const damaged: TrajectoryEvent[] = events.filter(
      (e) => !(e.type === 'run.start' && e.runId === 'root0/c1') && !(e.type === 'subcall.start' && e.callId === 'b0'),
    );
    damaged.push({ ...(damaged[3] as TrajectoryEvent), seq: 10_000 });
    const s = reduceEvents(damaged);
    expect(s.problems.length).toBeGreaterThanOrEqual(2);
    expect(s.problems.some((p) => p.message.includes('root0/c1') && p.message.includes('no run.start'))).toBe(true);
    expect(s.problems.some((p) => p.message.includes('b0') && p.message.includes('without a subcall.start'))).toBe(true);
    // The placeholder child still hangs under its parent, with its iterations.
    const c1 = s.runs.get(asRunId('root0/c1'));
    expect(c1?.start).toBeNull();
    expect(c1?.iterations.length).toBe(1);
    expect(s.runs.get(asRunId('root0'))?.children).toContain('root0/c1');
  });

  it('accepts any prefix of the events (a live run) without problems', () => {
    const events = scenario().events;
    for (let n = 0; n <= events.length; n += 7) {
      const s = reduceEvents(events.slice(0, n));
      expect(s.problems).toEqual([]);
      expect(s.eventCount).toBe(n);
    }
  });
});
