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
  return parseText(streamText(file.stream() as ReadableStream<BufferSource>), file.size, post);
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
