// The start gate lets a few interpreter starts run at once and the rest wait their turn, in
// order; a start that fails gives its slot to the next one.
import { describe, expect, it } from 'vitest';
import { StartGate } from '../../../src-main/sandbox/python/start-gate.ts';

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('StartGate', () => {
  it('runs at most its slots at once, the rest in order of arrival', async () => {
    const gate = new StartGate(2);
    const works = Array.from({ length: 5 }, () => deferred());
    const began: number[] = [];
    const results = works.map((w, i) =>
      gate.run(async () => {
        began.push(i);
        await w.promise;
        return i;
      }),
    );
    await tick();
    expect(began).toEqual([0, 1]);
    expect([gate.running, gate.waiting]).toEqual([2, 3]);
    works[1]!.resolve();
    await tick();
    expect(began).toEqual([0, 1, 2]);
    works[0]!.reject(new Error('start failed'));
    await expect(results[0]).rejects.toThrow('start failed');
    await tick();
    expect(began).toEqual([0, 1, 2, 3]);
    for (const w of works) w.resolve();
    expect(await Promise.all(results.slice(1))).toEqual([1, 2, 3, 4]);
    expect([gate.running, gate.waiting]).toEqual([0, 0]);
  });

  it('needs at least one slot', () => {
    expect(() => new StartGate(0)).toThrow(/at least one slot/);
  });
});
