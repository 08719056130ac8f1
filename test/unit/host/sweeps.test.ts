// `sweep.open` on the host: a sweep folder read with the CLI's code (its figures and each
// configuration's sessions), and folders that are not sweeps refused with the reason.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSweep } from '../../../src-main/host/sweeps.ts';
import { CommandError } from '../../../src-main/host/command-error.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlm-sweep-open-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function result(id: string, correct: boolean, costUsd: number | null): string {
  return `${JSON.stringify({
    id,
    kind: 'sniah',
    sizeTokens: 8192,
    scorer: 'contains',
    score: correct ? 1 : 0,
    correct,
    scoreDetail: '',
    answer: 'x',
    expected: 'x',
    stopReason: 'answered',
    message: null,
    iterations: 2,
    durationMs: 1000,
    usage: { inputTokens: 90, outputTokens: 10, calls: 3, costUsd },
    logFile: null,
    model: 'm',
    finishedAt: '2026-12-07T00:00:00Z',
  })}\n`;
}

describe('openSweep', () => {
  it('reads the manifest and each configuration’s results', () => {
    const dir = join(tmp, 'sweep');
    const configs = [
      { id: 'c-a', name: 'max-depth=1', index: 1, settings: { 'max-depth': 1 }, dir: 'configs/c-a', args: ['--max-depth', '1'] },
      { id: 'c-b', name: 'max-depth=2', index: 2, settings: { 'max-depth': 2 }, dir: 'configs/c-b', args: ['--max-depth', '2'] },
    ];
    for (const c of configs) mkdirSync(join(dir, c.dir), { recursive: true });
    writeFileSync(join(dir, 'configs/c-a/results.jsonl'), result('t1', true, 0.01) + result('t2', false, 0.01));
    writeFileSync(join(dir, 'configs/c-a/progress.json'), JSON.stringify({ total: 2 }));
    writeFileSync(join(dir, 'configs/c-b/results.jsonl'), `${result('t1', true, 0.02)}{"id": "t2", "sco`);
    writeFileSync(
      join(dir, 'sweep.json'),
      JSON.stringify({
        sweep: 1,
        dataset: 'ds.jsonl',
        datasetPath: '/ds.jsonl',
        grid: { axes: [{ name: 'max-depth', values: [1, 2] }], fixed: {} },
        common: {},
        queue: null,
        createdAt: '',
        updatedAt: '',
        configs,
      }),
    );
    const s = openSweep(dir);
    expect(s).toMatchObject({ dir, name: 'sweep', dataset: 'ds.jsonl' });
    expect(s.summary.configs.map((c) => [c.id, c.state, c.sessions, c.accuracy])).toEqual([
      ['c-a', 'finished', 2, 0.5],
      ['c-b', 'partial', 1, 1],
    ]);
    expect(s.summary.pareto).toEqual(['c-a', 'c-b']);
    expect(s.sessions['c-a']!.map((r) => [r.taskId, r.correct, r.tokens])).toEqual([
      ['t1', true, 100],
      ['t2', false, 100],
    ]);
    // The torn last line is skipped and said.
    expect(s.problems).toEqual(['max-depth=2: 1 unreadable line(s) of results.jsonl skipped']);
  });

  it('refuses what is not a sweep folder, saying why', () => {
    const refused = (path: string): CommandError => {
      try {
        openSweep(path);
      } catch (err) {
        if (err instanceof CommandError) return err;
        throw err;
      }
      throw new Error('not refused');
    };
    expect(refused(join(tmp, 'none'))).toMatchObject({ code: 'not_found', message: expect.stringMatching(/no such directory/) });
    mkdirSync(join(tmp, 'plain'));
    expect(refused(join(tmp, 'plain'))).toMatchObject({ code: 'bad_request', message: expect.stringMatching(/has no sweep\.json/) });
    writeFileSync(join(tmp, 'plain', 'sweep.json'), '{"configs": []}');
    expect(refused(join(tmp, 'plain')).message).toMatch(/is not a sweep manifest/);
  });
});
