// The results file of an evaluation after a kill: a torn last line stays where it is, and the
// next result starts a line of its own (glued onto the fragment, it was lost with it on resume).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readResults, ResultsWriter, type TaskResult } from '../../../src-main/eval/results.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlm-results-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function result(id: string): TaskResult {
  return {
    id,
    kind: 'sniah',
    sizeTokens: 8192,
    scorer: 'exact',
    score: 1,
    correct: true,
    scoreDetail: 'exact match',
    answer: '42',
    expected: '42',
    stopReason: 'answered',
    message: null,
    iterations: 2,
    durationMs: 10,
    usage: { inputTokens: 1, outputTokens: 1, calls: 1, costUsd: null },
    logFile: null,
    model: 'm',
    finishedAt: '2026-12-05T00:00:00.000Z',
  };
}

describe('the results writer', () => {
  it('starts a new line after a torn last line, and appends plainly otherwise', () => {
    const path = join(tmp, 'results.jsonl');
    writeFileSync(path, `${JSON.stringify(result('a'))}\n{"id":"b","sco`);
    const writer = new ResultsWriter(path);
    writer.append(result('c'));
    writer.append(result('d'));
    expect(readFileSync(path, 'utf8').split('\n')).toHaveLength(5);
    const read = readResults(path);
    expect(read.results.map((r) => r.id)).toEqual(['a', 'c', 'd']);
    expect(read.skipped).toBe(1);
  });

  it('creates the file on the first result', () => {
    const path = join(tmp, 'fresh.jsonl');
    new ResultsWriter(path).append(result('x'));
    expect(readResults(path).results.map((r) => r.id)).toEqual(['x']);
  });
});
