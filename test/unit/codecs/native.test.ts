import { describe, expect, it } from 'vitest';
import { EVENT_SCHEMA_VERSION, asSessionId, type TrajectoryEvent } from '../../../src-shared/events.ts';
import { encodeNative, NativeReader, readNativeText, checkEvent } from '../../../src-shared/codecs/native.ts';
import { makeHeader } from '../../../src-shared/codecs/native-lines.ts';
import { reduceEvents } from '../../../src-shared/trajectory/reducer.ts';
import { scenario } from '../trajectory/synthetic.ts';
import { chunks, flipBytes, rng } from './fuzz.ts';

const header = makeHeader(asSessionId('s-1'), new Date(Date.UTC(2026, 0, 1)));
const events = scenario().events;
const text = [...encodeNative(header, events)].join('');

describe('native reader', () => {
  it('reads back exactly what was written, with no problems', () => {
    const r = readNativeText(text);
    expect(r.problems).toEqual([]);
    expect(r.header).toEqual(header);
    expect(r.events).toEqual(events);
  });

  it('gives the same result whatever the chunking', () => {
    const rand = rng(7);
    for (let round = 0; round < 5; round++) {
      const reader = new NativeReader();
      const got: TrajectoryEvent[] = [];
      for (const c of chunks(text, rand, 300)) for (const item of reader.push(c)) if (item.kind === 'event') got.push(item.event);
      for (const item of reader.end()) if (item.kind === 'event') got.push(item.event);
      expect(got).toEqual(events);
    }
  });

  it('a file cut anywhere: no crash, every complete line read, a clear note on the cut line', () => {
    const lineEnds: number[] = [];
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineEnds.push(i + 1);
    for (let cut = 0; cut <= text.length; cut += 173) {
      const r = readNativeText(text.slice(0, cut));
      const complete = lineEnds.filter((e) => e <= cut).length;
      expect(r.events).toEqual(events.slice(0, r.events.length));
      // Complete lines minus the header are all read (a cut line may still parse if cut at its end).
      expect(r.events.length).toBeGreaterThanOrEqual(Math.max(0, complete - 1));
      if (cut === 0) expect(r.problems[0]?.message).toMatch(/empty/);
      const midLine = cut > 0 && !lineEnds.includes(cut) && cut !== text.length;
      if (midLine && r.events.length === Math.max(0, complete - 1)) {
        const p = r.problems.find((x) => /cut off/.test(x.message));
        expect(p?.line).toBe(complete + 1);
        expect(p?.severity).toBe('warning');
      }
      expect(() => reduceEvents(r.events, r.header)).not.toThrow();
    }
  });

  it('random byte flips: never throws, damaged lines named, the rest read', () => {
    const rand = rng(42);
    for (let round = 0; round < 150; round++) {
      const damaged = flipBytes(text, 1 + Math.floor(rand() * 8), rand);
      const r = readNativeText(damaged);
      for (const p of r.problems) {
        expect(p.message.length).toBeGreaterThan(5);
        if (p.line !== null) expect(p.line).toBeGreaterThan(0);
      }
      expect(r.events.length + r.problems.length).toBeGreaterThan(0);
      for (const e of r.events) expect(checkEvent(e).ok).toBe(true);
      expect(() => reduceEvents(r.events, r.header)).not.toThrow();
    }
  });

  it('names a malformed line in the middle and reads the others', () => {
    const lines = text.split('\n');
    lines.splice(
      5,
      0,
      '{"v":1,"seq":3,"t":1,"ts":"x","runId":"r","parentRunId":null,"depth":0,"type":"block.end"}',
      'not json',
      '{"type":"teleport","v":1}',
    );
    const r = readNativeText(lines.join('\n'));
    expect(r.events).toEqual(events);
    expect(r.problems.map((p) => [p.line, p.severity])).toEqual([
      [6, 'error'],
      [7, 'error'],
      [8, 'error'],
    ]);
    expect(r.problems[0]?.message).toMatch(/invalid block\.end event: `iteration`/);
    expect(r.problems[1]?.message).toMatch(/not valid JSON/);
    expect(r.problems[2]?.message).toMatch(/unknown event type "teleport"/);
  });

  it('a newer header version gives the specific message, and events still matching are read', () => {
    const newer = text.replace(`"version":${EVENT_SCHEMA_VERSION}`, `"version":${EVENT_SCHEMA_VERSION + 1}`);
    const r = readNativeText(newer);
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatchObject({ line: 1, severity: 'error' });
    expect(r.problems[0]?.message).toContain(
      `format version ${EVENT_SCHEMA_VERSION + 1}, newer than this reader understands (version ${EVENT_SCHEMA_VERSION})`,
    );
    expect(r.events).toEqual(events);
  });

  it('a newer event version is named by line; only the first few are listed, then a count', () => {
    const lines = text
      .trimEnd()
      .split('\n')
      .map((l, i) => (i === 0 ? l : l.replace(`"v":${EVENT_SCHEMA_VERSION},`, `"v":${EVENT_SCHEMA_VERSION + 1},`)));
    const r = readNativeText(`${lines.join('\n')}\n`);
    expect(r.problems[0]?.line).toBe(2);
    expect(r.problems[0]?.message).toMatch(/event version 2 is newer than this reader understands \(1\)/);
    expect(r.problems.length).toBeLessThanOrEqual(11);
    expect(r.problems.at(-1)?.message).toMatch(/more line\(s\) with the same problem/);
  });

  it('a file without a header: says so and reads the events', () => {
    const r = readNativeText(text.slice(text.indexOf('\n') + 1));
    expect(r.events).toEqual(events);
    expect(r.problems[0]?.message).toMatch(/expected the rlm-studio header/);
  });
});

describe('run.start limits across versions', () => {
  const start = (limits: Record<string, unknown>) => ({
    ...events[0],
    limits: { maxDepth: 1, maxIterations: 3, maxBudgetUsd: null, maxTimeoutMs: null, maxTokens: null, maxErrors: null, ...limits },
  });

  it('a log written when one maxConcurrency served both batched calls loads with both caps set from it', () => {
    const r = checkEvent(start({ maxConcurrency: 8 }));
    expect(r.ok).toBe(true);
    if (r.ok && r.value.type === 'run.start') expect(r.value.limits).toMatchObject({ maxConcurrencyLlm: 8, maxConcurrencyRlm: 8 });
  });

  it('the two caps of today are kept as written', () => {
    const r = checkEvent(start({ maxConcurrencyLlm: 16, maxConcurrencyRlm: 4, maxErrorsMode: 'stderr', childLlmModel: 'own' }));
    expect(r.ok && r.value.type === 'run.start' ? r.value.limits : null).toMatchObject({
      maxConcurrencyLlm: 16,
      maxConcurrencyRlm: 4,
      maxErrorsMode: 'stderr',
      childLlmModel: 'own',
    });
  });

  it('limits with no concurrency cap at all are refused by name', () => {
    const r = checkEvent(start({}));
    expect(r).toMatchObject({ ok: false, message: expect.stringMatching(/maxConcurrency/) });
  });
});

describe('run.start worked examples', () => {
  const examples = [
    { source: '/runs/a.rlm.jsonl', chars: 1234, repl: 'javascript' as const },
    { source: '/fixtures/b.jsonl', chars: 0, repl: 'python' as const },
  ];
  const withExamples = events.map((e) => (e.type === 'run.start' && e.parentRunId === null ? { ...e, examples } : e));

  it('a write and read keeps run.start.examples as written', () => {
    const r = readNativeText([...encodeNative(header, withExamples)].join(''));
    expect(r.problems).toEqual([]);
    expect(r.events).toEqual(withExamples);
    const root = r.events.find((e) => e.type === 'run.start' && e.parentRunId === null);
    expect(root?.type === 'run.start' ? root.examples : null).toEqual(examples);
  });

  it('a malformed entry is refused by name (the fast check and the schema both refuse it)', () => {
    const start = withExamples.find((e) => e.type === 'run.start')!;
    for (const bad of [[{ source: 'a', chars: -1 }], [{ chars: 3 }], 'a.jsonl', [{ source: 'a', chars: 3, repl: 'ruby' }]]) {
      const r = checkEvent({ ...start, examples: bad });
      expect(r, JSON.stringify(bad)).toMatchObject({ ok: false, message: expect.stringMatching(/examples/) });
    }
  });
});

describe('run.start request fields', () => {
  const sampling = { turns: { temperature: 0.2, seed: 11 }, subcalls: null };
  const withSampling = events.map((e) => (e.type === 'run.start' ? { ...e, sampling } : e));

  it('a write and read keeps run.start.sampling as written', () => {
    const r = readNativeText([...encodeNative(header, withSampling)].join(''));
    expect(r.problems).toEqual([]);
    expect(r.events).toEqual(withSampling);
  });

  it('a malformed one is refused by name', () => {
    const start = withSampling.find((e) => e.type === 'run.start')!;
    for (const bad of [{ turns: 3, subcalls: null }, { turns: {} }, 'temperature 0.2', { turns: {}, subcalls: [1] }]) {
      const r = checkEvent({ ...start, sampling: bad });
      expect(r, JSON.stringify(bad)).toMatchObject({ ok: false, message: expect.stringMatching(/sampling/) });
    }
  });
});

describe('run.start sandbox layers', () => {
  const sandbox = { layers: ['isolate', 'memory-limit', 'scrubbed-env'] };
  const withSandbox = events.map((e) => (e.type === 'run.start' ? { ...e, sandbox } : e));

  it('a write and read keeps run.start.sandbox as written', () => {
    const r = readNativeText([...encodeNative(header, withSandbox)].join(''));
    expect(r.problems).toEqual([]);
    expect(r.events).toEqual(withSandbox);
  });

  it('a malformed one is refused by name', () => {
    const start = withSandbox.find((e) => e.type === 'run.start')!;
    for (const bad of [{ layers: 'isolate' }, { layers: [1] }, {}, ['isolate']]) {
      const r = checkEvent({ ...start, sandbox: bad });
      expect(r, JSON.stringify(bad)).toMatchObject({ ok: false, message: expect.stringMatching(/sandbox/) });
    }
  });
});
