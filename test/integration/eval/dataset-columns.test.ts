// Datasets as benchmarks ship them: JSON lines and Parquet files whose question, context and
// answer columns are named by flags. The fixtures hold the same three S-NIAH tasks
// (fixtures/needles.parquet was written with hyparquet-writer 0.17 from generateTask('sniah',
// 1024, 1..3); needles-columns.jsonl is the same rows as JSON lines). The Parquet one runs as an
// evaluation against mock-llm and every task is solved.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { registerEval } from '../../../src-main/cli/commands/eval.ts';
import { UsageError } from '../../../src-main/cli/errors.ts';
import { DatasetError, readDataset } from '../../../src-main/eval/dataset.ts';
import { readResults } from '../../../src-main/eval/results.ts';
import { runEval } from '../../../src-main/eval/runner.ts';
import { generateTask } from '../../../src-main/eval/tasks/index.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import { startMockLlm } from '../../../src-main/mock-llm/server.ts';
import { runInProcess } from '../support/in-process-cli.ts';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const PARQUET = join(FIXTURES, 'needles.parquet');
const JSONL = join(FIXTURES, 'needles-columns.jsonl');
const COLUMNS = { question: 'question_text', context: 'long_context', answer: 'label', id: 'qid', scorer: 'contains' as const };
const tmp = mkdtempSync(join(tmpdir(), 'rlm-columns-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('datasets with named columns', () => {
  it('Parquet and JSON lines give the same tasks, as generated', async () => {
    const pq = await readDataset(PARQUET, COLUMNS);
    const jl = await readDataset(JSONL, COLUMNS);
    expect(pq.tasks.map((t) => t.id)).toEqual(['needle-1', 'needle-2', 'needle-3']);
    expect(jl.tasks.map(({ kind: _k, ...t }) => t)).toEqual(pq.tasks.map(({ kind: _k, ...t }) => t));
    [1, 2, 3].forEach((seed, i) => {
      const g = generateTask('sniah', 1024, seed);
      expect(pq.tasks[i]).toMatchObject({
        query: g.query,
        context: g.context,
        expected: String(g.expected),
        scorer: 'contains',
        kind: 'needles',
      });
    });
    // Without an id column the rows are numbered.
    const { id: _id, ...withoutId } = COLUMNS;
    expect((await readDataset(JSONL, withoutId)).tasks.map((t) => t.id)).toEqual(['row-1', 'row-2', 'row-3']);
  });

  it('a missing column, a bad cell or a file that is not Parquet is refused naming it', async () => {
    await expect(readDataset(PARQUET, { ...COLUMNS, question: 'prompt' })).rejects.toThrow(
      /needles\.parquet row 1: no column "prompt" \(it has: qid, question_text, long_context, label\)/,
    );
    const bad = join(tmp, 'bad.jsonl');
    writeFileSync(bad, '{"q":"a","c":"x","a":"1"}\n{"q":"b","c":"x","a":null}\n');
    await expect(readDataset(bad, { question: 'q', context: 'c', answer: 'a' })).rejects.toThrow(
      /bad\.jsonl line 2: the answer column "a" holds null; a string, a number or a list of strings is needed/,
    );
    const fake = join(tmp, 'fake.parquet');
    writeFileSync(fake, 'not parquet at all');
    await expect(readDataset(fake)).rejects.toThrow(DatasetError);
    await expect(readDataset(fake)).rejects.toThrow(/fake\.parquet is not a Parquet file that can be read/);
    const r = await runInProcess(
      [registerEval],
      ['eval', PARQUET, '--base-url', 'http://127.0.0.1:59999/v1', '--model', 'm', '--out', join(tmp, 'x')],
    );
    expect(r.error).toBeInstanceOf(UsageError);
    expect((r.error as Error).message).toMatch(/no column "question" \(it has: qid, question_text, long_context, label\)/);
  });

  it('a Parquet dataset runs as an evaluation, every needle found', async () => {
    const server = await startMockLlm({ latencyMs: 0 });
    try {
      const out = join(tmp, 'eval');
      const client = new OpenAiCompatibleClient({ baseUrl: server.url, apiKey: 'x', maxRetries: 0 });
      const res = await runEval({
        dataset: PARQUET,
        columns: COLUMNS,
        outDir: out,
        client,
        baseUrl: server.url,
        model: 'mock-root',
        parallel: 3,
      });
      expect(res.summary).toMatchObject({ finished: 3, correct: 3 });
      expect(
        readResults(join(out, 'results.jsonl'))
          .results.map((t) => [t.id, t.correct])
          .sort(),
      ).toEqual([
        ['needle-1', true],
        ['needle-2', true],
        ['needle-3', true],
      ]);
    } finally {
      await server.close();
    }
  });
});
