// Counterfactual sub-calls against mock-llm (the demo profile): one recorded call re-run with
// an edited prompt gives a different answer, recorded in a sidecar beside the source log (the
// log itself untouched); a fork then substitutes it, and the fork's later iterations see it.
import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEndEvent, SubcallEndEvent, SubcallStartEvent, TrajectoryEvent } from '../../../src-shared/events.ts';
import type { CounterfactualRecord } from '../../../src-shared/analysis/counterfactual.ts';
import { sidecarBeside } from '../../../src-main/host/counterfactual.ts';
import { readLogFile } from '../../../src-main/logs/read-log.ts';
import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';
import { demoStart, hostForTests } from './helpers.ts';

const { c } = hostForTests();

const rootEnd = (events: TrajectoryEvent[]): RunEndEvent =>
  events.find((e): e is RunEndEvent => e.type === 'run.end' && e.parentRunId === null)!;
const starts = (events: TrajectoryEvent[]): SubcallStartEvent[] => events.filter((e): e is SubcallStartEvent => e.type === 'subcall.start');
const endOf = (events: TrajectoryEvent[], callId: string): SubcallEndEvent =>
  events.find((e): e is SubcallEndEvent => e.type === 'subcall.end' && e.callId === callId)!;

describe('counterfactual sub-calls', () => {
  it('a leaf llm_query: re-run with an edited prompt, then a fork whose later iterations see the new result', async () => {
    const { session } = await c.call('session.start', demoStart('needle'));
    const a = await c.ended(session.sessionId);
    const logBefore = readFileSync(a.end.logFile!);
    const call = starts(a.events).find((e) => e.kind === 'llm')!;
    const recorded = endOf(a.events, call.callId).response;
    expect(recorded).toMatch(/^\d+$/);

    const prompt = call.prompt.replace(/TEXT:\n[\s\S]*$/, 'TEXT:\nthe magic number is 777');
    const { counterfactual: cf } = await c.call('session.counterfactual', {
      params: { sessionId: session.sessionId, callId: call.callId, prompt },
    });
    expect(cf).toMatchObject({ status: 'done', call: { callId: call.callId, response: recorded, child: false }, edited: { prompt } });
    expect(cf.result?.response).toBe('777');
    expect(cf.result?.response).not.toBe(recorded);
    // Recorded beside the source log, which stays byte for byte as it was.
    const sidecar = sidecarBeside(a.end.logFile!);
    expect(readFileSync(sidecar, 'utf8')).toContain(cf.id);
    expect(readFileSync(a.end.logFile!).equals(logBefore)).toBe(true);
    expect((await c.call('session.counterfactuals', { sessionId: session.sessionId })).counterfactuals.map((r) => r.id)).toEqual([cf.id]);

    const { session: fork } = await c.call('session.fork', {
      params: { sessionId: session.sessionId, runId: call.runId, iteration: call.iteration, counterfactual: cf.id, breakpoints: [] },
    });
    const b = await c.ended(fork.sessionId);
    expect(b.end.status).toBe('finished');
    // The substituted call, with both results.
    const substituted = b.events.find((e): e is SubcallEndEvent => e.type === 'subcall.end' && e.counterfactual !== undefined)!;
    expect(substituted.response).toBe('777');
    expect(substituted.counterfactual).toMatchObject({
      id: cf.id,
      recorded: { callId: call.callId, response: recorded },
      rerun: { prompt },
    });
    // The iteration that made the call was replayed: same reply, its block ran with the new result.
    const reply = (ev: TrajectoryEvent[], it: number) =>
      ev.find((e) => e.type === 'model.reply' && e.runId === 'run-0' && e.iteration === it);
    expect(reply(b.events, call.iteration)).toMatchObject({
      text: (reply(a.events, call.iteration) as { text: string }).text,
      latencyMs: 0,
    });
    // The next iteration (live) was shown the substituted result, and the answer follows it.
    const shown = b.events.find((e) => e.type === 'iteration.end' && e.runId === 'run-0' && e.iteration === call.iteration);
    expect(JSON.stringify(shown)).toContain('[needle:candidate] 777');
    expect(reply(b.events, call.iteration + 1)).toMatchObject({ text: expect.stringContaining('777') });
    expect(rootEnd(b.events).answer).toContain('777');
    expect(rootEnd(a.events).answer).toContain(recorded);
    // The fork's log on disk says so too.
    const log = await readLogFile(b.end.logFile!);
    expect(log.header?.forkOf).toMatchObject({ iteration: call.iteration, counterfactual: { callId: call.callId, id: cf.id } });
    expect(log.events.some((e) => e.type === 'subcall.end' && e.counterfactual?.id === cf.id)).toBe(true);
    expect(readFileSync(a.end.logFile!).equals(logBefore)).toBe(true);
  });

  it('a child re-run whose host stopped before it ended is listed as failed, and its sidecar is left as it is', async () => {
    const { session } = await c.call('session.start', demoStart('needle'));
    const a = await c.ended(session.sessionId);
    const call = starts(a.events).find((e) => e.kind === 'llm')!;
    const { counterfactual: done } = await c.call('session.counterfactual', {
      params: { sessionId: session.sessionId, callId: call.callId, prompt: call.prompt },
    });
    // What a host that stopped mid-way leaves: a child re-run's record, still running, of a session no one has.
    const sidecar = sidecarBeside(a.end.logFile!);
    const orphan: CounterfactualRecord = {
      ...done,
      id: `${done.id}-orphan`,
      call: { ...done.call, child: true },
      status: 'running',
      result: null,
      session: { sessionId: 'a-session-of-a-stopped-host', logFile: null },
      message: null,
    };
    appendFileSync(sidecar, JSON.stringify(orphan) + '\n');
    const before = readFileSync(sidecar);
    const list = (await c.call('session.counterfactuals', { sessionId: session.sessionId })).counterfactuals;
    expect(list.find((r) => r.id === done.id)).toMatchObject({ status: 'done' });
    expect(list.find((r) => r.id === orphan.id)).toMatchObject({ status: 'failed', message: expect.stringMatching(/^interrupted/) });
    expect(readFileSync(sidecar).equals(before)).toBe(true);
  });

  it('a child run: re-run as its own RLM session, then substituted in a fork without spawning the child', async () => {
    const { session } = await c.call('session.start', demoStart('recursive'));
    const a = await c.ended(session.sessionId);
    const call = starts(a.events).find((e) => e.childRunId !== null)!;
    const recorded = endOf(a.events, call.callId).response;
    const prompt = call.prompt.replace(/SECTION:\n[\s\S]*$/, 'SECTION:\n== Counterfactual ==\nONE line only.');
    expect(prompt).not.toBe(call.prompt);
    const { counterfactual: started } = await c.call('session.counterfactual', {
      params: { sessionId: session.sessionId, callId: call.callId, prompt },
    });
    expect(started).toMatchObject({ status: 'running', call: { child: true } });
    const child = await c.ended(started.session!.sessionId);
    expect(child.end.status).toBe('finished');
    expect(child.events.find((e) => e.type === 'run.start')).toMatchObject({ parentRunId: null, query: null });
    // The record is completed when the host sees the child's session end (it may come just after our status push).
    let cf = null as CounterfactualRecord | null;
    for (let i = 0; i < 100 && cf?.status !== 'done'; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 50));
      const list = (await c.call('session.counterfactuals', { sessionId: session.sessionId })).counterfactuals;
      cf = list.find((x) => x.id === started.id) ?? null;
    }
    if (cf?.status !== 'done') throw new Error(`the child re-run was not recorded as done: ${JSON.stringify(cf)}`);
    expect(cf.result?.response).toBe(rootEnd(child.events).answer);
    expect(cf.result?.response).not.toBe(recorded);

    const { session: fork } = await c.call('session.fork', {
      params: { sessionId: session.sessionId, runId: call.runId, iteration: call.iteration, counterfactual: cf.id, breakpoints: [] },
    });
    const b = await c.ended(fork.sessionId);
    expect(b.end.status).toBe('finished');
    const substituted = b.events.find((e): e is SubcallEndEvent => e.type === 'subcall.end' && e.counterfactual !== undefined)!;
    expect(substituted.response).toBe(cf.result?.response);
    expect(substituted.counterfactual?.rerun.sessionLogFile).toBe(child.end.logFile);
    const subStart = starts(b.events).find((e) => e.callId === substituted.callId)!;
    expect(subStart).toMatchObject({ kind: 'rlm', childRunId: null, prompt: call.prompt });
    // One child run fewer than the original: the substituted one was never spawned.
    const runs = (ev: TrajectoryEvent[]) => ev.filter((e) => e.type === 'run.start').length;
    expect(runs(b.events)).toBe(runs(a.events) - 1);
    expect(rootEnd(b.events).answer).not.toBe(rootEnd(a.events).answer);
    expect(rootEnd(b.events).answer).toContain('Counterfactual');
  });

  it('an imported reference log: needs a profile, records the sidecar beside the log, refuses mismatched forks, and forks with the result substituted in its Python block', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rlm-cf-'));
    const logFile = join(dir, 'b_aggregate.jsonl');
    copyFileSync(join(REFERENCE_FIXTURES, 'b_aggregate.jsonl'), logFile);
    const { session: saved } = await c.call('session.open', { path: logFile });
    const events = (await c.ended(saved.sessionId)).events;
    const call = starts(events)[0]!;
    await expect(
      c.call('session.counterfactual', { params: { sessionId: saved.sessionId, callId: call.callId, prompt: call.prompt } }),
    ).rejects.toMatchObject({ code: 'bad_request', message: expect.stringMatching(/endpoint profile/) });
    const { counterfactual: cf } = await c.call('session.counterfactual', {
      params: { sessionId: saved.sessionId, callId: call.callId, prompt: 'TASK: find-number\nTEXT:\nmagic number 5', profile: 'demo' },
    });
    expect(cf).toMatchObject({ status: 'done', source: { format: 'rlm-python', logFile }, edited: { profile: 'demo' } });
    expect(existsSync(sidecarBeside(logFile))).toBe(true);
    expect(readFileSync(logFile).equals(readFileSync(join(REFERENCE_FIXTURES, 'b_aggregate.jsonl')))).toBe(true);
    await expect(
      c.call('session.fork', {
        params: { sessionId: saved.sessionId, runId: call.runId, iteration: call.iteration + 1, counterfactual: cf.id, profile: 'demo' },
      }),
    ).rejects.toMatchObject({ code: 'bad_request' });
    await expect(
      c.call('session.counterfactual', { params: { sessionId: saved.sessionId, callId: 'nope', prompt: 'x', profile: 'demo' } }),
    ).rejects.toMatchObject({ code: 'not_found' });

    // The fork re-runs the Python blocks up to the call's iteration, the batch's first result replaced.
    const { session: fork } = await c.call('session.fork', {
      params: {
        sessionId: saved.sessionId,
        runId: call.runId,
        iteration: call.iteration,
        counterfactual: cf.id,
        profile: 'demo',
        context: { kind: 'file', path: join(REFERENCE_FIXTURES, 'contexts', 'b_aggregate.json') },
        breakpoints: [],
      },
    });
    const b = await c.ended(fork.sessionId);
    const substituted = b.events.find((e): e is SubcallEndEvent => e.type === 'subcall.end' && e.counterfactual !== undefined)!;
    expect(substituted).toMatchObject({ response: '5', counterfactual: { id: cf.id, recorded: { callId: call.callId } } });
    const printed = (ev: TrajectoryEvent[]) =>
      ev.find((e) => e.type === 'block.end' && e.parentRunId === null && e.iteration === call.iteration && e.block === call.block);
    expect(printed(b.events)).toMatchObject({ stdout: expect.stringContaining("0 '5'") });
    expect(printed(events)).not.toMatchObject({ stdout: expect.stringContaining("0 '5'") });
  });
});
