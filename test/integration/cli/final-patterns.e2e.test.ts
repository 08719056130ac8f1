// `--final-patterns` on the CLI's `run` and `eval`: the real CLI against a mock-llm process
// playing a script whose model ends with FINAL(...) inside a repl block, as paper-era
// checkpoints did. Without the switch that is no answer (FINAL is no REPL function then).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startMockProcess, type MockProcess } from '../support/cli.ts';

let mock: MockProcess;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-final-'));
  const script = join(dir, 'script.json');
  writeFileSync(
    script,
    JSON.stringify({
      rules: [
        { match: { kind: 'rlm' }, reply: 'Counting.\n```repl\nvar n = context.length;\nFINAL("length " + n)\n```' },
        { match: { kind: 'final' }, reply: 'no paper-era answer' },
      ],
    }),
  );
  mock = await startMockProcess(['--script', script]);
});

afterAll(async () => {
  await mock.close();
});

describe('--final-patterns', () => {
  it('run: FINAL(...) in code answers with the switch, and is no answer without it', async () => {
    const context = join(dir, 'ctx.txt');
    writeFileSync(context, 'abcdef');
    const base = [
      'run',
      '--context',
      context,
      '--query',
      'How long?',
      '--base-url',
      mock.url,
      '--model',
      'mock-root',
      '--max-iterations',
      '1',
      '--log-dir',
      join(dir, 'logs'),
      '--json',
    ];
    const on = await runCli([...base, '--final-patterns']);
    expect(on.code, on.stderr).toBe(0);
    expect(JSON.parse(on.stdout)).toMatchObject({ answer: 'length 6', stopReason: 'answered' });
    const off = await runCli(base);
    expect(off.code, off.stderr).toBe(0);
    expect(JSON.parse(off.stdout)).toMatchObject({ answer: 'no paper-era answer', stopReason: 'max_iterations' });
  });

  it('eval: every task of the dataset runs with the switch', async () => {
    const dataset = join(dir, 'tasks.jsonl');
    const task = (id: string, context: string) =>
      JSON.stringify({ id, kind: 'custom', query: 'How long?', expected: `length ${context.length}`, scorer: 'exact', context });
    writeFileSync(dataset, `${task('a', 'xyz')}\n${task('b', 'abcdefgh')}\n`);
    const base = ['eval', dataset, '--base-url', mock.url, '--model', 'mock-root', '--max-iterations', '1', '--json'];
    const on = await runCli([...base, '--out', join(dir, 'eval-on'), '--final-patterns']);
    expect(on.code, on.stderr).toBe(0);
    expect(JSON.parse(on.stdout)).toMatchObject({ tasks: 2, correct: 2 });
    const off = await runCli([...base, '--out', join(dir, 'eval-off')]);
    expect(off.code, off.stderr).toBe(0);
    expect(JSON.parse(off.stdout)).toMatchObject({ tasks: 2, correct: 0 });
  });
});
