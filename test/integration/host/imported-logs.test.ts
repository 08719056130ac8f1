// Reference-library logs on the host: re-executed (session.rerun) with each block's comparison
// in the events, and forked from any iteration to continue live against mock-llm (the demo
// profile) with everything before the fork point replayed and its blocks run again in Python.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BlockEndEvent, ModelReplyEvent, TrajectoryEvent } from '../../../src-shared/events.ts';
import { readLogFile } from '../../../src-main/logs/read-log.ts';
import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';
import { hostForTests } from './helpers.ts';

const CONTEXTS = join(REFERENCE_FIXTURES, 'contexts');
const fileContext = (name: string) => ({ kind: 'file' as const, path: join(CONTEXTS, name) });

const { c } = hostForTests();

const blockEnds = (events: TrajectoryEvent[]): BlockEndEvent[] => events.filter((e): e is BlockEndEvent => e.type === 'block.end');

describe('session.rerun', () => {
  it('re-executes an opened reference log: every block.end says whether it matched, the header names the source', async () => {
    const { session: saved } = await c.call('session.open', { path: join(REFERENCE_FIXTURES, 'c_recursive.jsonl') });
    const { session } = await c.call('session.rerun', { params: { sessionId: saved.sessionId, context: fileContext('c_recursive.txt') } });
    expect(session.readOnly).toBe(false);
    const { end, events } = await c.ended(session.sessionId);
    expect(end.status).toBe('finished');
    expect(end.message).toBe('re-executed 13 block(s): 13 same, 0 different');
    const ends = blockEnds(events);
    expect(ends).toHaveLength(13);
    expect(ends.every((e) => e.rerun?.same === true)).toBe(true);
    expect(new Set(ends.map((e) => e.runId)).size).toBe(4);
    const { header } = await c.call('subscribe', { sessionId: session.sessionId, fromSeq: end.eventCount });
    expect(header?.rerunOf).toEqual({ logFile: join(REFERENCE_FIXTURES, 'c_recursive.jsonl'), format: 'rlm-python' });
    expect(header?.repl).toBe('python');
    // The host wrote the same events to the re-execution's native log.
    const log = await readLogFile(end.logFile!);
    expect(blockEnds(log.events).map((e) => e.rerun?.same)).toEqual(ends.map(() => true));
  });

  it('re-executes a multi-turn session (a persistent RLM of two turns) with one context for both', async () => {
    const [meta, ...iterations] = readFileSync(join(REFERENCE_FIXTURES, 'a_needle.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
    const text = `${[meta, ...iterations, ...iterations].join('\n')}\n`;
    const { session: dropped } = await c.call('session.openText', { name: 'two-turns.jsonl', text });
    const { session } = await c.call('session.rerun', { params: { sessionId: dropped.sessionId, context: fileContext('a_needle.txt') } });
    const { end, events } = await c.ended(session.sessionId);
    expect(end.message).toBe('re-executed 8 block(s): 8 same, 0 different');
    expect(new Set(blockEnds(events).map((e) => e.runId)).size).toBe(2);
  });

  it('re-executes a log opened from text (no file on the host), and reports a changed recording as different', async () => {
    const text = readFileSync(join(REFERENCE_FIXTURES, 'd_max_iterations.jsonl'), 'utf8').replaceAll(
      'called Marmalade ruled',
      'called Pickles ruled',
    );
    const { session: dropped } = await c.call('session.openText', { name: 'd_changed.jsonl', text });
    const { session } = await c.call('session.rerun', {
      params: { sessionId: dropped.sessionId, context: fileContext('d_max_iterations.txt') },
    });
    const { end, events } = await c.ended(session.sessionId);
    expect(end.message).toBe('re-executed 2 block(s): 0 same, 2 different');
    const first = blockEnds(events)[0]!;
    expect(first.rerun).toMatchObject({ terms: 'rlm-python', same: false });
    expect(first.rerun?.recorded.stdout).toContain('Pickles');
    expect(first.rerun?.new.stdout).toContain('Marmalade');
  });

  it('refuses without the context a reference log does not hold, and a wrong context fails the session with the reason', async () => {
    const { session: saved } = await c.call('session.open', { path: join(REFERENCE_FIXTURES, 'a_needle.jsonl') });
    await expect(c.call('session.rerun', { params: { sessionId: saved.sessionId } })).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/no recorded context/),
    });
    await expect(
      c.call('session.rerun', { params: { sessionId: saved.sessionId, context: fileContext('a_needle.txt'), repl: 'javascript' } }),
    ).rejects.toMatchObject({
      code: 'bad_request',
    });
    const { session } = await c.call('session.rerun', { params: { sessionId: saved.sessionId, context: fileContext('c_recursive.txt') } });
    const { end } = await c.ended(session.sessionId);
    expect(end.status).toBe('failed');
    expect(end.message).toMatch(
      /c_recursive\.txt is not the context .* was made from: the log's context is a str of 200,120 characters, this file gives 3,796/,
    );
  });
});

describe('fork of an imported reference log', () => {
  it('replays iterations 1-3 (children included), rebuilds the Python REPL state, then continues live against mock-llm', async () => {
    const { session: saved } = await c.call('session.open', { path: join(REFERENCE_FIXTURES, 'c_recursive.jsonl') });
    await expect(
      c.call('session.fork', { params: { sessionId: saved.sessionId, runId: 'r0', iteration: 4, profile: 'demo' } }),
    ).rejects.toMatchObject({ code: 'bad_request' });
    await expect(
      c.call('session.fork', {
        params: { sessionId: saved.sessionId, runId: 'r0', iteration: 4, context: fileContext('c_recursive.txt') },
      }),
    ).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/needs a profile/),
    });

    const bp = [{ kind: 'before_model_call' as const, runIds: ['run-0'], iterations: [4] }];
    const { session: fork } = await c.call('session.fork', {
      params: {
        sessionId: saved.sessionId,
        runId: 'r0',
        iteration: 4,
        profile: 'demo',
        context: fileContext('c_recursive.txt'),
        breakpoints: bp,
      },
    });
    expect(fork.forkOf).toEqual({ sessionId: saved.sessionId, runId: 'r0', iteration: 4 });
    await c.call('subscribe', { sessionId: fork.sessionId, fromSeq: 0 });
    const pause = await c.paused(fork.sessionId, (p) => p.runId === 'run-0' && p.iteration === 4);
    expect(pause.kind).toBe('before_model_call');
    const vars = (await c.call('session.variables', { sessionId: fork.sessionId, runId: 'run-0' })).variables;
    const byName = new Map(vars.map((v) => [v.name, v]));
    for (const name of ['sections', 'task', 'first', 'rest', 'counts']) expect(byName.has(name), name).toBe(true);
    expect(byName.get('counts')?.preview).toContain("'11', '16', '5'");

    await c.call('session.setBreakpoints', { sessionId: fork.sessionId, breakpoints: [] });
    await c.call('session.continue', { sessionId: fork.sessionId });
    const end = await c.status(fork.sessionId, 'finished', 'failed', 'cancelled');
    expect(end.status, end.message ?? '').toBe('finished');
    const m = /replayed (\d+) recorded calls, (\d+) live/.exec(end.message ?? '');
    expect(Number(m?.[2])).toBeGreaterThan(0);
    const events = await c.allEvents(fork.sessionId, end);
    // Replayed: the recorded replies, served at once, in the root and in the three children.
    const original = (await readLogFile(join(REFERENCE_FIXTURES, 'c_recursive.jsonl'))).events;
    const turnTexts = (ev: TrajectoryEvent[], root: string) =>
      ev.filter((e): e is ModelReplyEvent => e.type === 'model.reply' && e.runId === root && e.iteration < 4).map((e) => e.text);
    expect(turnTexts(events, 'run-0')).toEqual(turnTexts(original, 'r0'));
    const children = new Set(events.filter((e) => e.type === 'run.start' && e.parentRunId !== null).map((e) => e.runId));
    expect(children.size).toBe(3);
    // Replayed blocks ran again in Python and printed what the reference printed.
    const replayed = blockEnds(events).filter((e) => e.runId === 'run-0' && e.iteration < 4);
    expect(replayed.map((e) => e.stdout)).toEqual(
      blockEnds(original)
        .filter((e) => e.runId === 'r0' && e.iteration < 4)
        .map((e) => e.stdout),
    );
    // The live part asked mock-llm (latency recorded) and the run ended.
    expect(events.some((e) => e.type === 'model.reply' && e.runId === 'run-0' && e.iteration === 4)).toBe(true);
    expect(events.some((e) => e.type === 'run.end' && e.parentRunId === null)).toBe(true);
  });

  it('a call the reference lost (a failed batch item, not logged) fails again in the replay instead of going live', async () => {
    const { session: saved } = await c.call('session.open', { path: join(REFERENCE_FIXTURES, 'b_aggregate.jsonl') });
    const bp = [{ kind: 'before_model_call' as const, runIds: ['run-0'], iterations: [4] }];
    const { session: fork } = await c.call('session.fork', {
      params: {
        sessionId: saved.sessionId,
        runId: 'r0',
        iteration: 4,
        profile: 'demo',
        context: fileContext('b_aggregate.json'),
        breakpoints: bp,
      },
    });
    await c.call('subscribe', { sessionId: fork.sessionId, fromSeq: 0 });
    await c.paused(fork.sessionId, (p) => p.runId === 'run-0' && p.iteration === 4);
    const vars = new Map(
      (await c.call('session.variables', { sessionId: fork.sessionId, runId: 'run-0' })).variables.map((v) => [v.name, v.preview]),
    );
    expect(vars.get('failed')).toBe('[5]');
    expect(vars.get('results')).toContain("'2340', '1833', '2099'");
    await c.call('session.cancel', { sessionId: fork.sessionId });
    await c.status(fork.sessionId, 'cancelled', 'finished', 'failed');
  });

  it('forks a re-execution without being given the context again', async () => {
    const { session: saved } = await c.call('session.open', { path: join(REFERENCE_FIXTURES, 'a_needle.jsonl') });
    const { session: rerun } = await c.call('session.rerun', {
      params: { sessionId: saved.sessionId, context: fileContext('a_needle.txt') },
    });
    const { end } = await c.ended(rerun.sessionId);
    expect(end.message).toBe('re-executed 4 block(s): 4 same, 0 different');
    const { session: fork } = await c.call('session.fork', {
      params: { sessionId: rerun.sessionId, runId: 'r0', iteration: 2, profile: 'demo' },
    });
    const done = await c.ended(fork.sessionId);
    expect(done.end.status, done.end.message ?? '').toBe('finished');
    const first = blockEnds(done.events).find((e) => e.runId === 'run-0' && e.iteration === 1);
    expect(first?.stdout).toMatch(/^str 200120\nlines: 2632\n/);
  });

  it('carries custom tools into a fork: replayed blocks call them again and the REPL state is rebuilt', async () => {
    const tools = join(import.meta.dirname, '../rerun/fixtures/e-code-errors-tools.mjs');
    const { session: saved } = await c.call('session.open', { path: join(REFERENCE_FIXTURES, 'e_code_errors.jsonl') });
    const bp = [{ kind: 'before_model_call' as const, runIds: ['run-0'], iterations: [4] }];
    const { session: fork } = await c.call('session.fork', {
      params: {
        sessionId: saved.sessionId,
        runId: 'r0',
        iteration: 4,
        profile: 'demo',
        context: fileContext('e_code_errors.json'),
        tools,
        breakpoints: bp,
      },
    });
    await c.call('subscribe', { sessionId: fork.sessionId, fromSeq: 0 });
    await c.paused(fork.sessionId, (p) => p.runId === 'run-0' && p.iteration === 4);
    const vars = new Map(
      (await c.call('session.variables', { sessionId: fork.sessionId, runId: 'run-0' })).variables.map((v) => [v.name, v.preview]),
    );
    // Block 3 called convert_currency(6272.25, 'USD') in the replay, as the reference did.
    expect(vars.get('total_usd')).toBe('6774.03');
    expect(vars.get('EXCHANGE_NOTE')).toBe("'EUR->USD at 1.08 (fixed for this task)'");
    const events = c.events.get(fork.sessionId) ?? [];
    expect(
      blockEnds(events)
        .filter((e) => e.iteration === 3)
        .map((e) => e.error),
    ).toEqual([null]);
    await c.call('session.cancel', { sessionId: fork.sessionId });
    await c.status(fork.sessionId, 'cancelled', 'finished', 'failed');
  });

  it('names a tools module that cannot be loaded', async () => {
    const { session } = await c.call('session.start', {
      params: {
        profile: 'demo',
        context: { kind: 'demo', name: 'needle' },
        query: null,
        repl: 'python',
        tools: join(CONTEXTS, 'missing-tools.mjs'),
      },
    });
    const end = await c.status(session.sessionId, 'finished', 'failed', 'cancelled');
    expect(end.status).toBe('failed');
    expect(end.message).toMatch(/missing-tools\.mjs/);
  });
});
