// The paired comparison against a known truth (issue 42): pairs of evaluations whose sessions
// are drawn from a population with a known effect, compared 100 times per scenario with
// seeded repetitions. Reported: how often the interval covers the true effect (goal ≥ 93 of
// 100) and how often the paired tests call identical configurations different at p < 0.05
// (goal ≤ 6%).
//
// mock-llm answers a generated task the same way every time (its policies are competent and
// deterministic), so it cannot play a model that is right with probability p; the sessions are
// synthesised instead, with the correctness and the shape drawn from a seeded generator:
//
// - task i has a difficulty: base accuracy b_i ~ U(0.25, 0.75) and a sub-call need n_i ~ U{0..5};
// - a session of A is correct with probability b_i + δ/2 and makes n_i + U{0..4} sub-calls;
//   a session of B, b_i − δ/2 and n_i + U{0..2} (identical configurations: both as A, δ = 0);
// - so the true effects are δ in accuracy, +1 sub-call, +21 tokens (each sub-call is 20 input
//   and 1 output token) and +$0.0001 (each sub-call's price), whatever the tasks drawn.
//
// The repetitions compare the drawn sessions directly (pairedComparison, what `stats` runs);
// the first two of each scenario are also written as evaluation folders (native logs and
// results.jsonl, test/support/policy-sessions.ts) and compared end to end by `stats A --compare
// B --json`, which must give the same `paired` object (reading ~100,000 logs would take an
// hour on this machine and measure the reader, not the statistics).
//
// A rate measured over 100 repetitions has a binomial standard error of 2.2 points at 5%, so
// it cannot tell a test of size 5% from one of 6%: the identical scenarios' tests are also run
// over --fpr-reps repetitions (10,000 by default; the same seeds extended, and the same code as
// `stats`, with a token bootstrap since only the tests are read), each rate given with its
// Wilson 95% interval.
//
// node --no-node-snapshot bench/paired-stats.ts [--reps 100] [--fpr-reps 10000] [--tasks 64] [--write]
// (--write puts the section into bench/RESULTS.md between its markers.)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pairedComparison, type PairedComparison, type PairedSession } from '../src-shared/analysis/paired-comparison.ts';
import { seededRandom } from '../src-shared/analysis/paired-stats.ts';
import { runStats } from '../src-main/cli/commands/stats.ts';
import { writeEvalDir, type GeneratedTask } from '../test/support/policy-sessions.ts';
import { log, root } from './lib.ts';
import { upsertSection } from './sections.ts';

interface Scenario {
  name: string;
  /** Accuracy difference A − B. */
  delta: number;
  /** B's sessions make as many sub-calls as A's (identical configurations) or fewer. */
  identical: boolean;
  repeats: number;
}

const TRUE_SUBCALLS = 1;
const TRUE_TOKENS = 21;
const TRUE_COST = 0.0001;

const SCENARIOS: Scenario[] = [
  { name: 'effect, each task once (δ = 0.15)', delta: 0.15, identical: false, repeats: 1 },
  { name: 'effect, each task 3 times (δ = 0.15)', delta: 0.15, identical: false, repeats: 3 },
  { name: 'identical configurations, each task once', delta: 0, identical: true, repeats: 1 },
  { name: 'identical configurations, each task 3 times', delta: 0, identical: true, repeats: 3 },
];

function draw(rep: number, scenario: Scenario, tasks: number): { a: GeneratedTask[]; b: GeneratedTask[] } {
  const rand = seededRandom(0x5eed + rep * 7919 + scenario.repeats * 104729 + (scenario.identical ? 1 : 0));
  const int = (lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
  const a: GeneratedTask[] = [];
  const b: GeneratedTask[] = [];
  for (let i = 0; i < tasks; i++) {
    const base = 0.25 + 0.5 * rand();
    const need = int(0, 5);
    for (let r = 0; r < scenario.repeats; r++) {
      const id = `t${i}`;
      a.push({ id, repeat: r, correct: rand() < base + scenario.delta / 2, shape: { query: `q${i}`, calls: [need + int(0, 4)] } });
      b.push({
        id,
        repeat: r,
        correct: rand() < base - scenario.delta / 2,
        shape: { query: `q${i}`, calls: [need + (scenario.identical ? int(0, 4) : int(0, 2))] },
      });
    }
  }
  return { a, b };
}

interface Tally {
  runs: number;
  covered: Record<string, number>;
  /** p < 0.05 by test. */
  rejected: Record<string, number>;
  ciWidth: Record<string, number>;
}

/** Repetitions also compared end to end through `stats --compare --json`. */
let endToEndChecked = 0;

/** The sessions as `stats` reads them from the folders writeEvalDir makes (policySession's prices and token counts). */
function sessionsOf(tasks: readonly GeneratedTask[]): PairedSession[] {
  return tasks.map((t) => {
    const calls = t.shape.calls.reduce((x, y) => x + y, 0);
    const turns = t.shape.calls.length;
    return {
      taskKey: `task:${t.id}`,
      taskLabel: t.id,
      values: {
        accuracy: t.correct ? 1 : 0,
        cost: Math.round((turns * 0.001 + calls * 0.0001) * 1e6) / 1e6,
        tokens: turns * 101 + calls * 21,
        time: 100,
        subcalls: calls,
      },
    };
  });
}

async function compare(
  dir: string,
  rep: number,
  scenario: Scenario,
  tasks: number,
  endToEnd: boolean,
  resamples = 2000,
): Promise<PairedComparison> {
  const { a, b } = draw(rep, scenario, tasks);
  const direct = pairedComparison(sessionsOf(a), sessionsOf(b), { seed: rep + 1, resamples });
  if (!endToEnd) return direct;
  const da = join(dir, `a${rep}`);
  const db = join(dir, `b${rep}`);
  writeEvalDir(da, a);
  writeEvalDir(db, b);
  let out = '';
  await runStats(da, { compare: db, json: true, seed: rep + 1 }, { out: (t) => (out += t), err: () => undefined });
  rmSync(da, { recursive: true, force: true });
  rmSync(db, { recursive: true, force: true });
  const read = (JSON.parse(out) as { paired: PairedComparison }).paired;
  if (JSON.stringify(read) !== JSON.stringify(direct))
    throw new Error(`${scenario.name}, repetition ${rep}: stats --compare --json differs from the direct comparison`);
  endToEndChecked++;
  return read;
}

async function runScenario(scenario: Scenario, reps: number, tasks: number): Promise<Tally> {
  const dir = mkdtempSync(join(tmpdir(), 'rlm-bench-paired-'));
  const t: Tally = { runs: 0, covered: {}, rejected: {}, ciWidth: {} };
  const bump = (rec: Record<string, number>, k: string, by = 1): void => void (rec[k] = (rec[k] ?? 0) + by);
  const truth: Record<string, number> = scenario.identical
    ? { accuracy: 0, subcalls: 0, tokens: 0, cost: 0 }
    : { accuracy: scenario.delta, subcalls: TRUE_SUBCALLS, tokens: TRUE_TOKENS, cost: TRUE_COST };
  try {
    for (let rep = 0; rep < reps; rep++) {
      const p = await compare(dir, rep, scenario, tasks, rep < 2);
      t.runs++;
      for (const m of p.metrics) {
        const want = truth[m.metric];
        if (want === undefined) continue;
        // A cent's fraction of rounding in the logs' costs: compare at micro-dollars.
        const eps = m.metric === 'cost' ? 1e-9 : 1e-12;
        if (m.ci.low - eps <= want && want <= m.ci.high + eps) bump(t.covered, m.metric);
        bump(t.ciWidth, m.metric, m.ci.high - m.ci.low);
        if (m.tTest.pValue < 0.05) bump(t.rejected, `${m.metric}: paired t`);
        if (m.test.pValue < 0.05) bump(t.rejected, `${m.metric}: ${m.test.name}`);
      }
      if ((rep + 1) % 20 === 0) log(`${scenario.name}: ${rep + 1}/${reps}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return t;
}

/** Wilson's 95% interval of a proportion k/n. */
function wilson(k: number, n: number): [number, number] {
  const z = 1.959963984540054;
  const p = k / n;
  const den = 1 + (z * z) / n;
  const mid = (p + (z * z) / (2 * n)) / den;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / den;
  return [Math.max(0, mid - half), Math.min(1, mid + half)];
}

/** The identical scenario's tests over many repetitions: how often each rejects at p < 0.05. */
async function falsePositives(scenario: Scenario, reps: number, tasks: number): Promise<Record<string, number>> {
  const rejected: Record<string, number> = {};
  for (let rep = 0; rep < reps; rep++) {
    // One resample: the interval is not read here, and the tests do not depend on it.
    const p = await compare('', rep, scenario, tasks, false, 1);
    for (const m of p.metrics) {
      if (m.metric === 'time') continue;
      for (const [test, pValue] of [
        ['paired t', m.tTest.pValue],
        [m.test.name, m.test.pValue],
      ] as const)
        if (pValue < 0.05) rejected[`${m.metric}: ${test}`] = (rejected[`${m.metric}: ${test}`] ?? 0) + 1;
        else rejected[`${m.metric}: ${test}`] ??= 0;
    }
    if ((rep + 1) % 2000 === 0) log(`${scenario.name}, tests only: ${rep + 1}/${reps}`);
  }
  return rejected;
}

function fprSection(results: { scenario: Scenario; rejected: Record<string, number> }[], reps: number): string {
  const lines = [
    '',
    '',
    `False positives measured precisely: the identical scenarios' tests over ${reps.toLocaleString('en-US')} repetitions (the seeds above, extended). Goal: ≤ 6%.`,
    '',
    '| scenario | metric: test | p < 0.05 | rate | Wilson 95% interval |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const { scenario, rejected } of results)
    for (const [k, n] of Object.entries(rejected)) {
      const [lo, hi] = wilson(n, reps);
      lines.push(
        `| ${scenario.name} | ${k} | ${n} / ${reps} | ${((100 * n) / reps).toFixed(2)}% | ${(100 * lo).toFixed(2)}–${(100 * hi).toFixed(2)}% |`,
      );
    }
  return lines.join('\n');
}

function section(results: { scenario: Scenario; tally: Tally }[], reps: number, tasks: number, seconds: number): string {
  const lines = [
    '## Paired comparison against a known effect (`bench/paired-stats.ts`)',
    '',
    `${reps} seeded repetitions per scenario of the paired comparison of two synthesised evaluations of ${tasks} tasks (bootstrap seed = repetition + 1, 2000 resamples, 95% BCa); in ${endToEndChecked} of them the sessions were also written as evaluation folders and \`stats A --compare B --json\` read them end to end to the same numbers. Population: task difficulty b_i ~ U(0.25, 0.75), A correct with b_i + δ/2, B with b_i − δ/2; sub-calls n_i + U{0..4} for A, n_i + U{0..2} for B (identical: both as A). True effects: accuracy δ, +${TRUE_SUBCALLS} sub-call, +${TRUE_TOKENS} tokens, +$${TRUE_COST} (0 for identical configurations). mock-llm answers deterministically, so it cannot play a model right with probability p: the sessions are synthesised. Goals: the interval covers the truth in ≥ 93 of 100; the paired tests reject identical configurations at p < 0.05 in ≤ 6%. ${seconds.toFixed(0)} s in all.`,
    '',
    '| scenario | metric | interval covers the truth | mean interval width | p < 0.05 (test: count) |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const { scenario, tally } of results) {
    for (const metric of ['accuracy', 'subcalls', 'tokens', 'cost']) {
      const covered = tally.covered[metric] ?? 0;
      const width = (tally.ciWidth[metric] ?? 0) / tally.runs;
      const rejected = Object.entries(tally.rejected)
        .filter(([k]) => k.startsWith(`${metric}:`))
        .map(([k, n]) => `${k.slice(metric.length + 2)}: ${n}`)
        .join('; ');
      lines.push(`| ${scenario.name} | ${metric} | ${covered} / ${tally.runs} | ${Number(width.toPrecision(3))} | ${rejected || 'none'} |`);
    }
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      reps: { type: 'string', default: '100' },
      tasks: { type: 'string', default: '64' },
      'fpr-reps': { type: 'string', default: '10000' },
      write: { type: 'boolean', default: false },
    },
  });
  const reps = Number(values.reps);
  const fprReps = Number(values['fpr-reps']);
  const tasks = Number(values.tasks);
  const started = performance.now();
  const results: { scenario: Scenario; tally: Tally }[] = [];
  for (const scenario of SCENARIOS) results.push({ scenario, tally: await runScenario(scenario, reps, tasks) });
  const fpr: { scenario: Scenario; rejected: Record<string, number> }[] = [];
  if (fprReps > 0)
    for (const scenario of SCENARIOS.filter((x) => x.identical))
      fpr.push({ scenario, rejected: await falsePositives(scenario, fprReps, tasks) });
  const md = section(results, reps, tasks, (performance.now() - started) / 1000) + (fprReps > 0 ? fprSection(fpr, fprReps) : '');
  process.stdout.write(`${md}\n`);
  if (values.write) {
    const path = join(root, 'bench', 'RESULTS.md');
    writeFileSync(path, upsertSection(readFileSync(path, 'utf8'), 'paired-stats', md));
    log(`wrote the paired-stats section of ${path}`);
  }
}

await main();
