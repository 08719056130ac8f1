// Reads a log (any supported format) chunk by chunk with the shared codecs and hands out
// events in batches. Used inside the parse worker; also callable on the main thread where
// workers do not exist (jsdom tests).
import type { LogHeader, TrajectoryEvent } from '../../src-shared/events.ts';
import { AnyLogReader, type LogFormat } from '../../src-shared/codecs/detect.ts';
import { formatProblem } from '../../src-shared/codecs/lines.ts';

export type ParseOut =
  | { kind: 'format'; format: LogFormat }
  | { kind: 'header'; header: LogHeader }
  | { kind: 'events'; events: TrajectoryEvent[] }
  | { kind: 'problems'; list: string[] }
  | { kind: 'progress'; bytes: number; total: number }
  | { kind: 'done'; events: number; ms: number }
  | { kind: 'error'; message: string };

/** A dropped/picked file, or a host session's log fetched from `/api/log` (same origin). */
export type ParseIn = { file: Blob } | { url: string };

/**
 * Batches: tiny first (the first view needs a run, not a file), then ~1 MB each: the main
 * thread deserialises a message in one go, so a batch must stay well under a frame's worth
 * of structured-clone work (4,000 events were ~35 ms plus the GC they cause).
 */
const FIRST_BATCH = 100;
const BATCH = 1000;

/** Reads a log from a URL (the host's `/api/log`) as a stream; the whole file is never one string. */
export async function parseUrl(url: string, post: (m: ParseOut) => void): Promise<void> {
  try {
    const res = await fetch(url, { cache: 'no-store' });
    if (!res.ok || !res.body) throw new Error(`GET ${new URL(url, 'http://x').pathname}: HTTP ${res.status}`);
    const total = Number(res.headers.get('content-length') ?? '0');
    await parseStream(res.body as ReadableStream<BufferSource>, total, post);
  } catch (err) {
    post({ kind: 'error', message: err instanceof Error ? err.message : String(err) });
  }
}

export function parseBlob(file: Blob, post: (m: ParseOut) => void): Promise<void> {
  return parseText(blobText(file), file.size, post);
}

/** Slices read from a file: small first (the first view), then big; the next is read while this one is parsed. */
const FIRST_SLICE = 256 * 1024;
const SLICE = 4 * 1024 * 1024;

/**
 * A file's text, read a slice ahead with `Blob.slice().arrayBuffer()` and decoded here,
 * always in whole lines, and with every line that has a non-ASCII byte decoded on its own:
 * one such line in a decoded chunk makes the whole chunk, and every line, string and value
 * cut from it, a two-byte string (twice the bytes to parse, keep and send to the main
 * thread; decoding 100 MB that way was 0.7 s). Lines and their text are exactly what one
 * streaming `TextDecoder` gives (a newline byte is never inside a UTF-8 sequence; a BOM is
 * dropped only at the very start).
 */
async function* blobText(file: Blob): AsyncGenerator<string> {
  const atStart = new TextDecoder();
  const later = new TextDecoder('utf-8', { ignoreBOM: true });
  let started = false;
  const decode = (bytes: Uint8Array): string => {
    if (started) return later.decode(bytes);
    started = true;
    return atStart.decode(bytes);
  };
  let at = 0;
  const read = (): Promise<ArrayBuffer> | null => {
    if (at >= file.size) return null;
    const from = at;
    at = Math.min(file.size, from + (from === 0 ? FIRST_SLICE : SLICE));
    return file.slice(from, at).arrayBuffer();
  };
  let carry: Uint8Array[] = [];
  let next = read();
  while (next !== null) {
    const bytes = new Uint8Array(await next);
    next = read();
    const lastNl = bytes.lastIndexOf(10);
    if (lastNl < 0) {
      carry.push(bytes);
      continue;
    }
    let lines: Uint8Array = bytes.subarray(0, lastNl + 1);
    if (carry.length > 0) {
      carry.push(lines);
      lines = concat(carry);
      carry = [];
    }
    if (lastNl + 1 < bytes.length) carry.push(bytes.subarray(lastNl + 1));
    for (const part of asciiRuns(lines)) {
      const text = decode(part);
      if (text !== '') yield text;
    }
  }
  if (carry.length > 0) {
    const text = decode(concat(carry));
    if (text !== '') yield text;
  }
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

/** The first byte at or after `from` that is not ASCII, or -1 (a word at a time where aligned). */
function nonAscii(b: Uint8Array, from: number): number {
  let i = from;
  if (b.byteOffset % 4 === 0) {
    while (i < b.length && i % 4 !== 0) {
      if ((b[i] as number) >= 0x80) return i;
      i++;
    }
    const words = new Uint32Array(b.buffer, b.byteOffset, b.length >> 2);
    let w = i >> 2;
    while (w < words.length && ((words[w] as number) & 0x80808080) === 0) w++;
    i = w << 2;
  }
  for (; i < b.length; i++) if ((b[i] as number) >= 0x80) return i;
  return -1;
}

/** Splits whole lines (ending in a newline) into runs of ASCII-only lines and single lines that are not. */
function* asciiRuns(b: Uint8Array): Generator<Uint8Array> {
  let start = 0;
  for (;;) {
    const p = nonAscii(b, start);
    if (p < 0) break;
    const lineStart = b.lastIndexOf(10, p) + 1;
    let lineEnd = b.indexOf(10, p) + 1;
    if (lineEnd === 0) lineEnd = b.length;
    if (lineStart > start) yield b.subarray(start, lineStart);
    yield b.subarray(Math.max(lineStart, start), lineEnd);
    start = lineEnd;
  }
  if (start < b.length) yield b.subarray(start);
}

function parseStream(bytesIn: ReadableStream<BufferSource>, size: number, post: (m: ParseOut) => void): Promise<void> {
  return parseText(streamText(bytesIn), size, post);
}

async function* streamText(bytesIn: ReadableStream<BufferSource>): AsyncGenerator<string> {
  const r = bytesIn.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await r.read();
    if (done) return;
    yield value;
  }
}

async function parseText(chunks: AsyncIterable<string>, size: number, post: (m: ParseOut) => void): Promise<void> {
  const t0 = performance.now();
  const reader = new AnyLogReader();
  let batch: TrajectoryEvent[] = [];
  let sent = 0;
  let bytes = 0;
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
          batch.push(item.event);
          if (batch.length >= (sent === 0 ? FIRST_BATCH : BATCH)) {
            post({ kind: 'events', events: batch });
            sent += batch.length;
            batch = [];
          }
          break;
        case 'problem':
          problems.push(formatProblem(item.problem));
          break;
      }
    }
    if (problems.length > 0) post({ kind: 'problems', list: problems });
  };
  try {
    for await (const value of chunks) {
      bytes += value.length;
      take(reader.push(value));
      const now = performance.now();
      if (now - lastProgress > 100) {
        lastProgress = now;
        post({ kind: 'progress', bytes: Math.min(bytes, size), total: size });
      }
    }
    take(reader.end());
    if (batch.length > 0) post({ kind: 'events', events: batch });
    sent += batch.length;
    post({ kind: 'progress', bytes: size, total: size });
    post({ kind: 'done', events: sent, ms: performance.now() - t0 });
  } catch (err) {
    post({ kind: 'error', message: err instanceof Error ? err.message : String(err) });
  }
}
