// Sessions of an evaluation: shards, repeats, result keys, which line of a session counts,
// the progress line, and cost that no session recorded.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { progressLine, ProgressTracker } from '../../../src-main/eval/progress.ts';
import { readResults, resultKey, type TaskResult } from '../../../src-main/eval/results.ts';
import { summarize, summaryMarkdown } from '../../../src-main/eval/summary.ts';
import type { EvalTask } from '../../../src-main/eval/tasks/types.ts';
import { logNameFor, parseShard, ShardError, workUnits } from '../../../src-main/eval/units.ts';

const task = (id: string): EvalTask => ({ id, kind: 'sniah', query: 'q', expected: '1', scorer: 'exact', context: 'c' });
const tasks = ['a', 'b', 'c', 'd', 'e'].map(task);

describe('shards and repeats', () => {
  it('deals tasks round-robin into disjoint shards that cover the dataset', () => {
    const parts = [1, 2, 3].map((i) => workUnits(tasks, 1, { index: i, count: 3 }).map((u) => u.task.id));
    expect(parts).toEqual([['a', 'd'], ['b', 'e'], ['c']]);
    expect(parts.flat().sort()).toEqual(tasks.map((t) => t.id));
  });

  it('refuses malformed shards by name', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    for (const bad of ['0/3', '4/3', '1/0', 'a/b', '1-3']) expect(() => parseShard(bad)).toThrow(ShardError);
    expect(() => parseShard('0/3')).toThrow(/between 1 and N/);
  });

  it('repeats every task, first sessions first; keys and log names tell repeats apart', () => {
    const units = workUnits(tasks.slice(0, 2), 3);
    expect(units.map((u) => u.key)).toEqual(['a', 'b', 'a#1', 'b#1', 'a#2', 'b#2']);
    expect(units.map((u) => logNameFor(u))).toEqual(['a', 'b', 'a.r1', 'b.r1', 'a.r2', 'b.r2']);
    expect(resultKey('x', 0)).toBe('x');
  });
});

describe('results.jsonl', () => {
  const line = (id: string, stopReason: string, extra: Record<string, unknown> = {}): string =>
    JSON.stringify({ id, score: stopReason === 'error' ? 0 : 1, stopReason, usage: { calls: 1 }, ...extra });

  it('keeps the first line of a session, except an error a later run replaced', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rlm-results-'));
    const path = join(dir, 'results.jsonl');
    writeFileSync(
      path,
      [
        line('a', 'answered', { answer: 'first' }),
        line('a', 'answered', { answer: 'second' }),
        line('b', 'error'),
        line('b', 'answered'),
        line('b', 'error'),
        line('a', 'answered', { repeat: 1 }),
        '',
      ].join('\n'),
    );
    const r = readResults(path);
    expect(r.results.map((x) => [resultKey(x.id, x.repeat ?? 0), x.stopReason, x.answer ?? null])).toEqual([
      ['a', 'answered', 'first'],
      ['b', 'answered', null],
      ['a#1', 'answered', null],
    ]);
  });
});

describe('progress line', () => {
  it('shows done, running, failed, rate, cost and time left', () => {
    const p = {
      state: 'running' as const,
      mode: 'queue' as const,
      total: 10,
      done: 5,
      failed: 1,
      running: 3,
      costUsd: 0.0123,
      perMinute: 12,
      etaMs: 125_000,
      startedAt: '',
      updatedAt: '',
      host: 'h',
      pid: 1,
    };
    expect(progressLine(p, 10)).toBe('█████░░░░░ 5/10 done · 3 running · 1 failed · 12.0/min · $0.0123 · ETA 2m05s');
    expect(progressLine({ ...p, etaMs: null }, 10)).toMatch(/ETA –$/);
  });
});

describe('cost that no session recorded', () => {
  const result = (id: string, costUsd: number | null): TaskResult => ({
    id,
    kind: 'sniah',
    sizeTokens: 8192,
    scorer: 'contains',
    score: 1,
    correct: true,
    scoreDetail: '',
    answer: 'x',
    expected: 'x',
    stopReason: 'answered',
    message: null,
    iterations: 1,
    durationMs: 1000,
    usage: { inputTokens: 10, outputTokens: 1, calls: 2, costUsd },
    logFile: null,
    model: 'm',
    finishedAt: '',
  });
  const meta = { dataset: 'd.jsonl', model: 'm', subModel: null, maxDepth: 1, tasks: 3 };
  const costRow = (md: string): string | undefined => md.split('\n').find((l) => l.startsWith('| cost'));

  it('is unknown in the summary, the progress line and progress.json, not $0', () => {
    const s = summarize([result('a', null), result('b', null)], meta);
    const md = summaryMarkdown(s);
    expect(md).toContain('Total cost unknown (no task recorded a price)');
    expect(costRow(md)).toBe('| cost | – | – | – | – | – | – |');
    const dir = mkdtempSync(join(tmpdir(), 'rlm-progress-'));
    const tracker = new ProgressTracker(dir, 'local', 3, [result('a', null)]);
    expect(tracker.snapshot('running').costUsd).toBeNull();
    expect(tracker.line(4)).toContain('· cost unknown ·');
  });

  it('counts only the priced tasks when some have a price, and says so', () => {
    const s = summarize([result('a', 0.5), result('b', null), result('c', 1.5)], meta);
    const md = summaryMarkdown(s);
    expect(md).toContain('Total cost $2.000000 (1 task(s) without a price not counted)');
    expect(costRow(md)).toBe('| cost (tasks with a price) | $0.500000 | $0.750000 | $1.000000 | $1.250000 | $1.450000 | $1.500000 |');
    const tracker = new ProgressTracker(mkdtempSync(join(tmpdir(), 'rlm-progress-')), 'local', 3, [result('a', 0.5), result('b', null)]);
    expect(tracker.snapshot('running').costUsd).toBe(0.5);
    expect(new ProgressTracker(mkdtempSync(join(tmpdir(), 'rlm-progress-')), 'local', 3, []).snapshot('running').costUsd).toBe(0);
  });
});

describe('cached input and reasoning tokens in the summary', () => {
  const result = (id: string, byModel: TaskResult['usage']['byModel']): TaskResult => ({
    id,
    kind: 'sniah',
    sizeTokens: 8192,
    scorer: 'contains',
    score: 1,
    correct: true,
    scoreDetail: '',
    answer: 'x',
    expected: 'x',
    stopReason: 'answered',
    message: null,
    iterations: 1,
    durationMs: 1000,
    usage: { inputTokens: 1000, outputTokens: 50, calls: 2, costUsd: 0.001, ...(byModel ? { byModel } : {}) },
    logFile: null,
    model: 'm',
    finishedAt: '',
  });
  const meta = { dataset: 'd.jsonl', model: 'm', subModel: null, maxDepth: 1, tasks: 2 };

  it('sums them per model and shows the cached share, with the columns only when reported', () => {
    const m = (cached: number, reasoning: number) => ({
      m: { inputTokens: 1000, outputTokens: 50, calls: 2, costUsd: 0.001, cachedInputTokens: cached, reasoningTokens: reasoning },
    });
    const s = summarize([result('a', m(600, 20)), result('b', m(200, 10))], meta);
    expect(s.byModel['m']).toMatchObject({ inputTokens: 2000, cachedInputTokens: 800, reasoningTokens: 30 });
    const md = summaryMarkdown(s);
    expect(md).toContain('| model | calls | input tokens | cached input | output tokens | reasoning | cost |');
    expect(md).toContain('| m | 4 | 2000 | 800 (40%) | 100 | 30 | $0.002000 |');
    const plain = summaryMarkdown(summarize([result('a', { m: { inputTokens: 1000, outputTokens: 50, calls: 2, costUsd: 0.001 } })], meta));
    expect(plain).toContain('| model | calls | input tokens | output tokens | cost |');
  });
});
