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

export interface ParseIn {
  file: Blob;
}

/** Batches: small first (first view fast), then larger (fewer structured-clone messages). */
const FIRST_BATCH = 500;
const BATCH = 4000;

export async function parseBlob(file: Blob, post: (m: ParseOut) => void): Promise<void> {
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
    const stream = file.stream().pipeThrough(new TextDecoderStream());
    const r = stream.getReader();
    for (;;) {
      const { value, done } = await r.read();
      if (done) break;
      bytes += value.length;
      take(reader.push(value));
      const now = performance.now();
      if (now - lastProgress > 100) {
        lastProgress = now;
        post({ kind: 'progress', bytes: Math.min(bytes, file.size), total: file.size });
      }
    }
    take(reader.end());
    if (batch.length > 0) post({ kind: 'events', events: batch });
    sent += batch.length;
    post({ kind: 'progress', bytes: file.size, total: file.size });
    post({ kind: 'done', events: sent, ms: performance.now() - t0 });
  } catch (err) {
    post({ kind: 'error', message: err instanceof Error ? err.message : String(err) });
  }
}
