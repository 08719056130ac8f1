// `eval --example LOG`: every task's root run is shown the example, and a resumed evaluation
// must keep the same examples (and budget): they are part of the key in eval.json.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunStartEvent } from '../../../src-shared/events.ts';
import { writeDataset } from '../../../src-main/cli/dataset-file.ts';
import type { TaskResult } from '../../../src-main/eval/results.ts';
import { readLogFile } from '../../../src-main/logs/read-log.ts';
import { runCli, startMockProcess, type MockProcess } from '../support/cli.ts';
import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';

const REFERENCE = join(REFERENCE_FIXTURES, 'c_recursive.jsonl');
let mock: MockProcess;
const tmp = mkdtempSync(join(tmpdir(), 'rlm-eval-examples-'));

beforeAll(async () => {
  mock = await startMockProcess();
});
afterAll(async () => {
  await mock.close();
});

describe('eval --example', () => {
  it('shows the example to every task and refuses to resume with other examples', { timeout: 60_000 }, async () => {
    const ds = join(tmp, 'ds.jsonl');
    await writeDataset({ kinds: ['sniah'], sizes: [8192], seed: 5, count: 2, out: ds, inlineMaxChars: 1_000_000 });
    const out = join(tmp, 'out');
    const args = ['eval', ds, '--base-url', mock.url, '--model', 'mock-root', '--out', out, '--parallel', '1'];
    const first = await runCli([...args, '--example', REFERENCE, '--example-budget', '3000']);
    expect(first.code, first.stderr).toBe(0);
    const results = readFileSync(join(out, 'results.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as TaskResult);
    expect(results).toHaveLength(2);
    for (const r of results) {
      const log = await readLogFile(r.logFile!);
      const root = log.events.find((e): e is RunStartEvent => e.type === 'run.start' && e.parentRunId === null)!;
      expect(root.examples).toEqual([{ source: REFERENCE, chars: expect.any(Number), repl: 'python' }]);
      expect(root.messages[0]!.content).toContain('Example from c_recursive.jsonl');
    }
    const key = JSON.parse(readFileSync(join(out, 'eval.json'), 'utf8')) as { examples: { source: string; text: string }[] };
    expect(key.examples).toEqual([{ source: REFERENCE, text: expect.stringMatching(/^[0-9a-f]{16}$/) }]);

    const same = await runCli([...args, '--example', REFERENCE, '--example-budget', '3000']);
    expect(same.code, same.stderr).toBe(0);
    const without = await runCli(args);
    expect(without.code).not.toBe(0);
    expect(without.stderr).toMatch(/records a different evaluation \(examples: \[.*c_recursive\.jsonl.*\] there, null now\)/);
    const smaller = await runCli([...args, '--example', REFERENCE, '--example-budget', '900']);
    expect(smaller.code).not.toBe(0);
    expect(smaller.stderr).toMatch(/records a different evaluation \(examples:/);
    const direct = await runCli([...args.slice(0, -4), '--out', join(tmp, 'out-direct'), '--example', REFERENCE, '--max-depth', '0']);
    expect(direct.code).not.toBe(0);
    expect(direct.stderr).toMatch(/worked examples need a REPL/);
  });
});
