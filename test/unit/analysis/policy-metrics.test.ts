// Policy metrics checked against counts made here independently: the reference library's
// logs walked as raw JSON (never through our codec), and synthetic sessions whose numbers
// follow from how they were built.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { aggregatePolicy, type SessionRow } from '../../../src-shared/analysis/policy-aggregate.ts';
import { policyMetrics, withoutTexts, type SessionMetrics } from '../../../src-shared/analysis/policy-metrics.ts';
import { readRlmPythonText } from '../../../src-shared/codecs/rlm-python-import.ts';
import { reduceEvents } from '../../../src-shared/trajectory/reducer.ts';
import { logStats } from '../../../src-shared/trajectory/log-stats.ts';
import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';
import { policySession } from '../../support/policy-sessions.ts';
import { scenario } from '../trajectory/synthetic.ts';

interface RawCall {
  usage_summary?: { model_usage_summaries?: Record<string, { total_input_tokens?: number; total_output_tokens?: number }> };
  metadata?: { iterations?: RawIteration[] } | null;
}
interface RawIteration {
  code_blocks?: { result?: { stderr?: string; execution_time?: number; rlm_calls?: RawCall[] } }[];
}

/** What one trajectory of the reference's format shows, counted straight from its JSON. */
interface RawCounts {
  iterations: number;
  codeBlocks: number;
  subcalls: number;
  leaf: number;
  children: number;
  maxFanOut: number;
  blocksWithStderr: number;
  replMs: number;
  childTokens: number;
  leafTokens: number;
  nested: RawCounts[];
}

function tokensOf(c: RawCall): number {
  let n = 0;
  for (const m of Object.values(c.usage_summary?.model_usage_summaries ?? {}))
    n += (m.total_input_tokens ?? 0) + (m.total_output_tokens ?? 0);
  return n;
}

function countRaw(iterations: RawIteration[]): RawCounts {
  const c: RawCounts = {
    iterations: iterations.length,
    codeBlocks: 0,
    subcalls: 0,
    leaf: 0,
    children: 0,
    maxFanOut: 0,
    blocksWithStderr: 0,
    replMs: 0,
    childTokens: 0,
    leafTokens: 0,
    nested: [],
  };
  for (const it of iterations)
    for (const b of it.code_blocks ?? []) {
      c.codeBlocks++;
      const calls = b.result?.rlm_calls ?? [];
      c.subcalls += calls.length;
      c.maxFanOut = Math.max(c.maxFanOut, calls.length);
      if ((b.result?.stderr ?? '') !== '') c.blocksWithStderr++;
      c.replMs += (b.result?.execution_time ?? 0) * 1000;
      for (const call of calls) {
        if (call.metadata?.iterations) {
          c.children++;
          const nested = countRaw(call.metadata.iterations);
          // A child's usage summary covers its own turns; its sub-calls are listed inside it.
          c.childTokens += tokensOf(call) + nested.leafTokens + nested.childTokens;
          c.nested.push(nested);
        } else {
          c.leaf++;
          c.leafTokens += tokensOf(call);
        }
      }
    }
  return c;
}

function fixture(name: string): { raw: RawCounts; sessions: SessionMetrics[] } {
  const text = readFileSync(join(REFERENCE_FIXTURES, `${name}.jsonl`), 'utf8');
  const lines = text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { type?: string } & RawIteration);
  const raw = countRaw(lines.filter((l) => l.type !== 'metadata'));
  const read = readRlmPythonText(text);
  return { raw, sessions: policyMetrics(reduceEvents(read.events)) };
}

describe('policy metrics on the reference library logs (counted from the raw JSON)', () => {
  for (const name of ['a_needle', 'b_aggregate', 'c_recursive', 'd_max_iterations', 'e_code_errors', 'g_openai_http']) {
    it(name, () => {
      const { raw, sessions } = fixture(name);
      expect(sessions).toHaveLength(1);
      const s = sessions[0] as SessionMetrics;
      const root = s.runs[0]!;
      expect(root.depth).toBe(0);
      expect(root.iterations).toBe(raw.iterations);
      expect(root.codeBlocks).toBe(raw.codeBlocks);
      expect(root.subcalls).toBe(raw.subcalls);
      expect(root.llmCalls).toBe(raw.leaf);
      expect(root.childRuns).toBe(raw.children);
      expect(root.fanOut.max).toBe(raw.maxFanOut);
      expect(root.blockErrors).toBe(raw.blocksWithStderr);
      expect(root.replMs).toBeCloseTo(raw.replMs, 0);
      expect(root.tokens.subcalls.inputTokens + root.tokens.subcalls.outputTokens).toBe(raw.leafTokens);
      expect(root.tokens.children.inputTokens + root.tokens.children.outputTokens).toBe(raw.childTokens);
      // Every child trajectory is a run one level down, with its own counts.
      expect(s.runs).toHaveLength(1 + raw.nested.length);
      expect(s.figures.runs).toBe(1 + raw.nested.length);
      raw.nested.forEach((n, i) => {
        const child = s.runs[i + 1]!;
        expect(child.depth).toBe(1);
        expect([child.iterations, child.codeBlocks, child.subcalls, child.llmCalls]).toEqual([
          n.iterations,
          n.codeBlocks,
          n.subcalls,
          n.leaf,
        ]);
      });
      const all = [raw, ...raw.nested];
      expect(s.figures.iterations).toBe(all.reduce((a, c) => a + c.iterations, 0));
      expect(s.figures.subcalls).toBe(all.reduce((a, c) => a + c.subcalls, 0));
      expect(s.depthProfile.map((d) => d.runs)).toEqual(raw.nested.length > 0 ? [1, raw.nested.length] : [1]);
      expect(s.figures.maxDepth).toBe(raw.nested.length > 0 ? 1 : 0);
    });
  }

  it('d_max_iterations: no answer, the iteration limit, the default answer as a 4th iteration', () => {
    const s = fixture('d_max_iterations').sessions[0]!;
    expect(s.answered).toBe(false);
    expect(s.stopReason).toBe('max_iterations');
    expect(s.figures.rootIterations).toBe(4);
  });

  it('session tokens and cost equal the totals `stats` reports (each model call once)', () => {
    for (const name of ['b_aggregate', 'c_recursive', 'g_openai_http']) {
      const read = readRlmPythonText(readFileSync(join(REFERENCE_FIXTURES, `${name}.jsonl`), 'utf8'));
      const state = reduceEvents(read.events);
      const s = policyMetrics(state)[0]!;
      const st = logStats(state);
      expect([s.figures.inputTokens, s.figures.outputTokens, s.figures.costUsd]).toEqual([st.inputTokens, st.outputTokens, st.costUsd]);
      expect(s.figures.rootTokenShare + s.figures.subcallTokenShare + s.figures.childTokenShare).toBeCloseTo(1, 9);
    }
  });
});

describe('policy metrics on synthetic sessions', () => {
  it('the reducer scenario: fan-out, batches, children, errors, shares, times', () => {
    const [t0, t1] = policyMetrics(reduceEvents(scenario().events));
    const root = t0!.runs[0]!;
    expect([root.iterations, root.codeBlocks, root.subcalls, root.llmCalls, root.childRuns]).toEqual([3, 4, 5, 3, 2]);
    expect(root.subcallsPerIteration).toEqual({ max: 3, mean: 5 / 3, n: 3 });
    expect(root.fanOut).toEqual({ max: 3, mean: 2.5, n: 2 });
    expect(root.batchSize).toEqual({ max: 3, mean: 2.5, n: 2 });
    expect(root.tokens.root).toEqual({ calls: 3, inputTokens: 300, outputTokens: 30, costUsd: expect.closeTo(0.003, 9) });
    expect(root.tokens.subcalls).toEqual({ calls: 3, inputTokens: 60, outputTokens: 6, costUsd: expect.closeTo(0.003, 9) });
    // c1: one reply (50, 5); c2: one reply (50, 5) and a leaf call (7, 1).
    expect(root.tokens.children).toMatchObject({ calls: 3, inputTokens: 107, outputTokens: 11 });
    expect([root.modelMs, root.replMs, root.replCpuMs, root.subcallMs]).toEqual([150, 270, 4, 110]);
    expect([root.blockErrors, root.replResets, root.compactions, root.subtreeDepth]).toEqual([0 + 1, 0, 0, 1]);
    expect(t0!.figures).toMatchObject({
      iterations: 5,
      subcalls: 6,
      llmCalls: 4,
      childRuns: 2,
      subcallsPerIterationMax: 3,
      subcallsPerIterationMean: 1.2,
      fanOutMax: 3,
      fanOutMean: 2,
      batchSizeMax: 3,
      batchSizeMean: 2.5,
      runs: 3,
      maxDepth: 1,
      wallMs: 600,
    });
    expect(t0!.depthProfile).toEqual([
      {
        depth: 0,
        runs: 1,
        iterations: 3,
        codeBlocks: 4,
        subcalls: 5,
        inputTokens: 360,
        outputTokens: 36,
        costUsd: expect.closeTo(0.006, 9),
      },
      {
        depth: 1,
        runs: 2,
        iterations: 2,
        codeBlocks: 2,
        subcalls: 1,
        inputTokens: 107,
        outputTokens: 11,
        costUsd: expect.closeTo(0.003, 9),
      },
    ]);
    expect(t0!.answered).toBe(true);
    const r1 = t1!.runs[0]!;
    expect([r1.iterations, r1.codeBlocks, r1.subcalls]).toEqual([4, 0, 0]);
    expect(r1.limits).toEqual(['max_iterations']);
    expect(t1!.answered).toBe(false);
    expect(t1!.figures.rootTokenShare).toBe(1);
  });

  it('texts left out change no metric', () => {
    const events = scenario().events;
    expect(policyMetrics(reduceEvents(events.map(withoutTexts)))).toEqual(policyMetrics(reduceEvents(events)));
  });

  it('generated shapes: calls per iteration, batches and children as built', () => {
    const [s] = policyMetrics(reduceEvents(policySession({ query: 'q', calls: [4, 0, 1], children: 2 })));
    const root = s!.runs[0]!;
    expect(root.subcallsPerIteration).toEqual({ max: 6, mean: 7 / 3, n: 3 });
    expect(root.fanOut).toEqual({ max: 6, mean: 3.5, n: 2 });
    expect(root.batchSize).toEqual({ max: 4, mean: 4, n: 1 });
    expect(s!.figures.childTokenShare).toBeCloseTo((2 * 51) / (3 * 101 + 5 * 21 + 2 * 51), 12);
  });
});

describe('policy aggregate of a one-sided evaluation (issue 40)', () => {
  const rows = (correct: boolean): SessionRow[] =>
    [1, 2, 3].map((n) => ({
      logFile: `t${n}.jsonl`,
      rootRunId: `t${n}-root`,
      taskId: `t${n}`,
      repeat: null,
      taskKey: `t${n}`,
      taskLabel: `t${n}`,
      correct,
      score: correct ? 1 : 0,
      metrics: policyMetrics(reduceEvents(policySession({ query: `q${n}`, calls: [n] }, `t${n}`)))[0]!,
    }));

  it.each([
    ['solved', true, 'incorrectDist'],
    ['0%', false, 'correctDist'],
  ] as const)('a %s evaluation: the empty side has no quartiles (null, also through JSON), the other has', (_, correct, empty) => {
    const agg = aggregatePolicy(rows(correct));
    const split = agg.byCorrectness!;
    expect(split[empty].subcalls.quartiles).toBeNull();
    expect(split[empty].subcalls.histogram.counts.reduce((a, b) => a + b, 0)).toBe(0);
    const full = empty === 'correctDist' ? split.incorrectDist : split.correctDist;
    expect(full.subcalls.quartiles).toMatchObject({ p50: 2, min: 1, max: 3, n: 3 });
    // What the page receives: null stays null, no NaN turned into null under a number type.
    const wire = JSON.parse(JSON.stringify(agg)) as typeof agg;
    expect(wire.byCorrectness![empty].costUsd.quartiles).toBeNull();
    expect(wire.distributions.subcalls.quartiles).toEqual(agg.distributions.subcalls.quartiles);
  });

  it('no sessions at all: no quartiles anywhere', () => {
    expect(aggregatePolicy([]).distributions.subcalls.quartiles).toBeNull();
  });
});
