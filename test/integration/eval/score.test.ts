// `rlm-studio score DIR`: a finished evaluation scored again without its root models, by a
// scorer module or a model judge (mock-llm over HTTP, scripted verdicts); the scores appended
// to scores.jsonl beside the old ones, and read back by `stats --scores`.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerEval } from '../../../src-main/cli/commands/eval.ts';
import { registerScore } from '../../../src-main/cli/commands/score.ts';
import { writeDataset } from '../../../src-main/cli/dataset-file.ts';
import { readEvalDir } from '../../../src-main/eval/open-dir.ts';
import { readResults } from '../../../src-main/eval/results.ts';
import { runEval } from '../../../src-main/eval/runner.ts';
import { loadScorerModule } from '../../../src-main/eval/scorer-module.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import { registerStats } from '../../../src-main/cli/commands/stats.ts';
import { UsageError } from '../../../src-main/cli/errors.ts';
import { parseScript, scriptPolicy } from '../../../src-main/mock-llm/policies/script.ts';
import { startMockLlm, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';
import { writeEvalDir } from '../../support/policy-sessions.ts';
import { runInProcess } from '../support/in-process-cli.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlm-score-'));
let mock: MockLlmServer;
beforeAll(async () => {
  mock = await startMockLlm({
    costPerMTok: 2,
    policy: scriptPolicy(
      parseScript({
        rules: [
          { match: { lastUser: '^ANSWER: Paris$' }, reply: 'The capital is Paris, as expected.\nVERDICT: CORRECT' },
          { match: { lastUser: '^ANSWER: ' }, reply: 'That is not the city asked for.\nVERDICT: INCORRECT' },
        ],
      }),
    ),
  });
});
afterAll(async () => {
  await mock.close();
  rmSync(tmp, { recursive: true, force: true });
});

const cli = (...args: string[]) => runInProcess([registerScore, registerStats, registerEval], args);

/** Six sessions: t0..t2 twice each; results.jsonl's exact scorer called only "Paris" right. */
function evaluation(name: string): string {
  const dir = join(tmp, name);
  const answers = ['Paris', 'paris, France', 'Lyon'];
  writeEvalDir(
    dir,
    [0, 1, 2].flatMap((i) =>
      [0, 1].map((r) => ({
        id: `t${i}`,
        repeat: r,
        correct: i === 0,
        answer: answers[i]!,
        expected: 'Paris',
        shape: { query: `q${i}`, calls: [1] },
      })),
    ),
  );
  return dir;
}

function module(name: string, body: string): string {
  const path = join(tmp, name);
  writeFileSync(path, body);
  return path;
}

const LENIENT = module(
  'lenient.mjs',
  `export const name = 'lenient';
export function score({ answer, expected, task }) {
  const ok = typeof answer === 'string' && answer.toLowerCase().includes(String(expected).toLowerCase());
  return { score: ok ? 1 : 0, detail: ok ? 'mentions ' + expected + ' (' + task.id + '#' + task.repeat + ')' : 'does not' };
}
`,
);

describe('rlm-studio score', () => {
  it('a scorer module: scores every session, appends under its id, leaves results.jsonl alone; stats reads it', async () => {
    const dir = evaluation('module');
    const before = readFileSync(join(dir, 'results.jsonl'), 'utf8');
    const r = await cli('score', dir, '--scorer', LENIENT, '--json');
    expect(r.error).toBeNull();
    expect(JSON.parse(r.out)).toMatchObject({ scorer: 'lenient', sessions: 6, correct: 4, meanScore: 4 / 6, changed: 2 });
    const lines = readFileSync(join(dir, 'scores.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [l['scorer'], l['id'], l['repeat'] ?? 0, l['correct']])).toEqual([
      ['lenient', 't0', 0, true],
      ['lenient', 't0', 1, true],
      ['lenient', 't1', 0, true],
      ['lenient', 't1', 1, true],
      ['lenient', 't2', 0, false],
      ['lenient', 't2', 1, false],
    ]);
    expect(lines[3]!['detail']).toBe('mentions Paris (t1#1)');
    // Again: appended beside the first, never rewritten.
    await cli('score', dir, '--scorer', LENIENT, '--name', 'lenient-2');
    expect(readFileSync(join(dir, 'scores.jsonl'), 'utf8').trim().split('\n')).toHaveLength(12);
    expect(readFileSync(join(dir, 'results.jsonl'), 'utf8')).toBe(before);

    const stats = async (...extra: string[]) =>
      JSON.parse((await cli('stats', dir, '--json', ...extra)).out) as { policy: { sessions: { taskId: string; correct: boolean }[] } };
    const correctOf = (o: Awaited<ReturnType<typeof stats>>) => o.policy.sessions.filter((s) => s.correct).map((s) => s.taskId);
    expect(correctOf(await stats())).toEqual(['t0', 't0']);
    expect(correctOf(await stats('--scores', 'lenient'))).toEqual(['t0', 't0', 't1', 't1']);
    // What the app's host reads for eval.open: the scorers on offer, and the chosen one's results.
    const plain = readEvalDir(dir);
    expect([plain.scorers, plain.scorer, plain.tasks.filter((t) => t.correct).length]).toEqual([['lenient', 'lenient-2'], null, 2]);
    const chosen = readEvalDir(dir, { scorer: 'lenient' });
    expect([chosen.scorer, chosen.tasks.filter((t) => t.correct).map((t) => t.id)]).toEqual(['lenient', ['t0', 't0#1', 't1', 't1#1']]);
    const missing = await cli('stats', dir, '--scores', 'nope');
    expect(missing.error).toBeInstanceOf(UsageError);
    expect((missing.error as Error).message).toMatch(/has no scores by "nope" \(scores\.jsonl has: lenient, lenient-2\)/);
  });

  it('refuses a module that breaks the contract, naming the problem, and writes nothing', async () => {
    const dir = evaluation('bad-modules');
    const noScore = module('none.mjs', 'export const name = "x";\n');
    const r1 = await cli('score', dir, '--scorer', noScore);
    expect(r1.error).toBeInstanceOf(UsageError);
    expect((r1.error as Error).message).toMatch(/export a function `score\(\{ answer, expected, task \}\)`/);
    const outOfRange = module('range.mjs', 'export function score() { return 2; }\n');
    const r2 = await cli('score', dir, '--scorer', outOfRange);
    expect((r2.error as Error).message).toMatch(
      /scorer range on task t0: a score must be a number from 0 to 1, got 2; nothing was written to scores\.jsonl/,
    );
    const throws = module(
      'throws.mjs',
      'export default async function ({ task }) { if (task.id === "t2") throw new Error("boom"); return true; }\n',
    );
    const r3 = await cli('score', dir, '--scorer', throws);
    expect((r3.error as Error).message).toMatch(/scorer throws threw on task t2: boom/);
    expect(existsSync(join(dir, 'scores.jsonl'))).toBe(false);
    const neither = await cli('score', dir);
    expect((neither.error as Error).message).toMatch(/say how to score: --scorer FILE\.mjs, or --judge-model/);
    const notEval = await cli('score', tmp, '--scorer', LENIENT);
    expect((notEval.error as Error).message).toMatch(/has no results\.jsonl/);
  });

  it('a model judge: one recorded call per session, verdict and reasoning kept, its cost counted', async () => {
    const dir = evaluation('judge');
    const prompt = join(tmp, 'judge.txt');
    writeFileSync(prompt, 'Question: {question}\nExpected: {expected}\nIs this answer right?\nANSWER: {answer}');
    const r = await cli('score', dir, '--judge-model', 'judge-1', '--judge-prompt', prompt, '--base-url', mock.url, '--json');
    expect(r.error).toBeNull();
    const report = JSON.parse(r.out) as { scorer: string; sessions: number; correct: number; judgeCostUsd: number };
    expect(report).toMatchObject({ scorer: 'judge-judge-1', sessions: 6, correct: 2 });
    expect(report.judgeCostUsd).toBeGreaterThan(0);
    const lines = readFileSync(join(dir, 'scores.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            id: string;
            correct: boolean;
            judge: { verdict: string; reasoning: string; logFile: string; costUsd: number };
          },
      );
    expect(lines.map((l) => [l.id, l.judge.verdict])).toEqual([
      ['t0', 'correct'],
      ['t0', 'correct'],
      ['t1', 'incorrect'],
      ['t1', 'incorrect'],
      ['t2', 'incorrect'],
      ['t2', 'incorrect'],
    ]);
    expect(lines[0]!.judge.reasoning).toBe('The capital is Paris, as expected.');
    // Each judge call is a log like any other: stats over them gives the same cost.
    const logs = readdirSync(join(dir, 'judge', 'judge-judge-1'));
    expect(logs).toHaveLength(6);
    expect(lines.every((l) => existsSync(join(dir, l.judge.logFile)))).toBe(true);
    const s = JSON.parse((await cli('stats', join(dir, 'judge', 'judge-judge-1'), '--json')).out) as {
      sessions: number;
      costUsd: number;
      byModel: Record<string, { calls: number }>;
    };
    expect(s.sessions).toBe(6);
    expect(s.byModel['judge-1']!.calls).toBe(6);
    expect(s.costUsd).toBeCloseTo(report.judgeCostUsd, 9);
    const noAnswer = join(tmp, 'blind.txt');
    writeFileSync(noAnswer, 'Is it right?');
    const blind = await cli('score', dir, '--judge-model', 'judge-1', '--judge-prompt', noAnswer, '--base-url', mock.url);
    expect((blind.error as Error).message).toMatch(/the prompt never shows the answer; put \{answer\}/);
  });

  it('eval --scorer: every session scored by the module while the evaluation runs, its id in each result', async () => {
    const sniah = await startMockLlm({ latencyMs: 0 });
    try {
      const ds = join(tmp, 'ds.jsonl');
      await writeDataset({ kinds: ['sniah'], sizes: [8192], seed: 1, count: 2, out: ds, inlineMaxChars: 1 << 20 });
      const half = module(
        'half.mjs',
        `export function score({ answer, task }) { return { score: 0.5, correct: answer !== null, detail: 'half of ' + task.query.slice(0, 8) }; }\n`,
      );
      const out = join(tmp, 'eval-scored');
      const client = new OpenAiCompatibleClient({ baseUrl: sniah.url, apiKey: 'x', maxRetries: 0 });
      await runEval({
        dataset: ds,
        outDir: out,
        client,
        baseUrl: sniah.url,
        model: 'mock-root',
        parallel: 2,
        scorer: await loadScorerModule(half),
      });
      const { results } = readResults(join(out, 'results.jsonl'));
      expect(results.map((r) => [r.scorer, r.score, r.correct])).toEqual([
        ['half', 0.5, true],
        ['half', 0.5, true],
      ]);
      expect(results[0]!.scoreDetail).toMatch(/^half of /);
      const queued = await cli(
        'eval',
        ds,
        '--base-url',
        sniah.url,
        '--model',
        'm',
        '--out',
        join(tmp, 'q'),
        '--queue',
        'redis://127.0.0.1:1',
        '--scorer',
        half,
      );
      expect((queued.error as Error).message).toMatch(
        /--scorer is for runs without a queue: score a queued evaluation once it is collected, with rlm-studio score/,
      );
    } finally {
      await sniah.close();
    }
  });
});
