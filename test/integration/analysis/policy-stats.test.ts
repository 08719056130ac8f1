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
    sessions: { taskId: string | null; repeat: number | null; correct: boolean | null; figures: Record<string, number> }[];
    aggregate: {
      sessions: number;
      distributions: Record<string, { quartiles: Q; histogram: { edges: number[]; counts: number[] } }>;
      byCorrectness: {
        correct: number;
        incorrect: number;
        correctDist: Record<string, { quartiles: Q; histogram: { counts: number[] } }>;
        incorrectDist: Record<string, { quartiles: Q; histogram: { counts: number[] } }>;
      } | null;
      repeats: {
        taskLabel: string;
        sessions: number;
        correct: number | null;
        spread: Record<string, { mean: number; variance: number }>;
      }[];
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

  it('--repeat sessions are one task: grouped with their spread, and compared task by task', async () => {
    // R ran t0..t3 three times each (t0: 3/3, t1: 2/3, t2: 1/3, t3: 0/3 correct; sub-calls 1, 2, 3 by repeat);
    // S ran each once (t0, t1 wrong; t2, t3 right).
    const R = join(dir, 'eval-repeats');
    const S = join(dir, 'eval-once');
    writeEvalDir(
      R,
      [0, 1, 2, 3].flatMap((i) =>
        [0, 1, 2].map((r) => ({ id: `t${i}`, repeat: r, correct: r < 3 - i, shape: { query: `q${i}`, calls: [r + 1] } })),
      ),
    );
    writeEvalDir(
      S,
      [0, 1, 2, 3].map((i) => ({ id: `t${i}`, correct: i >= 2, shape: { query: `q${i}`, calls: [1] } })),
    );
    const one = JSON.parse((await cli('stats', R, '--json')).out) as Json;
    expect(one.policy.sessions.map((s) => `${s.taskId}/${s.repeat}`).slice(0, 4)).toEqual(['t0/0', 't0/1', 't0/2', 't1/0']);
    const reps = one.policy.aggregate.repeats;
    expect(reps.map((g) => [g.taskLabel, g.sessions, g.correct])).toEqual([
      ['t0', 3, 3],
      ['t1', 3, 2],
      ['t2', 3, 1],
      ['t3', 3, 0],
    ]);
    expect(reps[0]!.spread['subcalls']).toMatchObject({ mean: 2, variance: 2 / 3 });
    const r = await cli('stats', R, '--compare', S, '--json');
    const o = JSON.parse(r.out) as {
      intersection: Record<
        string,
        { taskLabel: string; outcomeA: { correct: number; known: number }; outcomeB: { correct: number; known: number } }[]
      >;
    };
    const cell = (k: string) => o.intersection[k]!.map((t) => t.taskLabel);
    expect([cell('both'), cell('onlyA'), cell('onlyB'), cell('neither'), cell('notCompared')]).toEqual([
      [],
      ['t0', 't1'],
      ['t2', 't3'],
      [],
      [],
    ]);
    expect(o.intersection['onlyA']![1]).toMatchObject({ outcomeA: { correct: 2, known: 3 }, outcomeB: { correct: 0, known: 1 } });
    const text = (await cli('stats', R, '--compare', S)).out;
    expect(text).toMatch(/^A: .*eval-repeats \(evaluation, 12 session\(s\) of 4 task\(s\), 6\/12 correct\)$/m);
    expect(text).toMatch(/^B: .*eval-once \(evaluation, 4 task\(s\), 2\/4 correct\)$/m);
    expect(text).toMatch(/only A: 2 — t0 \(3\/3 vs 0\/1\), t1 \(2\/3 vs 0\/1\)\nonly B: 2 — t2 \(1\/3 vs 1\/1\), t3 \(0\/3 vs 1\/1\)/);
    expect(text).not.toMatch(/not compared/);
  });

  it('a cost no call recorded is null in --json (top level, per session, per run, per depth) and "unknown" in the text', async () => {
    const U = join(dir, 'eval-unpriced');
    writeEvalDir(
      U,
      [0, 1].map((i) => ({ id: `u${i}`, correct: i === 0, shape: { query: `q${i}`, calls: [2], children: 1, unpriced: true } })),
    );
    const r = await cli('stats', U, '--json');
    expect(r.error).toBeNull();
    const o = JSON.parse(r.out) as {
      costUsd: number | null;
      byModel: Record<string, { costUsd: number | null }>;
      policy: {
        sessions: {
          figures: Record<string, number | null>;
          runs: { tokens: Record<string, { calls: number; costUsd: number | null }> }[];
          depthProfile: { costUsd: number | null }[];
        }[];
        aggregate: { distributions: Record<string, { quartiles: Q }> };
      };
    };
    expect(o.costUsd).toBeNull();
    expect(Object.values(o.byModel).map((m) => m.costUsd)).toEqual([null, null]);
    for (const s of o.policy.sessions) {
      expect([s.figures['costUsd'], s.figures['rootCostShare'], s.figures['subcallCostShare'], s.figures['childCostShare']]).toEqual([
        null,
        null,
        null,
        null,
      ]);
      expect(s.figures['inputTokens']).toBeGreaterThan(0);
      const root = s.runs[0]!.tokens;
      expect([root['root']!.costUsd, root['subcalls']!.costUsd, root['children']!.costUsd]).toEqual([null, null, null]);
      expect(root['subcalls']!.calls).toBe(2);
      expect(s.runs[1]!.tokens['subcalls']).toEqual({ calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 }); // nothing spent is $0
      expect(s.depthProfile.map((d) => d.costUsd)).toEqual([null, null]);
    }
    // No session has a price: its cost distribution has no quartiles at all (not quartiles of 0).
    expect(o.policy.aggregate.distributions['costUsd']!.quartiles).toBeNull();
    expect(o.policy.aggregate.distributions['inputTokens']!.quartiles?.n).toBe(2);
    const text = await cli('stats', U);
    expect(text.out).toMatch(/cost \(USD\)\s+unknown \(no call recorded a price\)/);
    // A priced evaluation beside it: the sum is a number again, the unpriced models named.
    const both = await cli('stats', join(U, 'logs', 'u0.rlm.jsonl'), '--json');
    expect((JSON.parse(both.out) as { costUsd: number | null }).costUsd).toBeNull();
    const priced = JSON.parse((await cli('stats', A, '--json')).out) as {
      costUsd: number | null;
      policy: { sessions: { figures: Record<string, number | null> }[] };
    };
    expect(priced.costUsd).toBeCloseTo(8 * 2 * 0.001 + 28 * 0.0001, 9);
    expect(priced.policy.sessions[0]!.figures['costUsd']).toBeCloseTo(0.002, 9);
  });

  it('--compare: the paired comparison by task, in --json and as text, reproducible from its seed', async () => {
    type Metric = {
      metric: string;
      tasks: number;
      diff: number;
      se: number;
      ci: { low: number; high: number };
      tTest: { pValue: number };
      test: Record<string, unknown>;
    };
    const run = async (...extra: string[]) =>
      (JSON.parse((await cli('stats', A, '--compare', B, '--json', ...extra)).out) as { paired: { seed: number; metrics: Metric[] } })
        .paired;
    const p = await run();
    expect(p.seed).toBe(1);
    expect(p.metrics.map((m) => m.metric)).toEqual(['accuracy', 'cost', 'tokens', 'time', 'subcalls']);
    const by = (k: string) => p.metrics.find((m) => m.metric === k)!;
    // A solved t4, t6 that B did not; B solved t1, t3 that A did not.
    expect(by('accuracy')).toMatchObject({
      tasks: 8,
      diff: 0,
      test: { name: 'exact McNemar', aBetter: 2, bBetter: 2, ties: 4, pValue: 1 },
    });
    // Sub-calls: task i makes i in A, 1 in B: d = i − 1.
    const sub = by('subcalls');
    expect(sub.diff).toBe(2.5);
    expect(sub.se).toBeCloseTo(Math.sqrt(6 / 8), 12);
    expect(sub.tTest.pValue).toBeCloseTo(0.023424636054437457, 9);
    expect(sub.test).toMatchObject({ name: 'Wilcoxon signed-rank', wPlus: 26.5, n: 7, exact: true });
    expect(sub.test['pValue'] as number).toBeCloseTo(6 / 128, 12);
    expect(sub.ci.low).toBeGreaterThan(0);
    expect(sub.ci.high).toBeLessThan(5);
    expect(await run()).toEqual(p);
    const other = await run('--seed', '7', '--resamples', '500', '--confidence', '0.9');
    expect(other.seed).toBe(7);
    expect(other.metrics.find((m) => m.metric === 'subcalls')!.ci).not.toEqual(sub.ci);
    const text = (await cli('stats', A, '--compare', B)).out;
    expect(text).toMatch(/paired by task: 8 task\(s\) in both \(95% BCa bootstrap intervals over tasks, 2000 resamples, seed 1\)/);
    expect(text).toMatch(/\n {2}accuracy +0\.5 +0\.5 +0 +\[.*\] +se .* exact McNemar 2 vs 2 p=1\.0000/);
    expect(text).toMatch(/\n {2}sub-calls +3\.5 +1 +\+2\.5 +\[\+.*\] +se 0\.866 +p=0\.0234 +Wilcoxon \(exact\) p=0\.0469/);
  });

  it('the comparison flags are refused without --compare, and a confidence of 95 is refused naming the form', async () => {
    const alone = await cli('stats', A, '--seed', '3');
    expect(alone.error).toBeInstanceOf(UsageError);
    expect((alone.error as Error).message).toMatch(/--seed applies to a comparison: add --compare PATH_B/);
    const pct = await cli('stats', A, '--compare', B, '--confidence', '95');
    expect(pct.error).not.toBeNull();
    expect(`${(pct.error as Error).message}${pct.err}`).toMatch(/--confidence must be a number between 0 and 1 \(e\.g\. 0\.95\), got "95"/);
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
