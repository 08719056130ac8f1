// The debugger over the protocol: every breakpoint kind, filters, pause/step/continue,
// edits before a block runs, variables while paused.
import { describe, expect, it } from 'vitest';
import type { BlockStartEvent } from '../../../src-shared/events.ts';
import type { Breakpoint, SessionSummary } from '../../../src-shared/protocol.ts';
import { demoStart, hostForTests } from './helpers.ts';

const { c } = hostForTests();

async function start(
  name: 'recursive' | 'needle' | 'aggregate',
  breakpoints: Breakpoint[],
  extra: Record<string, unknown> = {},
): Promise<SessionSummary> {
  const { session } = await c.call('session.start', demoStart(name, { breakpoints, ...extra }));
  await c.call('subscribe', { sessionId: session.sessionId, fromSeq: 0 });
  return session;
}

/** Continues through every remaining stop until the session ends. */
async function runOut(id: string): Promise<SessionSummary> {
  await c.call('session.setBreakpoints', { sessionId: id, breakpoints: [] });
  for (;;) {
    const s = await c.status(id, 'paused', 'finished', 'failed', 'cancelled');
    if (s.status !== 'paused') return s;
    await c.call('session.continue', { sessionId: id });
    await c.until(() => c.latest(id)?.status !== 'paused' || null, 'resume');
  }
}

/** Waits for the next pause after the current one is released. */
async function nextPause(id: string, release: 'continue' | 'step'): Promise<NonNullable<SessionSummary['pause']>> {
  const before = c.statuses.length;
  await c.call(`session.${release}`, { sessionId: id });
  return c.until(() => {
    for (let i = before; i < c.statuses.length; i++) {
      const s = c.statuses[i]!;
      if (s.sessionId === id && s.status === 'paused' && s.pause) return s.pause;
    }
    return null;
  }, 'the next pause');
}

describe('step-through', () => {
  it('stops before each model call and lists variables without changing them', async () => {
    const s = await start('needle', [{ kind: 'before_model_call', depths: [0] }]);
    const p1 = await c.paused(s.sessionId);
    expect(p1).toMatchObject({ kind: 'before_model_call', depth: 0, iteration: 1, block: null, reply: null });
    const v1 = (await c.call('session.variables', { sessionId: s.sessionId, runId: p1.runId })).variables;
    expect(v1.map((v) => v.name)).toContain('context');
    expect(v1.find((v) => v.name === 'context')).toMatchObject({ type: 'string' });
    expect(v1.find((v) => v.name === 'context')!.size).toBeGreaterThan(1_900_000);
    const again = (await c.call('session.variables', { sessionId: s.sessionId, runId: p1.runId })).variables;
    expect(again).toEqual(v1);
    const p2 = await nextPause(s.sessionId, 'continue');
    expect(p2).toMatchObject({ kind: 'before_model_call', iteration: 2 });
    const v2 = (await c.call('session.variables', { sessionId: s.sessionId, runId: p2.runId })).variables;
    expect(v2.length).toBeGreaterThan(v1.length);
    expect((await runOut(s.sessionId)).status).toBe('finished');
  });

  it('refuses variables and edits while running', async () => {
    const s = await start('aggregate', []);
    await expect(c.call('session.variables', { sessionId: s.sessionId, runId: 'run-0' })).rejects.toMatchObject({ code: 'conflict' });
    await expect(c.call('session.edit', { sessionId: s.sessionId, edit: { text: 'x' } })).rejects.toMatchObject({ code: 'conflict' });
    await c.status(s.sessionId, 'finished');
  });

  it('edits a block after the reply, before it runs; the log keeps both texts', async () => {
    const s = await start('needle', [{ kind: 'after_reply', depths: [0] }]);
    const p = await c.paused(s.sessionId, (x) => x.kind === 'after_reply');
    expect(p.reply?.blocks.length).toBeGreaterThan(0);
    const original = p.reply!.blocks[0]!;
    const edited = `const edited_by_hand = 42;\n${original}`;
    const { session } = await c.call('session.edit', { sessionId: s.sessionId, edit: { blocks: { '0': edited } } });
    expect(session.pause?.reply?.blocks[0]).toBe(edited);
    await expect(c.call('session.edit', { sessionId: s.sessionId, edit: { blocks: { '9': 'x' } } })).rejects.toMatchObject({
      code: 'conflict',
    });
    // Next stop: after the next reply; by then the edited block has run.
    const p2 = await nextPause(s.sessionId, 'continue');
    const vars = (await c.call('session.variables', { sessionId: s.sessionId, runId: p2.runId })).variables;
    expect(vars.find((v) => v.name === 'edited_by_hand')).toMatchObject({ type: 'number', preview: '42' });
    const end = await runOut(s.sessionId);
    const events = await c.until(() => ((c.events.get(s.sessionId)?.length ?? 0) === end.eventCount ? c.events.get(s.sessionId) : null));
    const starts = events.filter((e): e is BlockStartEvent => e.type === 'block.start');
    expect(starts[0]).toMatchObject({ iteration: 1, block: 0, code: edited, edited: { original, byHand: true } });
    expect(starts.slice(1).every((e) => e.edited === undefined)).toBe(true);
  });

  it('replaces the whole reply, and stops on the error it causes (on_error before after_block)', async () => {
    const s = await start('needle', [{ kind: 'after_reply' }, { kind: 'on_error' }, { kind: 'after_block' }], {
      limits: { maxIterations: 2 },
    });
    await c.paused(s.sessionId, (x) => x.kind === 'after_reply');
    const text = 'Let me try.\n```repl\nthrow new Error("boom")\n```\n```repl\nconst after_boom = 1\n```';
    const { session } = await c.call('session.edit', { sessionId: s.sessionId, edit: { text } });
    expect(session.pause?.reply).toEqual({ text, blocks: ['throw new Error("boom")', 'const after_boom = 1'] });
    const err = await nextPause(s.sessionId, 'continue');
    expect(err).toMatchObject({ kind: 'on_error', iteration: 1, block: 0 });
    const ok = await nextPause(s.sessionId, 'continue');
    expect(ok).toMatchObject({ kind: 'after_block', iteration: 1, block: 1 });
    await runOut(s.sessionId);
  });

  it('stops at sub-call starts, filtered by depth and by run, and steps to the next stop', async () => {
    const s = await start('recursive', [{ kind: 'on_subcall_start', depths: [0] }], { limits: { maxConcurrency: 1 } });
    const p = await c.paused(s.sessionId, (x) => x.kind === 'on_subcall_start');
    expect(p.depth).toBe(0);
    // Step: the very next gate any run reaches (here: the child's first model call).
    const stepped = await nextPause(s.sessionId, 'step');
    expect(stepped.kind).toBe('before_model_call');
    expect(stepped.depth).toBe(1);
    const child = stepped.runId;
    await c.call('session.setBreakpoints', { sessionId: s.sessionId, breakpoints: [{ kind: 'after_block', runIds: [child] }] });
    const inChild = await nextPause(s.sessionId, 'continue');
    expect(inChild).toMatchObject({ kind: 'after_block', runId: child, depth: 1 });
    expect((await runOut(s.sessionId)).status).toBe('finished');
  });

  it('pauses a running session at its next step, and starts paused on request', async () => {
    const a = await start('recursive', []);
    await c.call('session.pause', { sessionId: a.sessionId });
    const p = await c.paused(a.sessionId);
    expect(p.kind).toBe('manual');
    expect((await runOut(a.sessionId)).status).toBe('finished');

    const b = await start('needle', [], { startPaused: true });
    expect(await c.paused(b.sessionId)).toMatchObject({ kind: 'manual', iteration: 1, depth: 0 });
    expect(c.events.get(b.sessionId)?.some((e) => e.type === 'model.reply') ?? false).toBe(false);
    expect((await runOut(b.sessionId)).status).toBe('finished');
  });

  it('cancels a paused session', async () => {
    const s = await start('needle', [], { startPaused: true });
    await c.paused(s.sessionId);
    await c.call('session.cancel', { sessionId: s.sessionId });
    const end = await c.status(s.sessionId, 'cancelled', 'finished', 'failed');
    expect(end.status).toBe('cancelled');
    await expect(c.call('session.continue', { sessionId: s.sessionId })).rejects.toMatchObject({ code: 'conflict' });
  });
});
