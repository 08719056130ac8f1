// Streams a log file of any supported format from disk: fixed-size chunks, decoded
// incrementally, yielded as events while reading, so memory stays bounded by one chunk plus
// the longest line, and a viewer can render before the end of a 1 GB file.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { AnyLogReader, type LogFormat, type LogItem } from '../../src-shared/codecs/detect.ts';
import type { ReadProblem } from '../../src-shared/codecs/lines.ts';
import type { LogHeader, TrajectoryEvent } from '../../src-shared/events.ts';

export interface ReadLogOptions {
  /** Called after each chunk with bytes read so far and the file size. */
  onProgress?: (bytesRead: number, totalBytes: number) => void;
  /** Bytes per read (default 1 MiB). */
  chunkBytes?: number;
  signal?: AbortSignal;
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
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    const items = reader.push(decoder.decode(chunk, { stream: true }));
    options.onProgress?.(bytes, total);
    if (items.length > 0) yield items;
  }
  const last = [...reader.push(decoder.decode()), ...reader.end()];
  if (last.length > 0) yield last;
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
