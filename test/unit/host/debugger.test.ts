import { describe, expect, it } from 'vitest';
import { asRunId } from '../../../src-shared/events.ts';
import type { PauseInfo } from '../../../src-shared/protocol.ts';
import { Debugger } from '../../../src-main/host/debugger.ts';
import type { GateRun } from '../../../src-main/engine/gates.ts';
import type { Repl } from '../../../src-main/sandbox/types.ts';

const repl = { listVariables: async () => [] } as unknown as Repl;
const run = (id: string, depth: number): GateRun => ({ runId: asRunId(id), depth, repl });
const tick = () => new Promise((r) => setTimeout(r, 0));

function make(...args: ConstructorParameters<typeof Debugger> extends [infer B, infer S, unknown] ? [B, S] : never) {
  const pauses: (PauseInfo | null)[] = [];
  const d = new Debugger(args[0], args[1], { onPause: (p) => pauses.push(p ? structuredClone(p) : null) });
  return { d, g: d.gates(), pauses };
}

describe('Debugger', () => {
  it('stops only where a breakpoint matches kind, depth and run', async () => {
    const { d, g, pauses } = make([{ kind: 'after_block', depths: [1], runIds: ['run-2'] }], false);
    await g.afterBlock!(run('run-0', 0), 1, 0, false);
    await g.afterBlock!(run('run-1', 1), 1, 0, false);
    await g.beforeModelCall!(run('run-2', 1), 1, []);
    expect(pauses).toEqual([]);
    const held = g.afterBlock!(run('run-2', 1), 3, 2, false);
    await tick();
    expect(d.paused).toMatchObject({ kind: 'after_block', runId: 'run-2', depth: 1, iteration: 3, block: 2 });
    d.continue();
    await held;
    expect(pauses.at(-1)).toBeNull();
  });

  it('prefers on_error over after_block for a failed block', async () => {
    const { d, g } = make([{ kind: 'after_block' }, { kind: 'on_error' }], false);
    const held = g.afterBlock!(run('run-0', 0), 1, 0, true);
    await tick();
    expect(d.paused?.kind).toBe('on_error');
    d.continue();
    await held;
  });

  it('pause stops at the next gate; step releases one stop and stops at the next gate', async () => {
    const { d, g } = make([], true);
    const a = g.beforeModelCall!(run('run-0', 0), 1, []);
    await tick();
    expect(d.paused).toMatchObject({ kind: 'manual', iteration: 1 });
    d.step();
    await a;
    const b = g.afterReply!(run('run-0', 0), 1, 'text', ['x = 1']);
    await tick();
    expect(d.paused).toMatchObject({ kind: 'after_reply', reply: { text: 'text', blocks: ['x = 1'] } });
    d.continue();
    expect(await b).toBeUndefined();
    await g.afterBlock!(run('run-0', 0), 1, 0, false);
  });

  it('queues concurrent stops: step and continue release the front one only; continue(all) releases every stop', async () => {
    const { d, g, pauses } = make([{ kind: 'on_subcall_start' }], false);
    const order: string[] = [];
    const held = ['run-1', 'run-2', 'run-3', 'run-4'].map((id) =>
      g.onSubcallStart!(run(id, 1), 1, 0, 'llm', 'p').then(() => order.push(id)),
    );
    await tick();
    expect(d.paused?.runId).toBe('run-1');
    d.step();
    await tick();
    expect(order).toEqual(['run-1']);
    expect(d.paused?.runId).toBe('run-2');
    // Continue releases the shown stop; the next held run shows in turn (it hit a breakpoint too).
    d.continue();
    await tick();
    expect(order).toEqual(['run-1', 'run-2']);
    expect(d.paused?.runId).toBe('run-3');
    expect(pauses.at(-1)?.runId).toBe('run-3');
    d.continue(true);
    await Promise.all(held);
    expect(order).toEqual(['run-1', 'run-2', 'run-3', 'run-4']);
    expect(d.paused).toBeNull();
    expect(pauses.at(-1)).toBeNull();
  });

  it('a continued run stops again at its next breakpoint while another held run is shown', async () => {
    const { d, g } = make([{ kind: 'before_model_call', depths: [1] }], false);
    const a = g.beforeModelCall!(run('run-a', 1), 1, []);
    const b = g.beforeModelCall!(run('run-b', 1), 1, []);
    await tick();
    d.continue();
    await a;
    // run-a reaches its next gate while run-b is still held: it queues behind run-b.
    const a2 = g.beforeModelCall!(run('run-a', 1), 2, []);
    await tick();
    expect(d.paused).toMatchObject({ runId: 'run-b', iteration: 1 });
    d.continue();
    await b;
    expect(d.paused).toMatchObject({ runId: 'run-a', iteration: 2 });
    d.continue();
    await a2;
    expect(d.paused).toBeNull();
  });

  it('filters breakpoints by iteration', async () => {
    const { d, g } = make([{ kind: 'after_block', iterations: [2, 4] }], false);
    await g.afterBlock!(run('run-0', 0), 1, 0, false);
    await g.afterBlock!(run('run-0', 0), 3, 0, false);
    expect(d.paused).toBeNull();
    const held = g.afterBlock!(run('run-0', 0), 4, 1, false);
    await tick();
    expect(d.paused).toMatchObject({ kind: 'after_block', iteration: 4, block: 1 });
    d.continue();
    await held;
  });

  it('edits the held reply: blocks by index, or the whole text', async () => {
    const { d, g } = make([{ kind: 'after_reply' }], false);
    const held = g.afterReply!(run('run-0', 0), 2, 'a\n```repl\nx=1\n```\n```repl\ny=2\n```', ['x=1', 'y=2']);
    await tick();
    expect(d.edit({ blocks: { '1': 'y=3' } }).reply?.blocks).toEqual(['x=1', 'y=3']);
    expect(() => d.edit({ blocks: { '5': 'z' } })).toThrow(/no block 5/);
    d.continue();
    expect(await held).toEqual({ blocks: { 1: 'y=3' } });

    const held2 = g.afterReply!(run('run-0', 0), 3, 'r', []);
    await tick();
    expect(d.edit({ text: 'new\n```repl\nz=1\n```' }).reply).toEqual({ text: 'new\n```repl\nz=1\n```', blocks: ['z=1'] });
    d.continue();
    expect(await held2).toMatchObject({ text: 'new\n```repl\nz=1\n```' });
  });

  it('refuses edits unless paused after a reply; cancel releases everything for good', async () => {
    const { d, g } = make([{ kind: 'before_model_call' }], false);
    expect(() => d.edit({ text: 'x' })).toThrow(/not paused after a model reply/);
    const held = g.beforeModelCall!(run('run-0', 0), 1, []);
    await tick();
    expect(() => d.edit({ text: 'x' })).toThrow();
    d.cancel();
    await held;
    await g.beforeModelCall!(run('run-0', 0), 2, []);
    expect(d.paused).toBeNull();
  });
});
