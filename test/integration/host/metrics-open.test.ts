// `metrics.open` through the protocol on an evaluation run for real against mock-llm: each
// task's figures checked against counts made here from the log's lines (not through the
// reducer), correctness from results.jsonl, and errors that name the path.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../src-shared/protocol-client.ts';
import { connectInProcess, hostPerTest, mixedEvaluationForFile } from './helpers.ts';

const { tmp, dir: evalDir } = mixedEvaluationForFile('rlm-metrics-open-', 'eval');
const newHost = hostPerTest();

/** Counts from the raw lines of a native log. */
function countLines(path: string): { subcalls: number; rootIterations: number; blocks: number; runs: number; inputTokens: number } {
  const events = readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((l) => JSON.parse(l) as { type: string; depth: number; iteration?: number; usage?: { inputTokens: number } });
  const of = (type: string) => events.filter((e) => e.type === type);
  return {
    subcalls: of('subcall.start').length,
    // A default answer after the iteration limit is a reply without an iteration.start: it counts, as in `stats`.
    rootIterations: new Set([...of('iteration.start'), ...of('model.reply')].filter((e) => e.depth === 0).map((e) => e.iteration)).size,
    blocks: of('block.start').length,
    runs: of('run.start').length,
    // Each model call once: the runs' own replies and the plain sub-calls' ends (a child's end carries zero).
    inputTokens: [...of('model.reply'), ...of('subcall.end')].reduce((a, e) => a + (e.usage?.inputTokens ?? 0), 0),
  };
}

describe('metrics.open', () => {
  it('an evaluation: per-task figures as counted from the logs, correctness from its results', async () => {
    const host = newHost();
    const c = connectInProcess(host);
    const { metrics } = await c.call('metrics.open', { path: evalDir });
    expect(metrics).toMatchObject({ path: evalDir, kind: 'evaluation', logs: 3, problems: [] });
    const results = readFileSync(join(evalDir, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; correct: boolean; logFile: string });
    expect(metrics.rows.map((r) => r.taskId).sort()).toEqual(results.map((r) => r.id).sort());
    for (const r of results) {
      const row = metrics.rows.find((x) => x.taskId === r.id)!;
      expect(row.correct).toBe(r.correct);
      const counted = countLines(row.logFile);
      expect(row.figures).toMatchObject({
        subcalls: counted.subcalls,
        rootIterations: counted.rootIterations,
        codeBlocks: counted.blocks,
        runs: counted.runs,
        inputTokens: counted.inputTokens,
      });
    }
    const split = metrics.aggregate.byCorrectness!;
    expect([split.correct, split.incorrect]).toEqual([results.filter((r) => r.correct).length, results.filter((r) => !r.correct).length]);
    expect(split.incorrect).toBeGreaterThan(0);
    expect(metrics.aggregate.distributions.subcalls.quartiles?.n).toBe(3);
    // The page's token split is summed on the host: every model call of every session once, sub-calls among them.
    const t = metrics.tokens;
    expect(t.root + t.subcalls + t.children).toBe(metrics.rows.reduce((a, r) => a + r.figures.inputTokens + r.figures.outputTokens, 0));
    expect(t.root).toBeGreaterThan(0);
    expect(t.subcalls).toBeGreaterThan(0);
    expect(metrics.rows[0]).not.toHaveProperty('metrics');
  });

  it('names a missing path; the schema guards the parameters', async () => {
    const host = newHost();
    const c = connectInProcess(host);
    const missing = join(tmp, 'nowhere');
    const err = await c.call('metrics.open', { path: missing }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as ProtocolError).code).toBe('not_found');
    expect((err as ProtocolError).message).toContain(missing);
    await expect(c.call('metrics.open', { path: evalDir, bins: 0 })).rejects.toThrow(/bins/);
  });
});
