// Context files into the REPLs: small files as before (one string, or the parsed JSON), a text
// file larger than one string as an array of strings copied once into memory the isolate shares.
// The limits are shrunk so that a few hundred bytes take the large-file path.
import { constants } from 'node:buffer';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  ContextFileError,
  describeAsciiTextFile,
  readContextFile,
  type ContextFileLimits,
  type ContextFileOptions,
} from '../../../src-main/engine/context-file.ts';
import { describeContext, describedContext } from '../../../src-main/engine/context-meta.ts';
import { prng } from '../../../src-main/corpus/seeded-text.ts';
import { createIsolatedRepl } from '../../../src-main/sandbox/isolated-repl.ts';
import { createPythonRepl } from '../../../src-main/sandbox/python/pyodide-repl.ts';
import { coolPython } from '../../../src-main/sandbox/python/pool.ts';
import { sharedCopies } from '../../../src-main/sandbox/shared-strings.ts';
import type { Repl, SandboxValue } from '../../../src-main/sandbox/types.ts';
import { fakeBridge, SITE } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlm-context-file-'));
let n = 0;
function file(content: string, ext = '.txt'): string {
  const path = join(dir, `ctx-${n++}${ext}`);
  writeFileSync(path, content);
  return path;
}
const repls: Repl[] = [];
async function jsRepl(): Promise<Repl> {
  const repl = await createIsolatedRepl({ bridge: fakeBridge() });
  repls.push(repl);
  return repl;
}
afterEach(() => {
  for (const repl of repls.splice(0)) repl.dispose();
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await coolPython();
});

/** What a block prints, or its error. */
async function run(repl: Repl, code: string): Promise<string> {
  const r = await repl.execute(code, SITE);
  return r.error ? `!${r.error.name}: ${r.error.message}` : r.stdout;
}

const limits = (chunkBytes: number): ContextFileLimits => ({ maxStringBytes: 64, chunkBytes });
const small = (chunkBytes: number): ContextFileOptions => ({ limits: limits(chunkBytes) });
const bytesOf = (s: string): number => Buffer.byteLength(s, 'utf8');
/** A file that fits one string read in pieces of `pieceBytes`. */
const pieces = (pieceBytes: number): ContextFileOptions => ({
  limits: { maxStringBytes: constants.MAX_STRING_LENGTH, chunkBytes: 16 * 1024 * 1024, pieceBytes },
});

// Lines of mixed widths: ASCII, 2-byte (é), 3-byte (€, 漢) and 4-byte (𝄞, an astral character:
// two UTF-16 units) characters, one line longer than any chunk, and no line break at the end.
const MIXED = [
  'first line, plain ASCII',
  'café crème à la carte',
  '€ 12 — 漢字かな交じり文',
  '𝄞𝄞 clef 𝄞 and 🎉 emoji',
  `${'x€𝄞é'.repeat(20)}`,
  '',
  'last line without a break',
].join('\n');

describe('readContextFile: files that fit one string (unchanged)', () => {
  it('reads text as one string, byte for byte', async () => {
    const text = 'alpha\nbéta ✓\r\n𝄞 end';
    expect(await readContextFile(file(text))).toBe(text);
  });

  it('reads a file of several 1 MiB pieces as the whole file decoded at once: characters and invalid bytes cut between pieces, a byte order mark kept', async () => {
    // Each line is 1 MiB minus one byte, so every cut between pieces moves one byte into the
    // next line: over eight lines it falls inside 2-, 3- and 4-byte characters and inside the
    // invalid sequences (a lone continuation byte, a truncated 3-byte character, an overlong 0xC0).
    const unit = Buffer.concat([Buffer.from('é€𝄞'), Buffer.from([0x80, 0xe2, 0x82, 0xc0, 0xaf, 0x61])]);
    const line = Buffer.alloc(1024 * 1024 - 1);
    for (let i = 0; i < line.length; i += unit.length) unit.copy(line, i, 0, Math.min(unit.length, line.length - i));
    const lines = Array.from({ length: 8 }, (_, k) => Buffer.concat([line.subarray(k), Buffer.from('\n')]));
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), ...lines]);
    const path = join(dir, `ctx-${n++}.txt`);
    writeFileSync(path, bytes);
    const text = await readContextFile(path, pieces(1024 * 1024));
    expect(typeof text).toBe('string');
    expect((text as string).length).toBe(bytes.toString('utf8').length);
    expect((await readContextFile(path)) === text).toBe(true);
    expect(text === bytes.toString('utf8')).toBe(true);
    expect((text as string).startsWith('\ufeff')).toBe(true);
    // Read whole and decoded at once, as for the Python REPL: the same text.
    expect((await readContextFile(path, { flat: true })) === text).toBe(true);
  });

  it('reads a piece that is all ASCII as it is and decodes the others, as the whole file decoded at once', async () => {
    // Pieces of 8 bytes: an ASCII piece after a 3-byte character cut short (one U+FFFD, as in
    // the whole file), after a character cut between two pieces, and between invalid bytes.
    const cut = Buffer.concat([
      Buffer.from('abcdefg'),
      Buffer.from([0xe2]), // piece 1 ends inside a character that never ends
      Buffer.from('ABCDEFGH'), // piece 2: ASCII
      Buffer.from('abcdef'),
      Buffer.from('€'), // cut between pieces 3 and 4
      Buffer.from('xyzxy'),
      Buffer.from('01234567'), // piece 5: ASCII
      Buffer.from([0x80, 0xc0, 0xaf, 0x61, 0xf0, 0x9d, 0x84, 0x9e]), // a lone continuation, an overlong, 𝄞
    ]);
    const path = join(dir, `ctx-${n++}.txt`);
    writeFileSync(path, cut);
    expect(await readContextFile(path, pieces(8))).toBe(cut.toString('utf8'));

    // Random files of ASCII runs, characters of every width, invalid bytes and byte order
    // marks, read in pieces of 1 to 24 bytes, both joined and flat.
    const rand = prng(16);
    const parts = ['é', '€', '漢', '𝄞', '\ufeff'].map((c) => Buffer.from(c));
    parts.push(Buffer.from([0x80]), Buffer.from([0xe2, 0x82]), Buffer.from([0xf0, 0x9d]), Buffer.from([0xc0, 0xaf]), Buffer.from([0xff]));
    for (let i = 0; i < 300; i++) {
      const chunks: Buffer[] = [];
      for (let k = Math.floor(rand() * 12); k >= 0; k--) {
        chunks.push(Buffer.from('x'.repeat(Math.floor(rand() * 40))));
        chunks.push(parts[Math.floor(rand() * parts.length)]!);
      }
      const bytes = Buffer.concat(chunks);
      const p = join(dir, `fuzz-${i}.txt`);
      writeFileSync(p, bytes);
      const expected = bytes.toString('utf8');
      const pieceBytes = 1 + Math.floor(rand() * 24);
      expect(await readContextFile(p, pieces(pieceBytes)), `file ${i}, pieces of ${pieceBytes}`).toBe(expected);
      expect(await readContextFile(p, { flat: true }), `file ${i}, flat`).toBe(expected);
    }
  });

  it('parses a .json file', async () => {
    const value = { docs: ['one', 'twö'], n: 3, nested: [{ a: null }] };
    expect(await readContextFile(file(JSON.stringify(value), '.json'))).toEqual(value);
  });

  it('names the file when JSON does not parse', async () => {
    const path = file('{"a": ', '.json');
    await expect(readContextFile(path)).rejects.toThrow(ContextFileError);
    await expect(readContextFile(path)).rejects.toThrow(/is not valid JSON/);
  });
});

describe('readContextFile: text larger than one string', () => {
  it('is an array of line-ending pieces that join to the text', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `line ${i}: ${'word '.repeat(i % 7)}`);
    const text = `${lines.join('\n')}\n`;
    const value = await readContextFile(file(text), small(64));
    expect(Array.isArray(value)).toBe(true);
    const parts = value as string[];
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.join('')).toBe(text);
    for (const p of parts) {
      expect(bytesOf(p)).toBeLessThanOrEqual(64);
      expect(p.endsWith('\n')).toBe(true);
    }
    // The run's metadata describes it as the array it is.
    expect(describeContext(value)).toEqual({ type: 'array', totalChars: text.length, chunkLengths: parts.map((p) => p.length) });
  });

  it.each([4, 5, 6, 7, 9, 13, 32])('never splits a multibyte character (chunks of %i bytes)', async (chunkBytes) => {
    const parts = (await readContextFile(file(MIXED), small(chunkBytes))) as string[];
    expect(parts.join('')).toBe(MIXED);
    for (const p of parts) {
      expect(bytesOf(p)).toBeLessThanOrEqual(chunkBytes);
      // A split character would decode to U+FFFD or a lone surrogate.
      expect(p).not.toContain('\uFFFD');
      expect(p.isWellFormed()).toBe(true);
    }
  });

  it('gives the JavaScript REPL exactly those strings as `context` and `context_0`', async () => {
    const value = await readContextFile(file(MIXED), small(16));
    const repl = await jsRepl();
    await repl.addContext(0, value);
    expect(await run(repl, 'print(JSON.stringify(context))')).toBe(`${JSON.stringify(value)}\n`);
    expect(await run(repl, 'print(Array.isArray(context), context === context_0, context.join("").length)')).toBe(
      `true true ${MIXED.length}\n`,
    );
  });

  it('survives the isolate being replaced and a REPL disposed before another loads it', async () => {
    const value = await readContextFile(file(MIXED), small(16));
    const first = await jsRepl();
    await first.addContext(0, value);
    // A second context replaces the still-unused isolate; the first is loaded again from its copies.
    await first.addContext(1, 'second');
    expect(await run(first, 'print(context.join("") === context_0.join(""), context_1)')).toBe('true second\n');
    first.dispose();
    // The copies belong to the value, not to the REPL that was disposed.
    const second = await jsRepl();
    await second.addContext(0, value);
    expect(await run(second, 'print(JSON.stringify(context))')).toBe(`${JSON.stringify(value)}\n`);
  });

  it('is loaded again, whole, into the fresh isolate after a memory-limit reset', { timeout: 60_000 }, async () => {
    const value = await readContextFile(file(MIXED), small(16));
    const repl = await createIsolatedRepl({ bridge: fakeBridge(), memoryLimitMb: 64, cpuLimitMs: 30_000, wallLimitMs: 60_000 });
    repls.push(repl);
    await repl.addContext(0, value);
    const r = await repl.execute('const hoard = []; while (true) hoard.push("x".repeat(1024) + hoard.length)', SITE);
    expect(r.replReset).toBe('memory_limit');
    expect(await run(repl, 'print(JSON.stringify(context))')).toBe(`${JSON.stringify(value)}\n`);
  });

  it('copies an array that was changed after reading, so the REPL sees the change', async () => {
    const value = (await readContextFile(file(MIXED), small(16))) as SandboxValue[];
    // As read, its strings are already in the copies an isolate takes; changed, they are not.
    expect(sharedCopies(value)).toHaveLength(value.length);
    value[1] = 'replaced';
    expect(sharedCopies(value)).toBeUndefined();
    const repl = await jsRepl();
    await repl.addContext(0, value);
    expect(await run(repl, 'print(context[1], context.length)')).toBe(`replaced ${value.length}\n`);
  });

  it('gives the Python REPL the same list of strings', async () => {
    const value = (await readContextFile(file(MIXED), small(16))) as string[];
    const repl = await createPythonRepl({ bridge: fakeBridge() });
    repls.push(repl);
    await repl.addContext(0, value);
    const r = await repl.execute('import json\nprint(json.dumps(context, ensure_ascii=False))', SITE);
    expect(r.error).toBeNull();
    expect(JSON.parse(r.stdout)).toEqual(value);
    expect(value.join('')).toBe(MIXED);
  });
});

describe('readContextFile: a JSON array of strings larger than one string', () => {
  // Escapes of every kind (an escaped quote before a closing one, an escaped backslash right
  // before a closing quote, \u escapes of a surrogate pair), raw multibyte text, empty strings,
  // and white space of every kind between the tokens.
  const DOCS = [
    'plain',
    '',
    'say \\"hi\\" and \\\\ more',
    'ends with a backslash \\\\',
    'tab\\there, newline\\n, \\u00e9t\\u00e9, clef \\ud834\\udd1e',
    MIXED.replaceAll('\n', ' '),
    '\\"',
    'x'.repeat(300),
  ];
  const JSON_TEXT = ` \n[ "${DOCS.join('" ,\n\t"')}" ]\r\n`;
  const EXPECTED = JSON.parse(JSON_TEXT) as string[];

  it.each([4, 7, 16, 64, 4096])('reads it element by element as JSON.parse would (a window of %i bytes)', async (chunkBytes) => {
    const value = await readContextFile(file(JSON_TEXT, '.json'), small(chunkBytes));
    expect(value).toEqual(EXPECTED);
    expect(sharedCopies(value)).toHaveLength(EXPECTED.length);
  });

  it('reads an empty array', async () => {
    expect(await readContextFile(file(`[ ${' '.repeat(100)} ]`, '.json'), small(8))).toEqual([]);
  });

  it.each([
    [`{"a": "${'b'.repeat(80)}"}`, /must be an array of strings; it starts with '\{' at byte 0/],
    [`["ok", 3, "${'x'.repeat(80)}"]`, /element 1 is not a string \('3' at byte 7\)/],
    [`["ok", "${'x'.repeat(80)}",]`, /element 2 is not a string \('\]'/],
    [`["ok" "${'x'.repeat(80)}"]`, /expected ',' or '\]' after element 0, found '"' at byte 6/],
    [`["ok", "${'x'.repeat(80)}"] x`, /unexpected 'x' at byte 91 after the array/],
    [`["ok", "${'x'.repeat(80)}`, /ends inside the string that starts at byte 7/],
    [`["ok", "bad \\q escape ${'x'.repeat(80)}"]`, /the string at byte 7 is not valid JSON/],
  ])('refuses %j, naming the file and where', async (text, message) => {
    const path = file(text, '.json');
    const err = await readContextFile(path, small(16)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ContextFileError);
    expect((err as Error).message).toContain(`context file ${path} (${Buffer.byteLength(text)} bytes): `);
    expect((err as Error).message).toMatch(message);
  });

  it('gives the JavaScript REPL exactly those strings', async () => {
    const value = await readContextFile(file(JSON_TEXT, '.json'), small(16));
    const repl = await jsRepl();
    await repl.addContext(0, value);
    expect(await run(repl, 'print(JSON.stringify(context))')).toBe(`${JSON.stringify(EXPECTED)}\n`);
  });

  it('loads more elements than one call into the isolate takes', async () => {
    const docs = Array.from({ length: 70_000 }, (_, i) => `d${i}`);
    const value = await readContextFile(file(JSON.stringify(docs), '.json'), small(4096));
    expect(sharedCopies(value)).toHaveLength(70_000);
    const repl = await jsRepl();
    await repl.addContext(0, value);
    expect(await run(repl, 'print(context.length, context[0], context[65_535], context[65_536], context[69_999])')).toBe(
      '70000 d0 d65535 d65536 d69999\n',
    );
  });
});

describe('describeAsciiTextFile: a context described without being decoded', () => {
  it('describes an ASCII text file as reading it would', async () => {
    const path = file('plain ASCII\nacross lines\n'.repeat(50_000));
    const meta = describeAsciiTextFile(path);
    expect(meta).toEqual(describeContext(await readContextFile(path)));
    expect(meta).toMatchObject({ type: 'string', totalChars: 1_250_000 });
    // A stand-in for it says the same, and nothing else can be told from it.
    const stand = describedContext(meta!);
    expect(describeContext(stand)).toBe(meta);
    expect(Object.keys(stand as object)).toEqual([]);
  });

  it('leaves every other file to be read: non-ASCII text, a byte order mark, JSON, an empty, missing or too large file', () => {
    expect(describeAsciiTextFile(file('plain, then one é at the end'))).toBeNull();
    expect(describeAsciiTextFile(file('\ufeffmarked'))).toBeNull();
    expect(describeAsciiTextFile(file('["a", "b"]', '.json'))).toBeNull();
    expect(describeAsciiTextFile(file(''))).toBeNull();
    expect(describeAsciiTextFile(join(dir, 'missing.txt'))).toBeNull();
    expect(describeAsciiTextFile(file('x'.repeat(65)), limits(16))).toBeNull();
    expect(describeAsciiTextFile(file('x'.repeat(64)), limits(16))).toMatchObject({ totalChars: 64 });
    // Past the 1 MiB window, a non-ASCII byte is still found.
    expect(describeAsciiTextFile(file(`${'a'.repeat(3 << 20)}ü`))).toBeNull();
  });
});
