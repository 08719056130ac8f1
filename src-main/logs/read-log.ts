// Streams a log file of any supported format from disk: fixed-size chunks, decoded
// incrementally, yielded as events while reading, so memory stays bounded by one chunk plus
// the longest line, and a viewer can render before the end of a 1 GB file.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { AnyLogReader, detectFormat, DETECT_PREFIX_CHARS, type LogFormat, type LogItem } from '../../src-shared/codecs/detect.ts';
import { LocalsShortener, SHORTEN_LOCALS_FROM_BYTES } from '../../src-shared/codecs/rlm-python-locals.ts';
import type { ReadProblem } from '../../src-shared/codecs/lines.ts';
import type { LogHeader, TrajectoryEvent } from '../../src-shared/events.ts';

export interface ReadLogOptions {
  /** Called after each chunk with bytes read so far and the file size. */
  onProgress?: (bytesRead: number, totalBytes: number) => void;
  /** Bytes per read (default 1 MiB). */
  chunkBytes?: number;
  signal?: AbortSignal;
  /** Reference logs of at least this many bytes have their long `locals` cut before decoding (default SHORTEN_LOCALS_FROM_BYTES). */
  shortenLocalsFrom?: number;
}

/**
 * Yields what each chunk of the file gave (format, header/metadata, events, problems), one
 * array per chunk: cheaper than one await per event on files with millions of them.
 */
export async function* readLogBatches(path: string, options: ReadLogOptions = {}): AsyncGenerator<LogItem[]> {
  const total = (await stat(path)).size;
  const reader = new AnyLogReader();
  const decoder = new TextDecoder('utf-8', { fatal: false });
  const stream = createReadStream(path, { highWaterMark: options.chunkBytes ?? 1 << 20, signal: options.signal });
  let bytes = 0;
  /** A big reference log's long `locals` are cut before decoding (exact: see rlm-python-locals.ts). */
  let locals: LocalsShortener | null = null;
  /** What follows the last newline so far, while shortening (it is given whole lines only). */
  let carry: Buffer[] = [];
  for await (const read of stream as AsyncIterable<Buffer>) {
    // Decided from the file's first bytes, so the shortener starts at a line's start.
    if (bytes === 0 && total >= (options.shortenLocalsFrom ?? SHORTEN_LOCALS_FROM_BYTES) && isReferenceLog(read))
      locals = new LocalsShortener(0);
    bytes += read.length;
    let chunk: Uint8Array = read;
    if (locals) {
      const nl = read.lastIndexOf(10);
      if (nl < 0) {
        // Inside a long line: joined once its end arrives (not at every chunk).
        carry.push(read);
        continue;
      }
      const lines = carry.length > 0 ? Buffer.concat([...carry, read.subarray(0, nl + 1)]) : read.subarray(0, nl + 1);
      carry = nl + 1 < read.length ? [read.subarray(nl + 1)] : [];
      chunk = locals.shorten(lines);
    }
    const items = reader.push(decoder.decode(chunk, { stream: true }));
    options.onProgress?.(bytes, total);
    if (items.length > 0) yield items;
  }
  const last = [...reader.push(decoder.decode(Buffer.concat(carry))), ...reader.end()];
  if (last.length > 0) yield last;
}

function isReferenceLog(start: Buffer): boolean {
  return detectFormat(new TextDecoder().decode(start.subarray(0, DETECT_PREFIX_CHARS)), true) === 'rlm-python';
}

/** Yields format, header/metadata, events and problems as the file is read. */
export async function* readLog(path: string, options: ReadLogOptions = {}): AsyncGenerator<LogItem> {
  for await (const batch of readLogBatches(path, options)) yield* batch;
}

export interface LogContents {
  format: LogFormat | null;
  header: LogHeader | null;
  events: TrajectoryEvent[];
  problems: ReadProblem[];
}

/** Reads a whole log into memory (events kept); use `readLog` to stream. */
export async function readLogFile(path: string, options: ReadLogOptions = {}): Promise<LogContents> {
  const out: LogContents = { format: null, header: null, events: [], problems: [] };
  for await (const batch of readLogBatches(path, options))
    for (const item of batch) {
      if (item.kind === 'format') out.format = item.format;
      else if (item.kind === 'header') out.header = item.header;
      else if (item.kind === 'event') out.events.push(item.event);
      else if (item.kind === 'problem') out.problems.push(item.problem);
    }
  return out;
}
