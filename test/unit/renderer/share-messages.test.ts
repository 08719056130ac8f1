// Repeated run-start messages sent from the parse worker as one object per batch.
import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import { MessageSharer } from '../../../src-renderer/workers/share-messages.ts';
import { fixtureEvents } from './helpers.ts';

const copy = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

describe('MessageSharer', () => {
  it('makes equal long messages one object, so a batch is serialised with each once', () => {
    const system = 'You are a recursive language model. '.repeat(300);
    const starts = Array.from(
      { length: 50 },
      (_, i) =>
        copy({
          type: 'run.start',
          runId: `r${i}`,
          messages: [
            { role: 'system', content: system },
            { role: 'user', content: `short task ${i}` },
            { role: 'user', content: system },
          ],
        }) as unknown as Extract<TrajectoryEvent, { type: 'run.start' }>,
    );
    const before = serialize(starts).length;
    const sharer = new MessageSharer();
    for (const e of starts) sharer.share(e);
    const first = starts[0]!;
    expect(starts[49]!.messages[0]).toBe(first.messages[0]);
    // Same text, another role: another message.
    expect(first.messages[2]).not.toBe(first.messages[0]);
    expect(starts[7]!.messages[1]!.content).toBe('short task 7');
    const after = serialize(starts).length;
    expect(before).toBeGreaterThan(100 * system.length);
    expect(after).toBeLessThan(3 * system.length);
  });

  it('changes no value of a real log', () => {
    const events = fixtureEvents('c_recursive.jsonl');
    const before = copy(events);
    const sharer = new MessageSharer();
    for (const e of events) sharer.share(e);
    expect(events).toEqual(before);
  });
});
