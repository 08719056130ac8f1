// The idle prewarm runs in steps, one per idle moment, and gives way to a loading log:
// module steps go on only between the load's tasks, editor steps wait for its end, and the
// text warm-up is dropped.
import { describe, expect, it } from 'vitest';
import { holdEditors } from '../../../src-renderer/lib/mount-queue.ts';
import { runPrewarm, type IdleWait, type PrewarmStep } from '../../../src-renderer/monaco/prewarm.ts';
import { prewarmTextSteps } from '../../../src-renderer/lib/prewarm-text.ts';

/** Idle moments the test hands out one at a time; records each wait's deadline. */
function manualIdle(): { idle: IdleWait; deadlines: number[]; next(): Promise<void> } {
  const waiting: (() => void)[] = [];
  const deadlines: number[] = [];
  return {
    deadlines,
    idle: (timeoutMs) =>
      new Promise<void>((resolve) => {
        deadlines.push(timeoutMs);
        waiting.push(resolve);
      }),
    // Lets one waiting step run, then lets its promise chain settle.
    next: async () => {
      for (let i = 0; i < 5 && waiting.length === 0; i++) await Promise.resolve();
      waiting.shift()?.();
      for (let i = 0; i < 10; i++) await Promise.resolve();
    },
  };
}

const step = (ran: string[], name: string, extra: Partial<PrewarmStep> = {}): PrewarmStep => ({
  name,
  run: () => ran.push(name),
  ...extra,
});

describe('the Monaco prewarm', () => {
  it('runs one step per idle moment, in order', async () => {
    const ran: string[] = [];
    const clock = manualIdle();
    const done = runPrewarm([step(ran, 'a'), step(ran, 'b'), step(ran, 'c')], clock.idle);
    expect(ran).toEqual([]);
    await clock.next();
    expect(ran).toEqual(['a']);
    await clock.next();
    expect(ran).toEqual(['a', 'b']);
    await clock.next();
    await done;
    expect(ran).toEqual(['a', 'b', 'c']);
    expect(clock.deadlines).toEqual([1000, 1000, 1000]);
  });

  it('while a log loads: module steps go on between its tasks, editor steps wait for its end, text steps are dropped', async () => {
    const ran: string[] = [];
    const clock = manualIdle();
    const release = holdEditors();
    const done = runPrewarm(
      [step(ran, 'module'), step(ran, 'text', { beforeLoad: true }), step(ran, 'editor', { afterLoad: true }), step(ran, 'module 2')],
      clock.idle,
    );
    await clock.next();
    expect(ran).toEqual(['module']);
    // The load's short deadline, so a step fits between its tasks.
    expect(clock.deadlines[0]).toBeLessThan(100);
    // The text step is dropped at once, and the editor step waits for the load: no idle moment is even asked for.
    const asked = clock.deadlines.length;
    await clock.next();
    expect(clock.deadlines.length).toBe(asked);
    expect(ran).toEqual(['module']);
    await clock.next();
    expect(clock.deadlines.length).toBe(asked);
    expect(ran).toEqual(['module']);
    release();
    await clock.next();
    expect(ran).toEqual(['module', 'editor']);
    await clock.next();
    await done;
    expect(ran).toEqual(['module', 'editor', 'module 2']);
    // Once a log has been opened, the text warm-up is not done at all, even with no load running.
    const later: string[] = [];
    const after = runPrewarm([step(later, 'text', { beforeLoad: true })], clock.idle);
    await clock.next();
    await after;
    expect(later).toEqual([]);
  });

  it('waits again when a load starts during the idle wait of an editor step', async () => {
    const ran: string[] = [];
    const clock = manualIdle();
    const done = runPrewarm([step(ran, 'editor', { afterLoad: true })], clock.idle);
    for (let i = 0; i < 5; i++) await Promise.resolve();
    const release = holdEditors();
    await clock.next();
    expect(ran).toEqual([]);
    release();
    await clock.next();
    await done;
    expect(ran).toEqual(['editor']);
  });

  it('splits the text warm-up into steps marked to be dropped once a log loads', () => {
    const steps = prewarmTextSteps();
    expect(steps.length).toBeGreaterThan(1);
    expect(steps.every((s) => s.beforeLoad)).toBe(true);
    const before = document.body.childElementCount;
    for (const s of steps) s.run();
    expect(document.body.childElementCount).toBe(before);
  });
});
