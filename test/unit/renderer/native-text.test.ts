// A native log read the way the app reads it: the worker's part (read, cut, decode) and the
// page's (parse the text it is sent) must give what the shared reader gives for the whole
// text at once, problems and their line numbers included.
import { Blob as NodeBlob } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { encodeNative, readNativeText } from '../../../src-shared/codecs/native.ts';
import { makeHeader } from '../../../src-shared/codecs/native-lines.ts';
import { formatProblem } from '../../../src-shared/codecs/lines.ts';
import { asSessionId, type TrajectoryEvent } from '../../../src-shared/events.ts';
import { setAt, type Elision } from '../../../src-renderer/lib/elision.ts';
import { NativeTextReader } from '../../../src-renderer/lib/native-text.ts';
import { parseBlob, readTexts } from '../../../src-renderer/workers/parse-core.ts';
import type { ParseOut } from '../../../src-renderer/lib/parse-messages.ts';
import { fixtureEvents, servicesWith } from './helpers.ts';

/** Everything the page would end up with, and the worker's messages. */
async function readAsApp(text: string, elideOver: number | null) {
  const out: ParseOut[] = [];
  await parseBlob({ file: new NodeBlob([text]) as unknown as Blob, elideOver }, (m) => out.push(m));
  const reader = new NativeTextReader();
  const events: TrajectoryEvent[] = [];
  const problems: string[] = [];
  const elided: [TrajectoryEvent, Elision[]][] = [];
  let header: unknown = null;
  for (const m of out) {
    const b = m.kind === 'lines' ? reader.read(m.bytes, m.cuts) : m.kind === 'done' ? reader.end() : null;
    if (m.kind === 'events') throw new Error('a native log was parsed in the worker');
    if (!b) continue;
    header ??= b.header;
    for (const [i, list] of b.elided) elided.push([b.events[i] as TrajectoryEvent, list]);
    events.push(...b.events);
    problems.push(...b.problems);
  }
  return { out, events, problems, elided, header };
}

const original = fixtureEvents('c_recursive.jsonl');
const lines = [...encodeNative(makeHeader(asSessionId('t'), new Date(0)), original)];

describe('a native log parsed on the page', () => {
  it('gives the shared reader’s events, header and problems, line numbers included', async () => {
    // A malformed line, an event of an unknown type, and a last line cut off mid-write.
    const damaged = [
      ...lines.slice(0, 5),
      '{"type":"block.end", oops\n',
      ...lines.slice(5, 9),
      '{"type":"nope","v":1,"seq":999}\n',
      ...lines.slice(9),
      lines[3]!.slice(0, 40),
    ].join('');
    const whole = readNativeText(damaged);
    expect(whole.problems.length).toBe(3);
    for (const elideOver of [null, 256]) {
      const app = await readAsApp(damaged, elideOver);
      expect(app.problems).toEqual(whole.problems.map(formatProblem));
      expect(app.header).toEqual(whole.header);
      expect(app.events.length).toBe(whole.events.length);
      if (elideOver === null) expect(app.events).toEqual(whole.events);
    }
  });

  it('restores previews only where cuts were made, and the cuts read back give the whole events', async () => {
    const text = lines.join('');
    const app = await readAsApp(text, 256);
    const sentCuts = app.out.flatMap((m) => (m.kind === 'lines' ? (m.cuts ?? []) : []));
    const found = app.elided.flatMap(([, list]) => list);
    expect(sentCuts.length).toBeGreaterThan(3);
    // Every cut is found in the event of the line it was made in, and in no other.
    expect(found.map((x) => [x.start, x.end])).toEqual(sentCuts.map((c) => [c.start, c.end]));
    const back = await readTexts(new NodeBlob([text]) as unknown as Blob, found);
    expect(back.problems).toEqual([]);
    let k = 0;
    for (const [ev, list] of app.elided) for (const x of list) setAt(ev, x.path, back.texts[k++] as string);
    expect(app.events).toEqual(readNativeText(text).events);
  });

  it('reaches the store through the services, with nothing reported for a sound log', async () => {
    const { svc, store } = servicesWith([]);
    const id = await svc.openFile(Object.assign(new NodeBlob([lines.join('')]) as unknown as Blob, { name: 'log.rlm.jsonl' }));
    store.getState().flushEvents();
    const entry = store.getState().sessions.get(id);
    expect(entry?.problems).toEqual([]);
    expect(entry?.events.length).toBe(original.length);
    expect(entry?.header?.sessionId).toBe('t');
  });
});
