// Repeated long texts of a loaded log kept once on the page.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import { TextInterner } from '../../../src-renderer/lib/intern-texts.ts';
import { fixtureEvents } from './helpers.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A separate copy of every string (as structured clone gives each message). */
const copy = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

function heldBytes(make: () => unknown): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = make();
  gc();
  const after = process.memoryUsage().heapUsed;
  expect(kept).toBeTruthy();
  return after - before;
}

describe('TextInterner', () => {
  it('keeps one copy of a system prompt that every run repeats', () => {
    const prompt = 'You are a recursive language model. '.repeat(600);
    const runStart = (i: number): TrajectoryEvent =>
      copy({
        type: 'run.start',
        runId: `r${i}`,
        messages: [
          { role: 'system', content: prompt },
          { role: 'user', content: `task ${i}` },
        ],
      }) as unknown as TrajectoryEvent;
    const separate = heldBytes(() => Array.from({ length: 300 }, (_, i) => runStart(i)));
    const interner = new TextInterner();
    const shared = heldBytes(() =>
      Array.from({ length: 300 }, (_, i) => {
        const e = [runStart(i)];
        interner.intern(e);
        return e;
      }),
    );
    // 300 copies of 22 KB (one-byte strings) against one.
    expect(separate).toBeGreaterThan(300 * prompt.length * 0.8);
    expect(shared).toBeLessThan(separate / 10);
  });

  it('changes no value: the fixtures read the same after interning', () => {
    const events = fixtureEvents('c_recursive.jsonl');
    const before = copy(events);
    new TextInterner().intern(events);
    expect(events).toEqual(before);
  });
});
