import { mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { asSessionId, type TrajectoryEvent } from '../../../src-shared/events.ts';
import { encodeLine, makeHeader } from '../../../src-shared/codecs/native-lines.ts';
import { StatsAccumulator } from '../../../src-shared/trajectory/log-stats.ts';
import { readLog, readLogFile } from '../../../src-main/logs/read-log.ts';
import { scenario } from '../../unit/trajectory/synthetic.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const dir = mkdtempSync(join(tmpdir(), 'rlm-read-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The event with every run and call id prefixed (a fresh copy of the session). */
function renamed(e: TrajectoryEvent, prefix: string): TrajectoryEvent {
  const o = { ...e } as Record<string, unknown>;
  for (const k of ['runId', 'parentRunId', 'callId', 'childRunId']) if (typeof o[k] === 'string') o[k] = prefix + o[k];
  const sp = o['spawnedBy'] as { runId: string; callId: string } | null | undefined;
  if (sp) o['spawnedBy'] = { ...sp, runId: prefix + sp.runId, callId: prefix + sp.callId };
  return o as unknown as TrajectoryEvent;
}

/** Writes `copies` sessions of the synthetic scenario with big stdout, as one native log. */
function writeBigLog(path: string, targetBytes: number): { events: number; sessions: number } {
  const fd = openSync(path, 'w');
  writeSync(fd, encodeLine(makeHeader(asSessionId('big'), new Date(Date.UTC(2026, 0, 1)))));
  const base = scenario().events;
  const pad = 'x'.repeat(2000);
  let written = 0;
  let seq = 0;
  let events = 0;
  let sessions = 0;
  let copy = 0;
  while (written < targetBytes) {
    const batch: string[] = [];
    for (const e of base) {
      // Give each copy its own run and call ids; keep sequence numbers increasing.
      const ev = renamed(e, `c${copy}-`) as TrajectoryEvent & { stdout?: string };
      ev.seq = seq++;
      if (ev.type === 'block.end') ev.stdout = pad;
      batch.push(encodeLine(ev));
      events++;
    }
    sessions += 2;
    copy++;
    const text = batch.join('');
    writeSync(fd, text);
    written += Buffer.byteLength(text);
  }
  closeSync(fd);
  return { events, sessions };
}

describe('streaming log reader', () => {
  it('reads a ~120 MB native log with bounded memory, progress, and events before the end', async () => {
    const path = join(dir, 'big.rlm.jsonl');
    const { events, sessions } = writeBigLog(path, 120 * 1024 * 1024);
    const size = statSync(path).size;
    gc();
    const baseHeap = process.memoryUsage().heapUsed;
    let peakHeap = baseHeap;
    let peakRetained = baseHeap;
    let lastProgress = 0;
    let progressCalls = 0;
    let firstEventAtBytes = -1;
    const acc = new StatsAccumulator();
    let count = 0;
    const t0 = performance.now();
    for await (const item of readLog(path, {
      onProgress: (bytes, total) => {
        expect(total).toBe(size);
        expect(bytes).toBeGreaterThanOrEqual(lastProgress);
        lastProgress = bytes;
        progressCalls++;
        const h = process.memoryUsage().heapUsed;
        if (h > peakHeap) peakHeap = h;
        // Now and then, what is actually retained (garbage collected first).
        if (progressCalls % 25 === 0) {
          gc();
          peakRetained = Math.max(peakRetained, process.memoryUsage().heapUsed);
        }
      },
    })) {
      if (item.kind === 'event') {
        if (firstEventAtBytes < 0) firstEventAtBytes = lastProgress;
        acc.push(item.event);
        count++;
      } else if (item.kind === 'problem') throw new Error(item.problem.message);
    }
    const seconds = (performance.now() - t0) / 1000;
    const mbps = size / 1024 / 1024 / seconds;
    console.log(
      `streaming reader: ${(size / 1024 / 1024).toFixed(0)} MB, ${count} events in ${seconds.toFixed(2)} s = ${mbps.toFixed(0)} MB/s; peak heap growth ${((peakHeap - baseHeap) / 1024 / 1024).toFixed(0)} MB, retained ${((peakRetained - baseHeap) / 1024 / 1024).toFixed(1)} MB`,
    );
    expect(count).toBe(events);
    expect(lastProgress).toBe(size);
    expect(progressCalls).toBeGreaterThan(50);
    expect(firstEventAtBytes).toBeLessThan(size / 10);
    const stats = acc.result();
    expect(stats.sessions).toBe(sessions);
    expect(stats.runs).toBe(sessions * 2);
    // Heap well under the file size: only the current chunk, lines in flight and the stats
    // counters are retained; the peak includes not-yet-collected garbage.
    expect(peakRetained - baseHeap).toBeLessThan(size / 8);
    expect(peakHeap - baseHeap).toBeLessThan(size);
  });

  it('reads a reference-library log whose single line is tens of megabytes', async () => {
    const path = join(dir, 'huge-line.jsonl');
    const meta = {
      type: 'metadata',
      timestamp: '2026-12-02T09:30:59.155653',
      root_model: 'm',
      max_depth: 1,
      max_iterations: 3,
      backend: 'openai',
      backend_kwargs: {},
      environment_type: 'local',
      environment_kwargs: {},
      other_backends: null,
    };
    const big = 'y'.repeat(30 * 1024 * 1024);
    const it = {
      type: 'iteration',
      iteration: 1,
      timestamp: '2026-12-02T09:31:00.000000',
      prompt: [
        { role: 'system', content: 's' },
        { role: 'user', content: 'm' },
        { role: 'user', content: 't' },
      ],
      response: '```repl\nprint(x)\n```',
      code_blocks: [
        { code: 'print(x)', result: { stdout: big, stderr: '', locals: {}, execution_time: 0.1, rlm_calls: [], final_answer: 'ok' } },
      ],
      final_answer: 'ok',
      iteration_time: 0.5,
    };
    writeFileSync(path, `${JSON.stringify(meta)}\n${JSON.stringify(it)}\n`);
    const got = await readLogFile(path, { chunkBytes: 64 * 1024 });
    expect(got.format).toBe('rlm-python');
    expect(got.problems).toEqual([]);
    const end = got.events.find((e) => e.type === 'block.end');
    expect(end?.type === 'block.end' && end.stdout.length).toBe(big.length);
  });

  it('detects the format from content whatever the file is called, and names unknown content', async () => {
    const p1 = join(dir, 'looks-native.rlm.jsonl');
    writeFileSync(p1, '{"type":"metadata","timestamp":"2026-01-01T00:00:00","root_model":"m","max_depth":1,"max_iterations":2}\n');
    expect((await readLogFile(p1)).format).toBe('rlm-python');
    const p2 = join(dir, 'notes.txt');
    writeFileSync(p2, 'hello world\n');
    const r = await readLogFile(p2);
    expect(r.format).toBeNull();
    expect(r.problems[0]?.message).toMatch(/not a log this reader knows/);
    const p3 = join(dir, 'empty.jsonl');
    writeFileSync(p3, '');
    expect((await readLogFile(p3)).problems[0]?.message).toMatch(/empty/);
  });
});
