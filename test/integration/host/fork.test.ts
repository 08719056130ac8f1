// Fork: replay recorded replies up to iteration k, then go live. The REPL state the fork
// reaches at k must be the original's at k (compared with listVariables).
import { describe, expect, it } from 'vitest';
import type { RunEndEvent, TrajectoryEvent } from '../../../src-shared/events.ts';
import type { SessionSummary, VariableView } from '../../../src-shared/protocol.ts';
import { readLogFile } from '../../../src-main/logs/read-log.ts';
import { demoStart, hostForTests } from './helpers.ts';

const { c } = hostForTests();

/** Continues until paused before `runId`'s model call at `iteration`; returns its variables. */
async function variablesAt(id: string, runId: string, iteration: number): Promise<VariableView[]> {
  for (;;) {
    const s = await c.status(id, 'paused', 'finished', 'failed', 'cancelled');
    if (s.status !== 'paused') throw new Error(`session ended (${s.status}: ${s.message}) before ${runId} #${iteration}`);
    const p = s.pause!;
    if (p.kind === 'before_model_call' && p.runId === runId && p.iteration === iteration) {
      return (await c.call('session.variables', { sessionId: id, runId })).variables;
    }
    const n = c.statuses.length;
    await c.call('session.continue', { sessionId: id });
    await c.until(() => c.statuses.slice(n).some((x) => x.sessionId === id && x.status !== 'paused') || null, 'resume');
  }
}

async function finish(id: string): Promise<{ end: SessionSummary; events: TrajectoryEvent[] }> {
  await c.call('session.setBreakpoints', { sessionId: id, breakpoints: [] });
  if (c.latest(id)?.status === 'paused') await c.call('session.continue', { sessionId: id });
  const end = await c.status(id, 'finished', 'failed', 'cancelled');
  return { end, events: await c.allEvents(id, end) };
}

const rootEnd = (events: TrajectoryEvent[]): RunEndEvent =>
  events.find((e): e is RunEndEvent => e.type === 'run.end' && e.parentRunId === null)!;

describe('fork', () => {
  it('from a live session: the fork reaches the same REPL state at k, then goes live', async () => {
    const k = 2;
    const bp = [{ kind: 'before_model_call' as const, runIds: ['run-0'] }];
    const { session: orig } = await c.call('session.start', demoStart('recursive', { breakpoints: bp }));
    await c.call('subscribe', { sessionId: orig.sessionId, fromSeq: 0 });
    const original = await variablesAt(orig.sessionId, 'run-0', k);
    expect(original.length).toBeGreaterThan(1);

    // Fork while the original is still paused at k.
    const { session: fork } = await c.call('session.fork', {
      params: { sessionId: orig.sessionId, runId: 'run-0', iteration: k, breakpoints: bp },
    });
    expect(fork.forkOf).toEqual({ sessionId: orig.sessionId, runId: 'run-0', iteration: k });
    await c.call('subscribe', { sessionId: fork.sessionId, fromSeq: 0 });
    const forked = await variablesAt(fork.sessionId, 'run-0', k);
    expect(forked).toEqual(original);

    const a = await finish(orig.sessionId);
    const b = await finish(fork.sessionId);
    expect(b.end.status).toBe('finished');
    expect(b.end.message).toMatch(/replayed \d+ recorded calls/);
    // Same deterministic model, so the live part agrees with the original too.
    expect(rootEnd(b.events).answer).toBe(rootEnd(a.events).answer);
    // Replies before k were served from the record: same text, zero latency.
    const replies = (ev: TrajectoryEvent[]) => ev.filter((e) => e.type === 'model.reply' && e.runId === 'run-0' && e.iteration < k);
    expect(replies(b.events).map((e) => (e.type === 'model.reply' ? e.text : ''))).toEqual(
      replies(a.events).map((e) => (e.type === 'model.reply' ? e.text : '')),
    );
    expect(replies(b.events).every((e) => e.type === 'model.reply' && e.latencyMs === 0)).toBe(true);
    const log = await readLogFile(b.end.logFile!);
    expect(log.header?.forkOf).toMatchObject({ sessionId: orig.sessionId, runId: 'run-0', iteration: k, logFile: a.end.logFile });
  });

  it('from a saved native log, at a child run: same REPL state at k as the original had', async () => {
    // The recursive demo: the root hands six sections to six child RLMs in one batch.
    const bp = [{ kind: 'before_model_call' as const, runIds: ['run-3'] }];
    const { session: orig } = await c.call('session.start', demoStart('recursive', { breakpoints: bp }));
    await c.call('subscribe', { sessionId: orig.sessionId, fromSeq: 0 });
    const original = await variablesAt(orig.sessionId, 'run-3', 2);
    expect(original.map((v) => v.name)).toContain('context');
    const a = await finish(orig.sessionId);

    const { session: saved } = await c.call('session.open', { path: a.end.logFile! });
    const { session: fork } = await c.call('session.fork', {
      params: { sessionId: saved.sessionId, runId: 'run-3', iteration: 2, breakpoints: bp },
    });
    await c.call('subscribe', { sessionId: fork.sessionId, fromSeq: 0 });
    expect(await variablesAt(fork.sessionId, 'run-3', 2)).toEqual(original);
    const b = await finish(fork.sessionId);
    expect(rootEnd(b.events).answer).toBe(rootEnd(a.events).answer);
    // The root's first two replies and the five sibling runs came from the record.
    const m = /replayed (\d+) recorded calls, (\d+) live/.exec(b.end.message ?? '');
    expect(Number(m?.[1])).toBeGreaterThan(10);
    expect(Number(m?.[2])).toBeGreaterThan(0);
  });

  it('with an edited reply at k, and refuses impossible fork points', async () => {
    const { session: orig } = await c.call('session.start', demoStart('needle'));
    await c.call('subscribe', { sessionId: orig.sessionId, fromSeq: 0 });
    const a = await finish(orig.sessionId);
    const editedReply = 'Answering directly.\n```repl\nanswer.content = "forked answer"; answer.ready = true\n```';
    const { session: fork } = await c.call('session.fork', {
      params: { sessionId: orig.sessionId, runId: 'run-0', iteration: 2, editedReply },
    });
    await c.call('subscribe', { sessionId: fork.sessionId, fromSeq: 0 });
    const b = await finish(fork.sessionId);
    expect(rootEnd(b.events).answer).toBe('forked answer');
    expect(b.events.find((e) => e.type === 'model.reply' && e.iteration === 2)).toMatchObject({ text: editedReply });
    expect(rootEnd(a.events).answer).not.toBe('forked answer');
    await expect(c.call('session.fork', { params: { sessionId: orig.sessionId, runId: 'run-0', iteration: 99 } })).rejects.toMatchObject({
      code: 'bad_request',
    });
    await expect(c.call('session.fork', { params: { sessionId: orig.sessionId, runId: 'run-77', iteration: 1 } })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
