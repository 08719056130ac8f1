// The parse worker on reference-library logs: it splits what it reads into runs of ASCII lines
// and single lines that are not, decodes them in pieces and parses them with the repeated
// prompts and long `locals` values left out, so its events must be exactly those the import
// reads from the whole text: for every fixture, for a log longer than one read that mixes
// ASCII lines with lines that are not, and for one whose multi-byte characters fall across
// the worker's 256 KB pieces and its reads, each read through a stream and through slices.
import { Blob as NodeBlob } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRlmPythonText } from '../../../src-shared/codecs/rlm-python-import.ts';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import type { ParseOut } from '../../../src-renderer/lib/parse-messages.ts';
import { asciiPrefix, parseBlob, prepareReading } from '../../../src-renderer/workers/parse-core.ts';
import { README_COUNTS, REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';

async function workerEvents(blob: Blob): Promise<{ events: TrajectoryEvent[]; problems: string[] }> {
  const out: ParseOut[] = [];
  await parseBlob({ file: blob }, (m) => void out.push(m));
  const error = out.find((m) => m.kind === 'error');
  if (error) throw new Error(error.message);
  return {
    events: out.flatMap((m) => (m.kind === 'events' ? m.events : [])),
    problems: out.flatMap((m) => (m.kind === 'problems' ? m.list : [])),
  };
}

/** A Blob without `stream()` (the slice-reading path). */
function sliceOnly(b: Blob): Blob {
  return { size: b.size, type: b.type, slice: (s?: number, e?: number) => b.slice(s, e) } as unknown as Blob;
}

/** Events as the page gets them (through structured clone: undefined members gone). */
const plain = (events: TrajectoryEvent[]): unknown => JSON.parse(JSON.stringify(events));

describe('the parse worker on reference-library logs', () => {
  it.each(Object.keys(README_COUNTS))('reads the events the import reads from the whole text (%s)', async (name) => {
    const bytes = readFileSync(join(REFERENCE_FIXTURES, `${name}.jsonl`));
    const got = await workerEvents(new NodeBlob([bytes]) as unknown as Blob);
    expect(got.problems).toEqual([]);
    expect(plain(got.events)).toEqual(plain(readRlmPythonText(bytes.toString('utf8')).events));
  });

  it('does so for a log longer than one read, with non-ASCII lines among ASCII ones', async () => {
    // A raw accent and emoji in some copies (as a log written with ensure_ascii=False has), ~6 MB in all.
    const text = needleCopies(8, (line, k) => (k % 3 === 1 ? line.replace('"stdout": "', '"stdout": "é 🙂 ') : line));
    expect(text).toContain('é 🙂');
    await expectWholeTextEvents(text);
  });

  it('does so when multi-byte characters fall across its pieces and reads', async () => {
    // Long runs of two- and four-byte characters after ASCII prefixes of every length mod 4,
    // between plain ASCII copies: wherever a piece or a read ends, some character is cut.
    const text = needleCopies(6, (line, k, i) =>
      (k + i) % 2 === 0
        ? line
        : line.replace('"stdout": "', `"stdout": "${'x'.repeat((k + i) % 4)}${'é'.repeat(70_000)}${'🙂'.repeat(20_000)} `),
    );
    expect(Buffer.byteLength(text)).toBeGreaterThan(4 * 1024 * 1024);
    await expectWholeTextEvents(text);
  });

  it('does so when it reads into buffers made ahead, whose earlier bytes never reach the text', async () => {
    // Longer than the first read and two more, so every buffer made ahead is filled and one is reused.
    const text = needleCopies(10, (line) => line);
    expect(Buffer.byteLength(text)).toBeGreaterThan(8.5 * 1024 * 1024);
    prepareReading();
    await expectWholeTextEvents(text);
  });
});

/** The needle-search fixture's metadata line, then `copies` copies of its iteration lines, each changed by `change` (copy k, line i). */
function needleCopies(copies: number, change: (line: string, k: number, i: number) => string): string {
  const [meta, ...iterations] = readFileSync(join(REFERENCE_FIXTURES, 'a_needle.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  const lines = Array.from({ length: copies }, (_, k) => iterations.map((line, i) => change(line, k, i))).flat();
  return [meta, ...lines].join('\n') + '\n';
}

/** The worker's events from `text`, through a stream and through slices, equal the import's from the whole text. */
async function expectWholeTextEvents(text: string): Promise<void> {
  const whole = plain(readRlmPythonText(text).events);
  for (const blob of [new NodeBlob([text]) as unknown as Blob, sliceOnly(new NodeBlob([text]) as unknown as Blob)]) {
    const got = await workerEvents(blob);
    expect(got.problems).toEqual([]);
    expect(plain(got.events)).toEqual(whole);
  }
}

describe('asciiPrefix', () => {
  const PIECE = 256 * 1024;
  const bytes = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'utf8'));

  it('takes whole pieces while they are ASCII, and their text', () => {
    const texts: (string | Uint8Array)[] = [];
    const text = 'abc\n'.repeat(150_000);
    expect(asciiPrefix(bytes(text), texts)).toBe(text.length);
    expect(texts.join('')).toBe(text);
  });

  it('stops at the piece that holds a non-ASCII byte, a character cut at its end included', () => {
    for (const [text, at] of [
      ['a'.repeat(PIECE) + 'é' + 'b'.repeat(10), PIECE],
      ['a'.repeat(PIECE - 1) + 'é' + 'b'.repeat(10), 0],
      ['a'.repeat(PIECE - 2) + '🙂' + 'b'.repeat(10), 0],
      ['a'.repeat(2 * PIECE - 1) + '\u00e9', PIECE],
    ] as const) {
      const texts: (string | Uint8Array)[] = [];
      expect(asciiPrefix(bytes(text), texts)).toBe(at);
      expect(texts.join('')).toBe(text.slice(0, at));
    }
    // An invalid byte decodes to one replacement character: as many characters as bytes.
    const invalid = new Uint8Array(PIECE + 5).fill(97);
    invalid[10] = 0x80;
    expect(asciiPrefix(invalid, [])).toBe(0);
  });
});
