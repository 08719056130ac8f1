// `rlm-studio score` on a large evaluation (issue 42: 1,000 tasks with a module scorer in under
// 10 s, no model called): a synthesised evaluation folder (results.jsonl with answers, eval.json
// naming a dataset of the tasks' questions) scored by a module, timed as the command runs it,
// in-process and as a whole process. No endpoint is given, so no model can be called.
// node --no-node-snapshot bench/score.ts [--tasks 1000]
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runScore } from '../src-main/cli/commands/score.ts';
import { log, root } from './lib.ts';

const { values } = parseArgs({ options: { tasks: { type: 'string', default: '1000' } } });
const tasks = Number(values.tasks);
const dir = mkdtempSync(join(tmpdir(), 'rlm-bench-score-'));
try {
  const out = join(dir, 'eval');
  mkdirSync(join(out, 'logs'), { recursive: true });
  const dataset = join(dir, 'ds.jsonl');
  const ds: string[] = [];
  const results: string[] = [];
  for (let i = 0; i < tasks; i++) {
    const id = `t${i}`;
    ds.push(
      JSON.stringify({ id, kind: 'qa', query: `What is item ${i}?`, expected: `answer ${i}`, scorer: 'exact', context: 'x'.repeat(2000) }),
    );
    results.push(
      JSON.stringify({
        id,
        kind: 'qa',
        sizeTokens: null,
        scorer: 'exact',
        score: 0,
        correct: false,
        scoreDetail: 'no exact match',
        answer: i % 3 === 0 ? `The answer is Answer ${i}.` : `no idea ${'y'.repeat(500)}`,
        expected: `answer ${i}`,
        stopReason: 'answered',
        message: null,
        iterations: 3,
        durationMs: 1000,
        usage: { inputTokens: 100, outputTokens: 10, calls: 3, costUsd: 0.001 },
        logFile: join(out, 'logs', `${id}.rlm.jsonl`),
        model: 'm',
        finishedAt: new Date().toISOString(),
      }),
    );
  }
  writeFileSync(dataset, `${ds.join('\n')}\n`);
  writeFileSync(join(out, 'results.jsonl'), `${results.join('\n')}\n`);
  writeFileSync(join(out, 'eval.json'), JSON.stringify({ dataset, model: 'm' }));
  const scorer = join(dir, 'contains.mjs');
  writeFileSync(
    scorer,
    `export const name = 'contains-ci';
export function score({ answer, expected }) {
  const ok = answer !== null && answer.toLowerCase().includes(String(expected).toLowerCase());
  return { score: ok ? 1 : 0, detail: ok ? 'found' : 'not found' };
}
`,
  );
  const t0 = performance.now();
  const report = await runScore(out, { scorer, json: true }, { out: () => undefined, err: (t) => void process.stderr.write(t) });
  const inProcess = performance.now() - t0;
  const t1 = performance.now();
  execFileSync(join(root, 'bin', 'rlm-studio'), ['score', out, '--scorer', scorer, '--name', 'again', '--json'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const whole = performance.now() - t1;
  log(`scored ${report.sessions} sessions (${report.correct} correct)`);
  process.stdout.write(
    `score, ${tasks} tasks, module scorer: ${(inProcess / 1000).toFixed(2)} s in-process, ${(whole / 1000).toFixed(2)} s as a whole process (./bin/rlm-studio score, start-up included); no endpoint given, so no model call\n`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
