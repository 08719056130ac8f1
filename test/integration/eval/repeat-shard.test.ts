// The local runner's --repeat, --shard and --retry-errors, in-process against mock-llm, and
// progress.json as the app reads it.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDataset } from '../../../src-main/cli/dataset-file.ts';
import { readEvalDir } from '../../../src-main/eval/open-dir.ts';
import { readResults, resultKey, type TaskResult } from '../../../src-main/eval/results.ts';
import { type EvalOptions, type EvalRunResult, runEval } from '../../../src-main/eval/runner.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import { startMockLlm, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlm-eval-rs-'));
const ds = join(tmp, 'ds.jsonl');
let server: MockLlmServer;
const rawLines = (out: string): TaskResult[] =>
  readFileSync(join(out, 'results.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as TaskResult);

beforeAll(async () => {
  server = await startMockLlm({ latencyMs: 2 });
  await writeDataset({ kinds: ['sniah'], sizes: [8192], seed: 1, count: 4, out: ds, inlineMaxChars: 1 << 20 });
});
afterAll(async () => {
  await server.close();
});

/** The four-task dataset into `outDir`, two sessions at a time, with the options under test; the model answers at `url`. */
function evalInto(outDir: string, extra: Partial<EvalOptions> = {}, url = server.url): Promise<EvalRunResult> {
  const client = new OpenAiCompatibleClient({ baseUrl: url, apiKey: 'x', maxRetries: 0 });
  return runEval({ dataset: ds, outDir, client, baseUrl: server.url, model: 'mock-root', parallel: 2, ...extra });
}

describe('local eval: repeats, shards, retrying errors', () => {
  it('--repeat 2: two sessions per task, grouped by repeat in the summary; progress.json says finished', async () => {
    const out = join(tmp, 'repeat');
    const res = await evalInto(out, { repeat: 2 });
    expect(res.ran).toBe(8);
    expect(res.summary).toMatchObject({ tasks: 4, repeats: 2, sessions: 8, finished: 8, correct: 8, byRepeat: { accuracy: [1, 1] } });
    const keys = rawLines(out).map((r) => resultKey(r.id, r.repeat ?? 0));
    expect(new Set(keys).size).toBe(8);
    expect(existsSync(join(out, 'logs', 'sniah-8192-s1.r1.rlm.jsonl'))).toBe(true);
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toMatch(/Accuracy by repeat: 1\.000, 1\.000/);
    const view = readEvalDir(out);
    expect(view.tasks.map((t) => t.id).sort()).toEqual([...keys].sort());
    expect(view.progress).toMatchObject({ state: 'finished', mode: 'local', total: 8, done: 8, failed: 0, live: false });
    // Raising the repeats later runs only the new sessions.
    const more = await evalInto(out, { repeat: 3 });
    expect([more.ran, more.skipped]).toEqual([4, 8]);
  });

  it('--shard i/n: disjoint parts that together are the dataset', async () => {
    const ids: string[][] = [];
    for (const index of [1, 2]) {
      const out = join(tmp, `shard-${index}`);
      const res = await evalInto(out, { shard: { index, count: 2 } });
      expect(res.summary).toMatchObject({ tasks: 2, finished: 2 });
      ids.push(rawLines(out).map((r) => r.id));
    }
    expect(ids[0]!.filter((id) => ids[1]!.includes(id))).toEqual([]);
    expect(ids.flat().sort()).toEqual(['sniah-8192-s1', 'sniah-8192-s2', 'sniah-8192-s3', 'sniah-8192-s4']);
  });

  it('--retry-errors runs only the sessions that ended in an error; their new line supersedes the old one', async () => {
    const out = join(tmp, 'retry');
    // An endpoint that is not there: every session ends in an error.
    const dead = 'http://127.0.0.1:2/v1';
    const failed = await evalInto(out, {}, dead);
    expect(failed.summary.stopReasons).toEqual({ error: 4 });
    // Without --retry-errors nothing runs again.
    const again = await evalInto(out);
    expect(again.ran).toBe(0);
    const retried = await evalInto(out, { retryErrors: true });
    expect(retried.ran).toBe(4);
    expect(retried.summary).toMatchObject({ finished: 4, correct: 4, stopReasons: { answered: 4 } });
    // Append-only: the error lines are still there, and readers take the later ones.
    expect(rawLines(out)).toHaveLength(8);
    expect(readResults(join(out, 'results.jsonl')).results.every((r) => r.stopReason === 'answered')).toBe(true);
    expect(readEvalDir(out).tasks.every((t) => t.stopReason === 'answered')).toBe(true);
    expect(existsSync(join(out, 'logs', 'sniah-8192-s1.retried-1.rlm.jsonl'))).toBe(true);
  });
});
