import { describe, expect, it } from 'vitest';
import type { ChatMessage, TrajectoryEvent } from '../../../src-shared/events.ts';
import { buildReplayPlan, ReplayClient } from '../../../src-main/lm/replay-client.ts';
import type { CompletionRequest, CompletionResult, LmClient } from '../../../src-main/lm/types.ts';

const env = (runId: string, parentRunId: string | null = null, depth = 0) => ({ v: 1, seq: 0, t: 0, ts: '', runId, parentRunId, depth });
const usage = { inputTokens: 1, outputTokens: 1, costUsd: 0 };
const limits = {
  maxDepth: 2,
  maxIterations: 5,
  maxBudgetUsd: null,
  maxTimeoutMs: null,
  maxTokens: null,
  maxErrors: null,
  maxConcurrency: 1,
};
const ctx = { type: 'string' as const, totalChars: 1, chunkLengths: [1] };

function runStart(runId: string, messages: ChatMessage[], parent: string | null = null, spawnIteration = 0): TrajectoryEvent {
  return {
    ...env(runId, parent, parent ? 1 : 0),
    type: 'run.start',
    spawnedBy: parent ? { runId: parent, iteration: spawnIteration, block: 0, callId: 'c' } : null,
    turn: 0,
    model: 'm',
    subModel: null,
    query: null,
    context: ctx,
    limits,
    messages,
    tools: [],
  } as unknown as TrajectoryEvent;
}
const iterStart = (runId: string, iteration: number) =>
  ({ ...env(runId), type: 'iteration.start', iteration, appended: [], historyLength: 0, historyTokens: 0 }) as unknown as TrajectoryEvent;
const reply = (runId: string, iteration: number, text: string) =>
  ({ ...env(runId), type: 'model.reply', iteration, purpose: 'turn', model: 'm', text, usage, latencyMs: 5 }) as unknown as TrajectoryEvent;
const subStart = (runId: string, callId: string, iteration: number, prompt: string, childRunId: string | null) =>
  ({
    ...env(runId),
    type: 'subcall.start',
    callId,
    iteration,
    block: 0,
    kind: childRunId ? 'rlm' : 'llm',
    leaf: false,
    prompt,
    model: 'm',
    batch: null,
    childRunId,
  }) as unknown as TrajectoryEvent;
const subEnd = (runId: string, callId: string, response: string) =>
  ({ ...env(runId), type: 'subcall.end', callId, response, error: null, usage, latencyMs: 5 }) as unknown as TrajectoryEvent;

// The original: root run-0 replied at 1, 2, 3; at 2 it called llm("p") and spawned child run-1.
const original: TrajectoryEvent[] = [
  runStart('run-0', [{ role: 'system', content: 's' }]),
  iterStart('run-0', 1),
  reply('run-0', 1, 'r1'),
  iterStart('run-0', 2),
  reply('run-0', 2, 'r2'),
  subStart('run-0', 'call-0', 2, 'p', null),
  subEnd('run-0', 'call-0', 'recorded p'),
  subStart('run-0', 'call-1', 2, 'child task', 'run-1'),
  runStart('run-1', [{ role: 'system', content: 's' }], 'run-0', 2),
  iterStart('run-1', 1),
  reply('run-1', 1, 'child r1'),
  subEnd('run-0', 'call-1', 'child answer'),
  iterStart('run-0', 3),
  reply('run-0', 3, 'r3'),
];

class Live implements LmClient {
  calls: CompletionRequest[] = [];
  async complete(req: CompletionRequest): Promise<CompletionResult> {
    this.calls.push(req);
    return { text: 'live', model: req.model, usage, latencyMs: 1 };
  }
}

/** Drives a client the way the engine does: events first, then the call. */
function rerun(client: ReplayClient) {
  const systems = new Map<string, ChatMessage>();
  return {
    start(runId: string, parent: string | null = null) {
      const sys = { role: 'system' as const, content: 's' };
      systems.set(runId, sys);
      client.observe(runStart(runId, [sys], parent, 2));
    },
    turn(runId: string, iteration: number) {
      client.observe(iterStart(runId, iteration));
      return client.complete({ model: 'm', messages: [systems.get(runId)!, { role: 'user', content: `turn ${iteration}` }] });
    },
    sub(runId: string, callId: string, iteration: number, prompt: string) {
      client.observe(subStart(runId, callId, iteration, prompt, null));
      return client.complete({ model: 'm', messages: [{ role: 'user', content: prompt }] });
    },
    /** A sub-call that spawns a child run: no completion of its own. */
    spawn(runId: string, callId: string, iteration: number, prompt: string, child: string) {
      client.observe(subStart(runId, callId, iteration, prompt, child));
    },
  };
}

describe('ReplayClient', () => {
  it('serves the record before the fork point and goes live from it', async () => {
    const live = new Live();
    const client = new ReplayClient(buildReplayPlan(original, { runId: 'run-0', iteration: 3 }, null), live);
    const r = rerun(client);
    r.start('run-0');
    expect((await r.turn('run-0', 1)).text).toBe('r1');
    expect((await r.turn('run-0', 2)).text).toBe('r2');
    expect((await r.sub('run-0', 'x-0', 2, 'p')).text).toBe('recorded p');
    // The re-run names its child differently; it is matched by where it was spawned.
    r.spawn('run-0', 'x-1', 2, 'child task', 'run-9');
    r.start('run-9', 'run-0');
    expect((await r.turn('run-9', 1)).text).toBe('child r1');
    expect((await r.turn('run-0', 3)).text).toBe('live');
    expect(client.counts).toEqual({ replayed: 4, live: 1, edited: 0 });
  });

  it('serves an edited reply at the fork point, and a child run spawned after it goes live', async () => {
    const live = new Live();
    const client = new ReplayClient(buildReplayPlan(original, { runId: 'run-0', iteration: 2 }, 'edited'), live);
    const r = rerun(client);
    r.start('run-0');
    expect((await r.turn('run-0', 1)).text).toBe('r1');
    expect((await r.turn('run-0', 2)).text).toBe('edited');
    expect((await r.sub('run-0', 'x-0', 2, 'p')).text).toBe('live');
    r.spawn('run-0', 'x-1', 2, 'child task', 'run-1');
    r.start('run-1', 'run-0');
    expect((await r.turn('run-1', 1)).text).toBe('live');
  });

  it('serves a kept (unedited) reply at the fork point with its recorded model and usage; an edited one costs nothing', async () => {
    const recordedUsage = { inputTokens: 1200, outputTokens: 80, costUsd: 0.004 };
    const events = original.map((e) =>
      e.type === 'model.reply' && e.runId === 'run-0' && e.iteration === 2 ? { ...e, model: 'big', usage: recordedUsage } : e,
    );
    const kept = new ReplayClient(buildReplayPlan(events, { runId: 'run-0', iteration: 2 }, 'r2'), new Live());
    const r = rerun(kept);
    r.start('run-0');
    await r.turn('run-0', 1);
    expect(await r.turn('run-0', 2)).toMatchObject({ text: 'r2', model: 'big', usage: recordedUsage });
    expect(kept.counts).toEqual({ replayed: 2, live: 0, edited: 0 });

    const edited = new ReplayClient(buildReplayPlan(events, { runId: 'run-0', iteration: 2 }, 'r2, edited'), new Live());
    const e = rerun(edited);
    e.start('run-0');
    await e.turn('run-0', 1);
    expect(await e.turn('run-0', 2)).toMatchObject({ text: 'r2, edited', usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 } });
    expect(edited.counts).toEqual({ replayed: 1, live: 0, edited: 1 });
  });

  it('forks at a child run: its ancestors replay through the spawning iteration', async () => {
    const live = new Live();
    const client = new ReplayClient(buildReplayPlan(original, { runId: 'run-1', iteration: 1 }, null), live);
    const r = rerun(client);
    r.start('run-0');
    await r.turn('run-0', 1);
    expect((await r.turn('run-0', 2)).text).toBe('r2');
    expect((await r.sub('run-0', 'x-0', 2, 'p')).text).toBe('recorded p');
    r.spawn('run-0', 'x-1', 2, 'child task', 'run-1');
    r.start('run-1', 'run-0');
    expect((await r.turn('run-1', 1)).text).toBe('live');
    expect((await r.turn('run-0', 3)).text).toBe('live');
  });

  it('withLive: one replay, the calls that go live sent to the other client (the sub-call endpoint)', async () => {
    const live = new Live();
    const subLive = new Live();
    const client = new ReplayClient(buildReplayPlan(original, { runId: 'run-0', iteration: 2 }, null), live);
    const sub = client.withLive(subLive);
    const r = rerun(client);
    r.start('run-0');
    expect((await r.turn('run-0', 1)).text).toBe('r1');
    // Iteration 2 is live: its sub-call, asked through the sub view, goes to the sub client.
    client.observe(subStart('run-0', 'x-0', 2, 'p', null));
    expect((await sub.complete({ model: 'm', messages: [{ role: 'user', content: 'p' }] })).text).toBe('live');
    expect(subLive.calls).toHaveLength(1);
    expect(live.calls).toHaveLength(0);
    expect(client.counts).toEqual({ replayed: 1, live: 1, edited: 0 });
  });

  it('withLive: recorded sub-calls before the fork point are still served from the record', async () => {
    const subLive = new Live();
    const client = new ReplayClient(buildReplayPlan(original, { runId: 'run-0', iteration: 3 }, null), new Live());
    const sub = client.withLive(subLive);
    const r = rerun(client);
    r.start('run-0');
    await r.turn('run-0', 1);
    await r.turn('run-0', 2);
    client.observe(subStart('run-0', 'x-0', 2, 'p', null));
    expect((await sub.complete({ model: 'm', messages: [{ role: 'user', content: 'p' }] })).text).toBe('recorded p');
    expect(subLive.calls).toHaveLength(0);
  });

  it('refuses a plan for a run the session does not have', () => {
    expect(() => buildReplayPlan(original, { runId: 'run-7', iteration: 1 }, null)).toThrow(/not in this session/);
    expect(() => buildReplayPlan([], { runId: 'run-0', iteration: 1 }, null)).toThrow(/no root run/);
  });
});
