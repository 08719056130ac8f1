// Long prompts left out of a big native log's first read, and read back by byte range.
import { Blob as NodeBlob } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { encodeNative } from '../../../src-shared/codecs/native.ts';
import { makeHeader } from '../../../src-shared/codecs/native-lines.ts';
import { asSessionId, type TrajectoryEvent } from '../../../src-shared/events.ts';
import { Elider } from '../../../src-renderer/workers/elide.ts';
import { MARK, restoreMarks, setAt, type Elision } from '../../../src-renderer/lib/elision.ts';
import { parseBlob, readTexts } from '../../../src-renderer/workers/parse-core.ts';
import type { ParseOut } from '../../../src-renderer/lib/parse-messages.ts';
import { NativeTextReader, type TextBatch } from '../../../src-renderer/lib/native-text.ts';
import { fixtureEvents, servicesWith } from './helpers.ts';

const enc = new TextEncoder();

/** Lightens `lines` in one go, parses each resulting line and restores previews. */
function roundTrip(text: string, min: number) {
  const bytes = enc.encode(text);
  const el = new Elider(min);
  const light = new TextDecoder().decode(el.lighten(bytes, 0));
  const parsed = light
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const left = parsed.map((p) => restoreMarks(p, el.cuts));
  return { bytes, el, parsed, left, light };
}

function nativeLog(events: TrajectoryEvent[]): string {
  return [...encodeNative(makeHeader(asSessionId('t'), new Date(0)), events)].join('');
}

async function parseAll(blob: Blob, elideOver: number | null) {
  const out: ParseOut[] = [];
  await parseBlob({ file: blob, elideOver }, (m) => out.push(m));
  const events: TrajectoryEvent[] = [];
  const elided = new Map<TrajectoryEvent, Elision[]>();
  const take = (batch: TrajectoryEvent[], left: [number, Elision[]][] = []): void => {
    for (const [i, list] of left) elided.set(batch[i] as TrajectoryEvent, list);
    events.push(...batch);
  };
  // As the page does: a native log's lines are parsed there.
  const native = new NativeTextReader();
  for (const m of out) {
    if (m.kind === 'error') throw new Error(m.message);
    if (m.kind === 'events') take(m.events);
    if (m.kind === 'lines') take(...pick(native.read(m.bytes, m.cuts)));
    if (m.kind === 'done') take(...pick(native.end()));
  }
  return { events, elided, out };
}

function pick(b: TextBatch): [TrajectoryEvent[], [number, Elision[]][]] {
  if (b.problems.length > 0) throw new Error(b.problems.join('; '));
  return [b.events, b.elided];
}

/** A Blob without `stream()` (the slice-reading path). */
function sliceOnly(b: Blob): Blob {
  return { size: b.size, type: b.type, slice: (s?: number, e?: number) => b.slice(s, e) } as unknown as Blob;
}

describe('Elider', () => {
  const long = 'x'.repeat(300);
  it('cuts long content and prompt values only, and says where they were', () => {
    const line = `${JSON.stringify({
      type: 'subcall.start',
      prompt: `P${long}`,
      code: `C${long}`,
      messages: [
        { role: 'user', content: `M${long}` },
        { role: 'user', content: 'short' },
      ],
    })}\n`;
    const { bytes, parsed, left } = roundTrip(line, 128);
    const ev = parsed[0] as { prompt: string; code: string; messages: { content: string }[] };
    expect(ev.code).toBe(`C${long}`);
    expect(ev.messages[1]?.content).toBe('short');
    expect(ev.prompt.length).toBeLessThan(40);
    expect(`P${long}`.startsWith(ev.prompt)).toBe(true);
    expect(left[0]?.map((x) => x.path)).toEqual([['prompt'], ['messages', 0, 'content']]);
    for (const x of left[0] ?? []) {
      const token = new TextDecoder().decode(bytes.subarray(x.start, x.end));
      setAt(ev, x.path, JSON.parse(token) as string);
    }
    expect(ev).toEqual(JSON.parse(line));
  });

  it('keeps escapes and multi-byte characters whole, in the preview and in the text read back', () => {
    const tricky = `é"\\\u00e9\n\t${'ü🙂'.repeat(120)}\\"end`;
    const line = `${JSON.stringify({ prompt: tricky, n: 1 })}\n${JSON.stringify({ content: `a\\"${tricky}` })}\n`;
    const { bytes, parsed, left, light } = roundTrip(line, 128);
    expect(light).not.toContain('\uFFFD');
    for (let i = 0; i < parsed.length; i++) {
      const ev = parsed[i] as Record<string, unknown>;
      const [x] = left[i] ?? [];
      expect(x).toBeDefined();
      const full = JSON.parse(new TextDecoder().decode(bytes.subarray(x!.start, x!.end))) as string;
      expect(full.startsWith(ev[x!.path[0] as string] as string)).toBe(true);
      setAt(ev, x!.path, full);
    }
    expect(parsed).toEqual(
      line
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    );
  });

  it('passes short strings, non-native text and malformed lines through untouched', () => {
    const ok = `${JSON.stringify({ prompt: 'short', content: 'also short' })}\n`;
    const el = new Elider(128);
    const b = enc.encode(ok);
    expect(el.lighten(b, 0)).toBe(b);
    const broken = enc.encode(`{"prompt":"${'y'.repeat(500)}\n{"prompt":"ok"}\n`);
    expect(new TextDecoder().decode(el.lighten(broken, 0))).toBe(new TextDecoder().decode(broken));
    expect(() => new Elider(64)).toThrow(/below 128/);
    expect(restoreMarks({ a: `text with ${MARK}999 an unknown cut` }, el.cuts)).toBeNull();
  });
});

describe('parse worker: left-out prompts', () => {
  const original = fixtureEvents('c_recursive.jsonl');
  const text = nativeLog(original);

  for (const [name, blobOf] of [
    ['streamed', (t: string) => new NodeBlob([t]) as unknown as Blob],
    ['read by slices', (t: string) => sliceOnly(new NodeBlob([t]) as unknown as Blob)],
  ] as const) {
    it(`reads the same events with previews, and the texts back exactly (${name})`, async () => {
      const blob = blobOf(text);
      const whole = await parseAll(blob, null);
      expect(whole.elided.size).toBe(0);
      expect(whole.events).toEqual(JSON.parse(JSON.stringify(original)));
      const light = await parseAll(blob, 256);
      expect(light.events.length).toBe(original.length);
      expect(light.elided.size).toBeGreaterThan(3);
      const cuts = [...light.elided.values()].flat();
      const back = await readTexts(blob, cuts);
      expect(back.problems).toEqual([]);
      let k = 0;
      for (const [ev, list] of light.elided) for (const x of list) setAt(ev, x.path, back.texts[k++] as string);
      expect(light.events).toEqual(whole.events);
      const done = light.out.find((m) => m.kind === 'done');
      expect(done?.kind === 'done' && done.spent.decode >= 0).toBe(true);
    });
  }

  it('leaves reference-library logs whole, and small native logs by default', async () => {
    const { readFileSync } = await import('node:fs');
    const { FIXTURES } = await import('./helpers.ts');
    const ref = await parseAll(new NodeBlob([readFileSync(`${FIXTURES}/c_recursive.jsonl`)]) as unknown as Blob, 256);
    expect(ref.events.length).toBeGreaterThan(10);
    expect(ref.elided.size).toBe(0);
    const out: ParseOut[] = [];
    await parseBlob({ file: new NodeBlob([text]) as unknown as Blob }, (m) => out.push(m));
    expect(out.some((m) => m.kind === 'lines')).toBe(true);
    expect(out.some((m) => m.kind === 'lines' && m.cuts)).toBe(false);
  });

  it('decodes non-ASCII lines at any offset, in files longer than one read', async () => {
    // 3,000 copies, every seventh with accents and an emoji at a shifting offset: ~1.4 MB.
    const events = original.slice(0, 3).flatMap((e, k) =>
      Array.from({ length: 1000 }, (_, i) => ({
        ...e,
        seq: k * 1000 + i,
        query: i % 7 === 0 ? `${'a'.repeat(i % 5)}é ü 🙂 ${i}` : `plain ${i}`,
      })),
    );
    const log = nativeLog(events);
    for (const blob of [new NodeBlob([log]) as unknown as Blob, sliceOnly(new NodeBlob([log]) as unknown as Blob)]) {
      const got = await parseAll(blob, null);
      expect(got.events).toEqual(JSON.parse(JSON.stringify(events)));
    }
  });

  it('says which text could not be read back when the file changed', async () => {
    const light = await parseAll(new NodeBlob([text]) as unknown as Blob, 256);
    const cuts = [...light.elided.values()].flat();
    const changed = new NodeBlob([text.replace(/"prompt":"/g, '"prompt":"XY')]) as unknown as Blob;
    const back = await readTexts(changed, cuts);
    expect(back.texts.some((t) => t === null)).toBe(true);
    expect(back.problems[0]).toMatch(/^bytes \d+–\d+: the text could not be read again/);
  });
});

describe('services: texts read back into the store', () => {
  it("fills an iteration's prompts on demand, and every text before a search or an export", async () => {
    const original = fixtureEvents('c_recursive.jsonl');
    const text = nativeLog(original);
    const { store, svc } = servicesWith([]);
    const id = await svc.openFile(Object.assign(new NodeBlob([text]) as unknown as Blob, { name: 'big.rlm.jsonl' }));
    // openFile parses on this thread in tests (no Worker); the default leaves small logs whole.
    expect(store.getState().sessions.get(id)?.elided.size).toBe(0);

    const light = await parseAll(new NodeBlob([text]) as unknown as Blob, 256);
    store.getState().addLocalSession('big', 'big');
    store.getState().ingestEvents(
      'big',
      light.events,
      [...light.elided.entries()].map(([ev, list]) => [light.events.indexOf(ev), list] as [number, Elision[]]),
    );
    store.getState().flushEvents();
    svc.texts.setSource('big', new NodeBlob([text]) as unknown as Blob);
    const entry = () => store.getState().sessions.get('big')!;
    const first = [...entry().elided.keys()][0] as TrajectoryEvent;
    const before = entry().textsRev;
    await svc.texts.fullTexts('big', [first, first]);
    expect(entry().elided.has(first)).toBe(false);
    expect(entry().textsRev).toBe(before + 1);
    expect(entry().elided.size).toBeGreaterThan(0);
    const native = await svc.nativeText('big');
    expect(entry().elided.size).toBe(0);
    expect(native.split('\n').slice(1)).toEqual(text.split('\n').slice(1));
  });

  it('keeps the previews, says so once, and asks no more when the file changed under it', async () => {
    const text = nativeLog(fixtureEvents('c_recursive.jsonl'));
    const { store, svc } = servicesWith([]);
    const light = await parseAll(new NodeBlob([text]) as unknown as Blob, 256);
    store.getState().addLocalSession('big', 'big');
    store.getState().ingestEvents(
      'big',
      light.events,
      [...light.elided.entries()].map(([ev, list]) => [light.events.indexOf(ev), list] as [number, Elision[]]),
    );
    store.getState().flushEvents();
    svc.texts.setSource('big', new NodeBlob([text.replace(/"prompt":"/g, '"prompt":"XY')]) as unknown as Blob);
    const whole = await parseAll(new NodeBlob([text]) as unknown as Blob, null);
    const previews = light.events.map((e) => JSON.stringify(e));
    await svc.texts.allTexts('big');
    const entry = store.getState().sessions.get('big')!;
    expect(entry.elided.size).toBe(0);
    expect(entry.problems.some((p) => /could not be read again|does not begin with/.test(p))).toBe(true);
    // Every event is as first read, or whole and right (texts before the first change read back fine).
    light.events.forEach((e, i) => expect([previews[i], JSON.stringify(whole.events[i])]).toContain(JSON.stringify(e)));
    // …and the texts after it kept their previews.
    expect([...light.elided.keys()].some((e) => JSON.stringify(e) === previews[light.events.indexOf(e)])).toBe(true);
    const problems = entry.problems.length;
    await svc.texts.allTexts('big');
    expect(store.getState().sessions.get('big')!.problems.length).toBe(problems);
    // An export says that what it holds of those texts is only their previews.
    expect(entry.textsLost).toBeGreaterThan(0);
    await svc.nativeText('big');
    expect(store.getState().notices.at(-1)?.text).toMatch(/^\d+ long prompts? could not be read back/);
  });
});
