// Reads a log chunk by chunk in whole lines. A native log's lines are handed out as bytes
// (the page parses them: see lib/native-text.ts); any other supported format is parsed here with
// the shared codecs and handed out as events in batches. Used inside the parse worker; also
// callable on the main thread where workers do not exist (jsdom tests).
import type { TrajectoryEvent } from '../../src-shared/events.ts';
import { AnyLogReader, detectFormat, DETECT_PREFIX_CHARS } from '../../src-shared/codecs/detect.ts';
import { formatProblem } from '../../src-shared/codecs/lines.ts';
import { Elider } from './elide.ts';
import { MessageSharer } from './share-messages.ts';
import type { Cut } from '../lib/elision.ts';
import type { ParseIn, ParseOut, Post, Spent } from '../lib/parse-messages.ts';

const ELIDE_OVER = 1024;
const ELIDE_FROM_FILE_BYTES = 8 * 1024 * 1024;

function elideOver(input: ParseIn, size: number): number | null {
  if (input.elideOver !== undefined) return input.elideOver;
  return size >= ELIDE_FROM_FILE_BYTES ? ELIDE_OVER : null;
}

/**
 * Batches: tiny first (the first view needs a run, not a file: the first piece's events, or
 * the first 100 if one piece has more), then up to ~1 MB each: the main
 * thread deserialises a message in one go, so a batch must stay well under a frame's worth
 * of structured-clone work (4,000 events were ~35 ms plus the GC they cause).
 */
const FIRST_BATCH = 100;
const BATCH = 1000;

/** Reads a log from a URL (the host's `/api/log`) as a stream; the whole file is never one string. */
export async function parseUrl(input: { url: string; elideOver?: number | null }, post: Post): Promise<void> {
  try {
    const res = await fetch(input.url, { cache: 'no-store' });
    if (!res.ok || !res.body) throw new Error(`GET ${new URL(input.url, 'http://x').pathname}: HTTP ${res.status}`);
    const total = Number(res.headers.get('content-length') ?? '0');
    await parseText(linesText(streamBytes(res.body), elideOver(input, total)), total, post);
  } catch (err) {
    post({ kind: 'error', message: err instanceof Error ? err.message : String(err) });
  }
}

export function parseBlob(input: { file: Blob; elideOver?: number | null }, post: Post): Promise<void> {
  return parseText(linesText(blobBytes(input.file), elideOver(input, input.file.size)), input.file.size, post);
}

/** Slices read from a file: small first (the first view), then big; the next is read while this one is parsed. */
const FIRST_SLICE = 256 * 1024;
const SLICE = 4 * 1024 * 1024;

/**
 * Read buffers made ahead by `prepareReading`: two of SLICE bytes and the first slice's. A
 * buffer's pages are written once here, while the worker waits for a file, because on this
 * kind of machine first-touching memory costs ~3 ms per MB: a 10 MB log's read filled 8.25 MB
 * of fresh pages.
 */
const ready: ArrayBuffer[] = [];

/** Makes and touches the read buffers of the next stream read (a spare worker does this while it waits). */
export function prepareReading(): void {
  if (ready.length > 0) return;
  for (const size of [SLICE, SLICE, FIRST_SLICE]) {
    const b = new Uint8Array(size);
    for (let i = 0; i < size; i += 4096) b[i] = 1;
    ready.push(b.buffer);
  }
}

/** A read buffer of `size` bytes: one made ahead if there is one. */
function readBuffer(size: number): ArrayBuffer {
  const i = ready.findIndex((b) => b.byteLength === size);
  return i < 0 ? new ArrayBuffer(size) : (ready.splice(i, 1)[0] as ArrayBuffer);
}

/** A file's bytes: streamed into reused buffers where the browser can, else read a slice ahead. */
function blobBytes(file: Blob): AsyncIterable<Uint8Array> {
  return typeof file.stream === 'function' ? streamBytes(file.stream()) : sliceBytes(file);
}

async function* sliceBytes(file: Blob): AsyncGenerator<Uint8Array> {
  let at = 0;
  const read = (): Promise<ArrayBuffer> | null => {
    if (at >= file.size) return null;
    const from = at;
    at = Math.min(file.size, from + (from === 0 ? FIRST_SLICE : SLICE));
    return file.slice(from, at).arrayBuffer();
  };
  let next = read();
  while (next !== null) {
    const bytes = new Uint8Array(await next);
    next = read();
    yield bytes;
  }
}

/**
 * Streams being read. Chromium (156) can collect a Blob's stream while a read on it is
 * pending, and the read then never settles (100 MB loads stalled at random points in most
 * benchmark runs of four opens, none in 12 opens since); holding the stream here until it
 * is done keeps it alive.
 */
const reading = new Set<unknown>();

/**
 * A byte stream's bytes. Read into two buffers taken in turn (one is filled while the other
 * is parsed), so a 100 MB file does not mean 100 MB of fresh memory: on this kind of
 * machine first-touching memory costs ~3 ms per MB, and reading by `Blob.slice()` took
 * 0.5–0.7 s for 100 MB against 0.15–0.25 s this way. A chunk is only valid until the next
 * one is asked for. Streams that cannot be read into our buffers are read as they come.
 */
async function* streamBytes(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  reading.add(body);
  try {
    yield* streamBytesOf(body);
  } finally {
    reading.delete(body);
  }
}

async function* streamBytesOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  let reader: ReadableStreamBYOBReader;
  try {
    reader = body.getReader({ mode: 'byob' });
  } catch {
    const r = body.getReader();
    for (;;) {
      const { value, done } = await r.read();
      if (done) return;
      yield value;
    }
  }
  const fill = async (buffer: ArrayBuffer): Promise<Uint8Array | null> => {
    let buf = buffer;
    let off = 0;
    while (off < buf.byteLength) {
      const { value, done } = await reader.read(new Uint8Array(buf, off));
      if (value) {
        buf = value.buffer;
        off += value.byteLength;
      }
      if (done) break;
    }
    return off > 0 ? new Uint8Array(buf, 0, off) : null;
  };
  const free = [readBuffer(SLICE), readBuffer(SLICE)];
  // Small first: the first view needs a run, not a file.
  let pending = fill(readBuffer(FIRST_SLICE));
  for (;;) {
    const got = await pending;
    if (got === null) return;
    pending = fill(free.pop() ?? new ArrayBuffer(SLICE));
    yield got;
    if (got.buffer.byteLength === SLICE) free.push(got.buffer as ArrayBuffer);
  }
}

/**
 * What the events are parsed from, plus what was left out of it: decoded text, or for a
 * native log (decoded by the page) the bytes of whole lines, each piece in its own buffer.
 */
interface Text {
  chunks: AsyncGenerator<string | Uint8Array>;
  spent: Spent;
  /** Bytes of the file turned into text so far (for progress). */
  at: () => number;
  /** Set once the format is known, if long strings are being left out. */
  elider: () => Elider | null;
  /** Whether the first line is a native log's (known once a chunk has been handed out). */
  native: () => boolean;
}

/**
 * A log's text from its bytes, read in whole lines (a decoded line may come in parts, which the
 * reader joins), and with every line that has a non-ASCII byte decoded on its own (or the part
 * of it after an ASCII piece): one such line in a decoded chunk makes the whole chunk,
 * and every line, string and value cut from it, a two-byte string (twice the bytes to parse,
 * keep and send to the main thread; decoding 100 MB that way was 0.7 s). Lines and their
 * text are exactly what one streaming `TextDecoder` gives (a newline byte is never inside a
 * UTF-8 sequence; a BOM is dropped only at the very start). In a native log, strings of at
 * least `elide` bytes are left out first (see `elide.ts`), and the pieces stay bytes (the
 * page decodes them the same way).
 */
function linesText(bytesIn: AsyncIterable<Uint8Array>, elide: number | null): Text {
  let elider: Elider | null = null;
  let native = false;
  const spent: Spent = { read: 0, decode: 0, parse: 0, post: 0 };
  /** File offset of the first byte not yet handed out as a whole line. */
  let lineAt = 0;
  async function* chunks(): AsyncGenerator<string | Uint8Array> {
    const atStart = new TextDecoder();
    const later = new TextDecoder('utf-8', { ignoreBOM: true });
    let started = false;
    const decode = (bytes: Uint8Array): string => {
      if (started) return later.decode(bytes);
      started = true;
      return atStart.decode(bytes);
    };
    let decided = false;
    const decideFormat = (lines: Uint8Array): void => {
      decided = true;
      const head = new TextDecoder().decode(lines.subarray(0, DETECT_PREFIX_CHARS));
      native = detectFormat(head, true) === 'native';
      if (elide !== null && native) elider = new Elider(elide);
    };
    let carry: Uint8Array[] = [];
    const emit = function* (lines: Uint8Array): Generator<string | Uint8Array> {
      const t = performance.now();
      if (!decided) decideFormat(lines);
      const light = elider ? elider.lighten(lines, lineAt) : lines;
      lineAt += lines.length;
      const texts: (string | Uint8Array)[] = [];
      // Decoded text: ASCII pieces as they come, and from the first piece that is not, the
      // rest of these lines in runs (below).
      const at = native ? 0 : asciiPrefix(light, texts);
      if (at > 0) started = true;
      for (const run of asciiRuns(light.subarray(at))) {
        // A native log's pieces are whole lines (the page parses them as such); a decoded ASCII
        // run may be cut anywhere, the reader joining a line's parts.
        for (const part of native || !run.ascii ? pieces(run.bytes) : asciiPieces(run.bytes)) {
          // Copied out: `light` and the bytes read are reused for the next chunk.
          if (native) texts.push(part.slice());
          else {
            const text = decode(part);
            if (text !== '') texts.push(text);
          }
        }
      }
      spent.decode += performance.now() - t;
      yield* texts;
    };
    let t = performance.now();
    for await (const bytes of bytesIn) {
      spent.read += performance.now() - t;
      const lastNl = bytes.lastIndexOf(10);
      if (lastNl < 0) {
        carry.push(bytes.slice());
        continue;
      }
      let from = 0;
      if (carry.length > 0) {
        // Only the line cut in two is copied together (not the whole chunk: fresh memory is dear).
        const firstNl = bytes.indexOf(10);
        carry.push(bytes.subarray(0, firstNl + 1));
        yield* emit(concat(carry));
        carry = [];
        from = firstNl + 1;
      }
      const lines = bytes.subarray(from, lastNl + 1);
      // Copied: the chunk's memory is reused for the next one.
      if (lastNl + 1 < bytes.length) carry.push(bytes.slice(lastNl + 1));
      if (lines.length > 0) yield* emit(lines);
      t = performance.now();
    }
    if (carry.length > 0) yield* emit(concat(carry));
  }
  return { chunks: chunks(), spent, elider: () => elider, native: () => native, at: () => lineAt };
}

/**
 * Whole lines, about 256 KB at a time (a longer line alone). In Chromium (156), decoding
 * 4 MB at once took 23× as long as decoding the same bytes in 256 KB pieces (393 against
 * 17 ms per 48 MB): a big string is fresh memory, a small one reuses the young generation.
 */
const PIECE = 256 * 1024;

function* pieces(b: Uint8Array): Generator<Uint8Array> {
  let start = 0;
  while (b.length - start > PIECE) {
    let end = b.lastIndexOf(10, start + PIECE - 1) + 1;
    if (end <= start) end = b.indexOf(10, start + PIECE) + 1 || b.length;
    yield b.subarray(start, end);
    start = end;
  }
  if (start < b.length) yield b.subarray(start);
}

const probe = new TextDecoder('utf-8', { ignoreBOM: true });

/**
 * Decodes `b` in PIECE-byte pieces while each turns out ASCII, pushing their text; returns
 * where the first piece that is not begins (`b.length` if none). A piece is ASCII exactly when
 * its text has one character per byte and no U+FFFD: every other byte sequence decodes to
 * fewer characters, or to a replacement character (an invalid byte, or a character cut at the
 * piece's end). This replaces a scan of every byte in JavaScript (`nonAscii`) for the common
 * case; the piece that fails is decoded again with its lines, as before.
 */
export function asciiPrefix(b: Uint8Array, texts: (string | Uint8Array)[]): number {
  let at = 0;
  while (at < b.length) {
    const part = b.subarray(at, Math.min(b.length, at + PIECE));
    const text = probe.decode(part);
    if (text.length !== part.length || text.includes('\uFFFD')) break;
    texts.push(text);
    at += part.length;
  }
  return at;
}

/**
 * An ASCII run in pieces of exactly PIECE bytes: no character spans two ASCII bytes, so any
 * cut decodes the same. Finding line ends in the bytes instead (`pieces`) scanned each long
 * line of a needle search's log twice with a byte array's `lastIndexOf`/`indexOf`, several
 * times slower than the reader's search in the decoded text: 16 of a 10 MB log's 110 ms.
 */
function* asciiPieces(b: Uint8Array): Generator<Uint8Array> {
  for (let start = 0; start < b.length; start += PIECE) yield b.subarray(start, Math.min(b.length, start + PIECE));
}

function concat(parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** The first byte at or after `from` that is not ASCII, or -1 (a word at a time from the first 4-byte boundary). */
function nonAscii(b: Uint8Array, from: number): number {
  let i = from;
  // Bytes one by one up to a 4-byte boundary of the underlying buffer, then words.
  while (i < b.length && (b.byteOffset + i) % 4 !== 0) {
    if ((b[i] as number) >= 0x80) return i;
    i++;
  }
  if (i >= b.length) return -1;
  const words = new Uint32Array(b.buffer, b.byteOffset + i, (b.length - i) >> 2);
  let w = 0;
  while (w < words.length && ((words[w] as number) & 0x80808080) === 0) w++;
  i += w << 2;
  for (; i < b.length; i++) if ((b[i] as number) >= 0x80) return i;
  return -1;
}

/** Splits whole lines (ending in a newline) into runs of ASCII-only lines and single lines that are not. */
function* asciiRuns(b: Uint8Array): Generator<{ bytes: Uint8Array; ascii: boolean }> {
  let start = 0;
  for (;;) {
    const p = nonAscii(b, start);
    if (p < 0) break;
    const lineStart = b.lastIndexOf(10, p) + 1;
    let lineEnd = b.indexOf(10, p) + 1;
    if (lineEnd === 0) lineEnd = b.length;
    if (lineStart > start) yield { bytes: b.subarray(start, lineStart), ascii: true };
    yield { bytes: b.subarray(Math.max(lineStart, start), lineEnd), ascii: false };
    start = lineEnd;
  }
  if (start < b.length) yield { bytes: b.subarray(start), ascii: true };
}

async function parseText(text: Text, size: number, postOut: Post): Promise<void> {
  const t0 = performance.now();
  const spent = text.spent;
  const post = (m: ParseOut, transfer?: Transferable[]): void => {
    const t = performance.now();
    postOut(m, transfer);
    spent.post += performance.now() - t;
  };
  const reader = new AnyLogReader();
  const sharer = new MessageSharer();
  let batch: TrajectoryEvent[] = [];
  let sent = 0;
  const send = (): void => {
    post({ kind: 'events', events: batch });
    sent += batch.length;
    batch = [];
  };
  let lastProgress = 0;
  const take = (items: ReturnType<AnyLogReader['push']>): void => {
    const problems: string[] = [];
    for (const item of items) {
      switch (item.kind) {
        case 'format':
          post({ kind: 'format', format: item.format });
          break;
        case 'header':
          post({ kind: 'header', header: item.header });
          break;
        case 'metadata':
          break;
        case 'event':
          sharer.share(item.event);
          batch.push(item.event);
          if (batch.length >= (sent === 0 ? FIRST_BATCH : BATCH)) send();
          break;
        case 'problem':
          problems.push(formatProblem(item.problem));
          break;
      }
    }
    if (problems.length > 0) post({ kind: 'problems', list: problems });
  };
  let elider: Elider | null = null;
  /** Cuts already sent with the lines they were made in. */
  let cutsSent = 0;
  let native: boolean | null = null;
  try {
    for await (const value of text.chunks) {
      elider ??= text.elider();
      if (native === null) {
        native = text.native();
        if (native) post({ kind: 'format', format: 'native' });
      }
      if (typeof value !== 'string') {
        // Decoded and parsed by the page (see native-text.ts): the lines, and their cuts.
        const cuts = elider?.cuts;
        if (cuts && cuts.length > cutsSent) {
          post({ kind: 'lines', bytes: value, cuts: cuts.slice(cutsSent) }, [value.buffer as ArrayBuffer]);
          cutsSent = cuts.length;
        } else post({ kind: 'lines', bytes: value }, [value.buffer as ArrayBuffer]);
      } else {
        const tp = performance.now();
        const posted = spent.post;
        take(reader.push(value));
        // Until the first view: whatever a piece gave (a needle search's 100 events can be 12 MB in).
        if (sent === 0 && batch.length > 0) send();
        spent.parse += performance.now() - tp - (spent.post - posted);
      }
      const now = performance.now();
      if (now - lastProgress > 100) {
        lastProgress = now;
        post({ kind: 'progress', bytes: Math.min(text.at(), size), total: size });
      }
    }
    if (!native) {
      take(reader.end());
      if (batch.length > 0) send();
    }
    post({ kind: 'progress', bytes: size, total: size });
    post({ kind: 'done', ms: performance.now() - t0, spent });
  } catch (err) {
    post({ kind: 'error', message: err instanceof Error ? err.message : String(err) });
  }
}

/** Longest single read when fetching left-out texts (nearby ones are read together). */
const TEXT_READ = 8 * 1024 * 1024;
const TEXT_GAP = 64 * 1024;

/**
 * The whole texts of left-out strings, read again from the log (a file, or the host's
 * `/api/log` by byte range). A string that no longer parses is null, with a problem.
 */
export async function readTexts(source: Blob | string, cuts: readonly Cut[]): Promise<{ texts: (string | null)[]; problems: string[] }> {
  const texts: (string | null)[] = new Array<string | null>(cuts.length).fill(null);
  const problems: string[] = [];
  const order = cuts.map((_, i) => i).sort((a, b) => (cuts[a] as Cut).start - (cuts[b] as Cut).start);
  const decoder = new TextDecoder();
  let i = 0;
  while (i < order.length) {
    const first = cuts[order[i] as number] as Cut;
    let j = i + 1;
    let end = first.end;
    while (j < order.length) {
      const c = cuts[order[j] as number] as Cut;
      if (c.start - end > TEXT_GAP || c.end - first.start > TEXT_READ) break;
      end = Math.max(end, c.end);
      j++;
    }
    const bytes = await readRange(source, first.start, end);
    for (let k = i; k < j; k++) {
      const idx = order[k] as number;
      const c = cuts[idx] as Cut;
      try {
        const v: unknown = JSON.parse(decoder.decode(bytes.subarray(c.start - first.start, c.end - first.start)));
        if (typeof v !== 'string') throw new Error('not a string');
        texts[idx] = v;
      } catch (err) {
        problems.push(
          `bytes ${c.start}–${c.end}: the text could not be read again (${err instanceof Error ? err.message : String(err)}); was the file changed?`,
        );
      }
    }
    i = j;
  }
  return { texts, problems };
}

async function readRange(source: Blob | string, start: number, end: number): Promise<Uint8Array> {
  if (typeof source !== 'string') return new Uint8Array(await source.slice(start, end).arrayBuffer());
  const res = await fetch(source, { cache: 'no-store', headers: { Range: `bytes=${start}-${end - 1}` } });
  if (res.status !== 206) throw new Error(`GET ${new URL(source, 'http://x').pathname} bytes ${start}–${end}: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}
