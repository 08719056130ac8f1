// "Ask a follow-up": a finished live session keeps its worker and REPL; `session.followUp`
// runs another turn in it (context_N, history_N), streamed live and appended to the same log.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEndEvent, RunStartEvent, TrajectoryEvent } from '../../../src-shared/events.ts';
import { readLogFile } from '../../../src-main/logs/read-log.ts';
import { connectInProcess, demoStart, type TestClient, hostPerTest } from './helpers.ts';

const newHost = hostPerTest();
const VARIABLES = 'Which variables does the REPL hold now?';

const rootStarts = (events: TrajectoryEvent[]): RunStartEvent[] =>
  events.filter((e): e is RunStartEvent => e.type === 'run.start' && e.parentRunId === null);
const rootEnds = (events: TrajectoryEvent[]): RunEndEvent[] =>
  events.filter((e): e is RunEndEvent => e.type === 'run.end' && e.depth === 0);

/** Waits until `check` holds, looking every 20 ms (for state no push announces). */
async function poll(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits until the session has finished again with `eventCount` events all received. */
async function finishedWithEvents(c: TestClient, sessionId: string, turns: number): Promise<TrajectoryEvent[]> {
  const done = await c.until(() => {
    const s = c.latest(sessionId);
    const ev = c.events.get(sessionId) ?? [];
    return s && s.status !== 'running' && rootEnds(ev).length === turns && ev.length === s.eventCount ? s : null;
  }, `turn ${turns} of ${sessionId} to end`);
  expect(done.status, done.message ?? '').toBe('finished');
  return c.events.get(sessionId)!;
}

describe('follow-up turns of a live session', () => {
  it('runs each follow-up in the same REPL, streams it and appends it to the same log', async () => {
    const host = newHost();
    const c = connectInProcess(host);
    const { session } = await c.call('session.start', demoStart('needle'));
    const id = session.sessionId;
    await c.call('subscribe', { sessionId: id, fromSeq: 0 });
    await finishedWithEvents(c, id, 1);
    expect(c.latest(id)?.followUp).toEqual({ ready: true, reason: null });

    // No context given: the question is the turn's context, as the reference's completion(prompt).
    const asked = await c.call('session.followUp', { params: { sessionId: id, query: VARIABLES } });
    expect(asked.session.status).toBe('running');
    expect(asked.session.followUp?.ready).toBe(false);
    let events = await finishedWithEvents(c, id, 2);
    expect(rootStarts(events).map((e) => [e.turn, e.query])).toEqual([
      [0, expect.stringMatching(/magic number/) as unknown],
      [1, VARIABLES],
    ]);
    expect(rootEnds(events)[1]).toMatchObject({
      stopReason: 'answered',
      answer: `context_0, context_1, history_0 | context_1 starts: ${VARIABLES.slice(0, 40)}`,
    });
    // Every event of turn 1 says so, children included.
    const turnStart = events.indexOf(rootStarts(events)[1]!);
    expect(events.slice(turnStart).every((e) => !('turn' in e) || e.turn === 1)).toBe(true);

    // A new context for the next turn.
    await c.call('session.followUp', {
      params: { sessionId: id, query: VARIABLES, context: { kind: 'text', text: 'A second document about otters.' } },
    });
    events = await finishedWithEvents(c, id, 3);
    expect(rootEnds(events)[2]?.answer).toBe(
      'context_0, context_1, context_2, history_0, history_1 | context_2 starts: A second document about otters.',
    );

    // One log, every turn, in order.
    const summary = c.latest(id)!;
    const log = await readLogFile(summary.logFile!);
    expect(log.events.length).toBe(summary.eventCount);
    expect(log.events.map((e) => e.seq)).toEqual(events.map((e) => e.seq));
    expect(rootStarts(log.events).map((e) => e.turn)).toEqual([0, 1, 2]);
  });

  it('refuses a follow-up while running, on a saved log and with a bad context; takes one after a cancelled turn', async () => {
    const host = newHost({ demoLatencyMs: 30 });
    const c = connectInProcess(host);
    const { session } = await c.call('session.start', demoStart('needle', { startPaused: true }));
    const id = session.sessionId;
    await c.paused(id);
    await expect(c.call('session.followUp', { params: { sessionId: id, query: VARIABLES } })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/paused; ask once it has finished/) as unknown,
    });
    await c.call('session.continue', { sessionId: id });
    const done = await c.status(id, 'finished', 'failed');
    expect(done.followUp?.ready).toBe(true);

    await expect(
      c.call('session.followUp', { params: { sessionId: id, query: VARIABLES, context: { kind: 'json', json: '{nope' } } }),
    ).rejects.toMatchObject({ code: 'bad_request', message: expect.stringMatching(/JSON context does not parse/) as unknown });
    await expect(
      c.call('session.followUp', {
        params: { sessionId: id, query: VARIABLES, context: { kind: 'file', path: join(done.logFile!, 'missing.txt') } },
      }),
    ).rejects.toMatchObject({ code: 'bad_request' });
    await expect(c.call('session.followUp', { params: { sessionId: id, query: '   ' } })).rejects.toMatchObject({ code: 'bad_request' });
    // Still ready after the refusals.
    expect((await c.call('sessions.list')).sessions.find((s) => s.sessionId === id)?.followUp?.ready).toBe(true);

    const saved = await c.call('session.open', { path: done.logFile! });
    expect(saved.session.followUp).toEqual({
      ready: false,
      reason: expect.stringMatching(/saved or imported log keeps no REPL/) as unknown,
    });
    await expect(c.call('session.followUp', { params: { sessionId: saved.session.sessionId, query: VARIABLES } })).rejects.toMatchObject({
      code: 'read_only',
    });

    // A follow-up that never finishes, cancelled: the session keeps its REPL (as the reference
    // keeps its own), and the next follow-up finds every context; the cancelled turn left no history.
    await c.call('subscribe', { sessionId: id, fromSeq: 0 });
    await c.call('session.followUp', { params: { sessionId: id, query: 'Please never finish this one.' } });
    await c.call('session.cancel', { sessionId: id });
    const cancelled = await c.status(id, 'cancelled', 'failed', 'finished');
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.followUp).toEqual({ ready: true, reason: null });
    await c.call('session.followUp', { params: { sessionId: id, query: VARIABLES } });
    const events = await finishedWithEvents(c, id, 3);
    expect(rootEnds(events).map((e) => e.stopReason)).toEqual(['answered', 'cancelled', 'answered']);
    expect(rootEnds(events)[2]?.answer).toBe(`context_0, context_1, context_2, history_0 | context_2 starts: ${VARIABLES.slice(0, 40)}`);
  });

  it('releases the REPL kept longest when more are kept than allowed', async () => {
    const host = newHost({ followUpKeep: 1 });
    const c = connectInProcess(host);
    const first = (await c.call('session.start', demoStart('needle'))).session.sessionId;
    await c.status(first, 'finished', 'failed');
    expect(c.latest(first)?.followUp?.ready).toBe(true);
    const second = (await c.call('session.start', demoStart('aggregate'))).session.sessionId;
    await c.status(second, 'finished', 'failed');
    const released = await c.until(() => {
      const s = c.latest(first);
      return s?.followUp?.ready === false ? s : null;
    }, 'the first REPL to be released');
    expect(released.followUp?.reason).toMatch(/released to make room for newer sessions \(the host keeps 1\)/);
    expect(c.latest(second)?.followUp?.ready).toBe(true);
    await poll(() => host.workerPid(first) === null, 'the first worker to exit');
    await expect(c.call('session.followUp', { params: { sessionId: first, query: VARIABLES } })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/released/) as unknown,
    });
  });

  it('releases a kept REPL after its idle time; the log stays complete', async () => {
    const host = newHost({ followUpIdleMs: 200 });
    const c = connectInProcess(host);
    const id = (await c.call('session.start', demoStart('needle'))).session.sessionId;
    await c.status(id, 'finished', 'failed');
    const idle = await c.until(() => {
      const s = c.latest(id);
      return s?.followUp?.ready === false ? s : null;
    }, 'the REPL to be released');
    expect(idle.followUp?.reason).toMatch(/released after <1 min idle/);
    await poll(() => host.workerPid(id) === null, 'the worker to exit');
    const log = await readLogFile(idle.logFile!);
    expect(log.events.length).toBe(idle.eventCount);
  });

  it('a fork of a follow-up turn is refused with the reason', async () => {
    const host = newHost();
    const c = connectInProcess(host);
    const id = (await c.call('session.start', demoStart('needle'))).session.sessionId;
    await c.status(id, 'finished', 'failed');
    await c.call('session.followUp', { params: { sessionId: id, query: VARIABLES } });
    await c.until(() => c.latest(id)?.status === 'finished' && c.latest(id)?.followUp?.ready, 'the follow-up to finish');
    const events = (await readLogFile(c.latest(id)!.logFile!)).events;
    const turn1 = rootStarts(events)[1]!;
    await expect(c.call('session.fork', { params: { sessionId: id, runId: turn1.runId, iteration: 1 } })).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/follow-up turn 1/) as unknown,
    });
  });
});
