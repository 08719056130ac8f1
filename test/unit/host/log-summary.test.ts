// What the runs browser reads of a log: its head and its tail only. One turn or several, a
// log still being written, a root answer longer than the first tail, a file that is not ours.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readLogSummary } from '../../../src-main/logs/log-summary.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlm-log-summary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const header = { format: 'rlm-studio', version: 1, sessionId: 's', createdAt: '2026-01-02T03:04:05.000Z', repl: 'python' };
const env = (seq: number) => ({ v: 1, seq, t: seq, ts: '2026-01-02T03:04:05.000Z' });
// The envelope's first fields in the order the native writer puts them.
const start = (seq: number, runId: string, depth: number, turn: number, model = 'm-root') => ({
  type: 'run.start',
  runId,
  parentRunId: depth === 0 ? null : 'run-0',
  depth,
  spawnedBy: null,
  turn,
  model,
  ...env(seq),
});
const end = (
  seq: number,
  runId: string,
  depth: number,
  costUsd: number | null,
  durationMs: number,
  stopReason = 'answered',
  answer = 'ok',
) => ({
  type: 'run.end',
  runId,
  parentRunId: depth === 0 ? null : 'run-0',
  depth,
  answer,
  stopReason,
  message: null,
  iterations: 1,
  durationMs,
  usage: { inputTokens: 1, outputTokens: 1, calls: 1, costUsd },
  ...env(seq),
});
const filler = (seq: number, chars: number) => ({
  type: 'iteration.end',
  runId: 'run-0',
  parentRunId: null,
  depth: 0,
  pad: 'x'.repeat(chars),
  ...env(seq),
});

function write(name: string, lines: unknown[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return path;
}

describe('readLogSummary', () => {
  it('reads one turn: model, REPL, the root end (children ignored)', async () => {
    const p = write('one.rlm.jsonl', [
      header,
      start(0, 'run-0', 0, 0),
      start(1, 'run-1', 1, 0, 'm-sub'),
      end(2, 'run-1', 1, 5, 9),
      end(3, 'run-0', 0, 0.25, 120),
    ]);
    const s = await readLogSummary(p);
    expect(s).toMatchObject({
      native: true,
      createdAt: header.createdAt,
      repl: 'python',
      model: 'm-root',
      turns: 1,
      inTurn: false,
      allTurns: true,
    });
    expect(s.ends).toEqual([{ runId: 'run-0', stopReason: 'answered', message: null, durationMs: 120, costUsd: 0.25, calls: 1 }]);
  });

  it('a run still in its turn, and a second turn after an end', async () => {
    expect((await readLogSummary(write('open.rlm.jsonl', [header, start(0, 'run-0', 0, 0)]))).inTurn).toBe(true);
    const two = await readLogSummary(
      write('two.rlm.jsonl', [header, start(0, 'run-0', 0, 0), end(1, 'run-0', 0, 1, 10), start(2, 'run-1', 0, 1)]),
    );
    expect(two).toMatchObject({ turns: 2, inTurn: true });
  });

  it('a large log: every turn counted from the tail, or costs left unknown when a turn is out of reach', async () => {
    // Two turns, each end in the tail with the second start between them: all turns known.
    const near = await readLogSummary(
      write('near.rlm.jsonl', [
        header,
        start(0, 'run-0', 0, 0),
        filler(1, 2_000_000),
        end(2, 'run-0', 0, 1, 10),
        start(3, 'run-1', 0, 1),
        end(4, 'run-1', 0, 2, 20),
      ]),
    );
    expect(near).toMatchObject({ turns: 2, inTurn: false, allTurns: true });
    expect(near.ends.map((e) => e.costUsd)).toEqual([1, 2]);
    // The second turn's start lies before the first tail: a longer one is read.
    const far = await readLogSummary(
      write('far.rlm.jsonl', [
        header,
        start(0, 'run-0', 0, 0),
        end(1, 'run-0', 0, 1, 10),
        start(2, 'run-1', 0, 1),
        filler(3, 2_000_000),
        end(4, 'run-1', 0, 2, 20),
      ]),
    );
    expect(far).toMatchObject({ turns: 2, allTurns: true });
    expect(far.ends.map((e) => e.costUsd)).toEqual([1, 2]);
    // Turns before the first end read: not all of them.
    const early = await readLogSummary(
      write('early.rlm.jsonl', [
        header,
        start(0, 'run-0', 0, 0),
        end(1, 'run-0', 0, 1, 10),
        start(2, 'run-1', 0, 1),
        filler(3, 5_000_000),
        end(4, 'run-1', 0, 2, 20),
        start(5, 'run-2', 0, 2),
        end(6, 'run-2', 0, 3, 30),
      ]),
    );
    expect(early).toMatchObject({ turns: 3, allTurns: false });
    // A later turn longer than every tail: its end is not the first turn's root's, so not all turns were read.
    const huge = await readLogSummary(
      write('huge.rlm.jsonl', [
        header,
        start(0, 'run-0', 0, 0),
        end(1, 'run-0', 0, 1, 10),
        start(2, 'run-1', 0, 1),
        filler(3, 5_000_000),
        end(4, 'run-1', 0, 2, 20),
      ]),
    );
    expect(huge).toMatchObject({ allTurns: false });
    // One turn longer than every tail: its end is the first root's, so it is all of it.
    const single = await readLogSummary(
      write('single.rlm.jsonl', [header, start(0, 'run-0', 0, 0), filler(1, 5_000_000), end(2, 'run-0', 0, 3, 30)]),
    );
    expect(single).toMatchObject({ turns: 1, allTurns: true, inTurn: false });
  });

  it('finds a root end whose answer is longer than the first tail', async () => {
    const s = await readLogSummary(
      write('long.rlm.jsonl', [
        header,
        start(0, 'run-0', 0, 0),
        filler(1, 600_000),
        end(2, 'run-0', 0, null, 7, 'max_iterations', 'a'.repeat(1_000_000)),
      ]),
    );
    expect(s.ends).toEqual([{ runId: 'run-0', stopReason: 'max_iterations', message: null, durationMs: 7, costUsd: null, calls: 1 }]);
    expect(s.inTurn).toBe(false);
  });

  it('a file that is not a native log', async () => {
    const p = join(dir, 'other.rlm.jsonl');
    writeFileSync(p, '{"iteration": 1}\n');
    expect((await readLogSummary(p)).native).toBe(false);
  });
});
