// Big synthetic logs for the benchmarks: the reference fixtures relabelled and repeated. Written
// to disk in chunks, so a 1 GB log never exists as one string (V8 strings stop near 512 MiB).
import { closeSync, existsSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { readRlmPythonText } from '../../../src-shared/codecs/rlm-python-import.ts';
import { encodeNative } from '../../../src-shared/codecs/native.ts';
import { makeHeader } from '../../../src-shared/codecs/native-lines.ts';
import { asSessionId, type TrajectoryEvent } from '../../../src-shared/events.ts';
import { FIXTURES } from '../support.ts';

function relabel(e: TrajectoryEvent, k: number | string, seq: number, tOff: number): TrajectoryEvent {
  const r = (id: string | null) => (id === null ? null : `${id}-${k}`);
  const x = { ...e, seq, t: e.t + tOff, runId: r(e.runId), parentRunId: r(e.parentRunId) } as Record<string, unknown>;
  if ('callId' in e) x.callId = `${e.callId}-${k}`;
  if (e.type === 'subcall.start') x.childRunId = r(e.childRunId);
  if (e.type === 'run.start' && e.spawnedBy)
    x.spawnedBy = { ...e.spawnedBy, runId: r(e.spawnedBy.runId), callId: `${e.spawnedBy.callId}-${k}` };
  return x as unknown as TrajectoryEvent;
}

/** A native log of about `targetBytes` (reused when `file` already has that size class). */
export function bigLog(file: string, targetBytes: number): string {
  if (existsSync(file) && statSync(file).size >= targetBytes && statSync(file).size < targetBytes * 1.05) return file;
  const base = readRlmPythonText(readFileSync(join(FIXTURES, 'c_recursive.jsonl'), 'utf8')).events.concat(
    // Run and call ids of the second fixture made distinct from the first's.
    readRlmPythonText(readFileSync(join(FIXTURES, 'b_aggregate.jsonl'), 'utf8')).events.map((e) => relabel(e, 'b', e.seq, 0)),
  );
  const fd = openSync(file, 'w');
  let bytes = 0;
  let seq = 0;
  const header = makeHeader(asSessionId('perf'), new Date());
  let first = true;
  let chunk: string[] = [];
  let chunkLen = 0;
  for (let k = 0; bytes < targetBytes; k++) {
    const evs = base.map((e) => relabel(e, k, seq++, k * 1000));
    for (const line of encodeNative(header, evs)) {
      if (!first && line.startsWith('{"format"')) continue;
      first = false;
      chunk.push(line);
      chunkLen += line.length;
      bytes += Buffer.byteLength(line);
    }
    if (chunkLen > 8 << 20) {
      writeSync(fd, chunk.join(''));
      chunk = [];
      chunkLen = 0;
    }
  }
  writeSync(fd, chunk.join(''));
  closeSync(fd);
  return file;
}
