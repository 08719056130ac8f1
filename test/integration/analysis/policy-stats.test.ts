// `rlm-studio stats DIR --json` and `--compare` over generated folders whose answers are known
// by construction: task i of an evaluation makes i sub-calls; A got the even tasks right, B
// the first four; a folder of plain logs repeats one question three times.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';
import { registerStats } from '../../../src-main/cli/commands/stats.ts';
import { UsageError } from '../../../src-main/cli/errors.ts';
import { policySession, writeEvalDir, writeNativeLog } from '../../support/policy-sessions.ts';
import { type InProcessResult, runInProcess } from '../support/in-process-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlm-policy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const cli = (...args: string[]): Promise<InProcessResult> => runInProcess([registerStats], args);

const A = join(dir, 'eval-a');
const B = join(dir, 'eval-b');
const ids = Array.from({ length: 8 }, (_, i) => i);
writeEvalDir(
  A,
  ids.map((i) => ({ id: `t${i}`, correct: i % 2 === 0, shape: { query: `q${i}`, calls: [i, 0] } })),
);
writeEvalDir(
  B,
  ids.map((i) => ({ id: `t${i}`, correct: i < 4, shape: { query: `q${i}`, calls: [1] } })),
);
const LOGS = join(dir, 'logs');
mkdirSync(join(LOGS, 'nested'), { recursive: true });
[1, 2, 6].forEach((n, k) =>
  writeNativeLog(join(LOGS, k === 2 ? 'nested' : '', `rep${k}.rlm.jsonl`), policySession({ query: 'same question', calls: [n] }, `r${k}`)),
);
writeNativeLog(join(LOGS, 'other.rlm.jsonl'), policySession({ query: 'another', calls: [3, 3], children: 2 }, 'o'));

interface Q {
  p25: number;
  p50: number;
  p75: number;
  min: number;
  max: number;
  mean: number;
  n: number;
}
interface Json {
  sessions: number;
  llmCalls: number;
  source: string;
  logs: number;
  policy: {
    sessions: { taskId: string | null; correct: boolean | null; figures: Record<string, number> }[];
    aggregate: {
      sessions: number;
      distributions: Record<string, { quartiles: Q; histogram: { edges: number[]; counts: number[] } }>;
      byCorrectness: {
        correct: number;
        incorrect: number;
        correctDist: Record<string, { quartiles: Q; histogram: { counts: number[] } }>;
        incorrectDist: Record<string, { quartiles: Q; histogram: { counts: number[] } }>;
      } | null;
      repeats: { taskLabel: string; sessions: number; spread: Record<string, { mean: number; variance: number }> }[];
    };
  };
}

describe('rlm-studio stats over folders', () => {
  it('an evaluation: distributions, the correct/incorrect split (Figure 10), today’s totals summed', async () => {
    const r = await cli('stats', A, '--json');
    expect(r.error).toBeNull();
    const o = JSON.parse(r.out) as Json;
    expect(o.source).toBe('evaluation');
    expect(o.logs).toBe(8);
    expect(o.sessions).toBe(8);
    expect(o.llmCalls).toBe(28); // 0 + 1 + … + 7
    expect(o.policy.sessions.map((s) => [s.taskId, s.correct, s.figures['subcalls']])).toEqual(ids.map((i) => [`t${i}`, i % 2 === 0, i]));
    const sub = o.policy.aggregate.distributions['subcalls']!;
    expect(sub.quartiles).toMatchObject({ p25: 1.75, p50: 3.5, p75: 5.25, min: 0, max: 7, mean: 3.5, n: 8 });
    expect(sub.histogram.counts).toEqual([1, 1, 1, 1, 1, 1, 1, 1]);
    expect(o.policy.aggregate.distributions['rootIterations']!.quartiles).toMatchObject({ min: 2, max: 2 });
    const c = o.policy.aggregate.byCorrectness!;
    expect([c.correct, c.incorrect]).toEqual([4, 4]);
    expect(c.correctDist['subcalls']!.quartiles).toMatchObject({ p50: 3, min: 0, max: 6, n: 4 });
    expect(c.incorrectDist['subcalls']!.quartiles).toMatchObject({ p50: 4, min: 1, max: 7, n: 4 });
    // Both sides binned over the same range, one bin per value: they line up.
    expect(c.correctDist['subcalls']!.histogram.counts).toEqual([1, 0, 1, 0, 1, 0, 1, 0]);
    expect(c.incorrectDist['subcalls']!.histogram.counts).toEqual([0, 1, 0, 1, 0, 1, 0, 1]);
    expect(o.policy.aggregate.repeats).toEqual([]);
  });

  it('a folder of logs: found recursively, repeats of one question grouped with their variance', async () => {
    const r = await cli('stats', LOGS, '--json');
    expect(r.error).toBeNull();
    const o = JSON.parse(r.out) as Json;
    expect([o.source, o.logs, o.sessions]).toEqual(['folder', 4, 4]);
    expect(o.policy.aggregate.byCorrectness).toBeNull();
    const [rep] = o.policy.aggregate.repeats;
    expect(o.policy.aggregate.repeats).toHaveLength(1);
    expect(rep!.taskLabel).toBe('same question');
    expect(rep!.sessions).toBe(3);
    expect(rep!.spread['subcalls']).toMatchObject({ mean: 3, variance: 14 / 3 });
    expect(o.policy.aggregate.distributions['childRuns']!.quartiles).toMatchObject({ max: 2, n: 4 });
  });

  it('--compare: which tasks each configuration solved (Figure 9), as JSON and as text', async () => {
    const r = await cli('stats', A, '--compare', B, '--json');
    expect(r.error).toBeNull();
    const o = JSON.parse(r.out) as {
      a: Json;
      b: Json;
      intersection: Record<string, { taskLabel: string; logsA: string[]; logsB: string[] }[]>;
    };
    const cell = (k: string) => o.intersection[k]!.map((t) => t.taskLabel);
    expect(cell('both')).toEqual(['t0', 't2']);
    expect(cell('onlyA')).toEqual(['t4', 't6']);
    expect(cell('onlyB')).toEqual(['t1', 't3']);
    expect(cell('neither')).toEqual(['t5', 't7']);
    expect(cell('notCompared')).toEqual([]);
    expect(o.intersection['onlyA']![0]!.logsA[0]).toMatch(/eval-a\/logs\/t4\.rlm\.jsonl$/);
    expect(o.b.sessions).toBe(8);
    const text = await cli('stats', A, '--compare', B);
    expect(text.out).toMatch(/solved by both: 2\nonly A: 2 — t4, t6\nonly B: 2 — t1, t3\nneither: 2/);
  });

  it('text output ends with a compact policy summary', async () => {
    const r = await cli('stats', A);
    expect(r.out).toMatch(/^evaluation: 8 log\(s\)/);
    expect(r.out).toMatch(/sub-calls\s+3\.5 \[1\.75–5\.25\] max 7/);
    expect(r.out).toMatch(/correct 4, incorrect 4; sub-calls per session: correct 3 \[1\.5–4\.5\] max 6, incorrect 4 \[2\.5–5\.5\] max 7/);
  });

  it('a side with no sessions reads "none", not an empty range', async () => {
    const allRight = join(dir, 'eval-all-right');
    writeEvalDir(
      allRight,
      [1, 3].map((i) => ({ id: `t${i}`, correct: true, shape: { query: `q${i}`, calls: [i] } })),
    );
    const r = await cli('stats', allRight);
    expect(r.out).toMatch(/correct 2, incorrect 0; sub-calls per session: correct 2 \[1\.5–2\.5\] max 3, incorrect none\n/);
  });

  it('logs that record no batches (the reference library’s) say so, not "largest batch 0" (issue 40)', async () => {
    const reference = await cli('stats', join(REFERENCE_FIXTURES, 'a_needle.jsonl'));
    expect(reference.out).toMatch(/largest batch\s+none recorded\n/);
    const batched = await cli('stats', A);
    expect(batched.out).toMatch(/largest batch\s+\d/);
  });

  it('a missing path is a usage error naming it; a non-log file in a folder is skipped with a note', async () => {
    const missing = await cli('stats', join(dir, 'nope'));
    expect(missing.error).toBeInstanceOf(UsageError);
    expect((missing.error as Error).message).toMatch(/nope: no such file/);
    const bad = await cli('stats', A, '--bins', '0');
    expect(bad.error).not.toBeNull();
    const mixed = join(dir, 'mixed');
    mkdirSync(mixed);
    writeFileSync(join(mixed, 'notes.jsonl'), 'hello\n');
    writeNativeLog(join(mixed, 'one.rlm.jsonl'), policySession({ query: 'q', calls: [2] }));
    const r = await cli('stats', mixed, '--json');
    expect(r.error).toBeNull();
    expect(r.err).toMatch(/notes\.jsonl: skipped, not a log in a known format/);
    expect((JSON.parse(r.out) as Json).logs).toBe(1);
  });
});
