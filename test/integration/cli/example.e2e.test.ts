// `run --example LOG`: a saved trajectory rendered into the root's system prompt, seen in the
// requests the real mock-llm process records (with their texts), and recorded in the log.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunStartEvent, TrajectoryEvent } from '../../../src-shared/events.ts';
import { reduceEvents } from '../../../src-shared/trajectory/index.ts';
import { reportContext } from '../../../src-main/demo/contexts.ts';
import { renderWorkedExample } from '../../../src-main/engine/worked-example.ts';
import { readLogFile } from '../../../src-main/logs/read-log.ts';
import type { RecordedRequest } from '../../../src-main/mock-llm/server.ts';
import { runCli, startMockProcess, type MockProcess } from '../support/cli.ts';
import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';

const REFERENCE = join(REFERENCE_FIXTURES, 'c_recursive.jsonl');
const NATIVE = resolve(import.meta.dirname, '../rerun/fixtures/js-aggregate.rlm.jsonl');

let mock: MockProcess;
let dir: string;
let recordFile: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-example-'));
  recordFile = join(dir, 'requests.jsonl');
  mock = await startMockProcess(['--record', recordFile, '--record-texts']);
});

afterAll(async () => {
  await mock.close();
});

function recorded(): RecordedRequest[] {
  return readFileSync(recordFile, 'utf8')
    .trimEnd()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as RecordedRequest);
}

async function expected(path: string, budget: number): Promise<string> {
  const c = await readLogFile(path);
  return renderWorkedExample(reduceEvents(c.events, c.header), path, budget).text;
}

describe('run --example', () => {
  it('puts each example in the root system message sent to the model, not in children’s, and the log records them', async () => {
    const { text } = reportContext(3, 3000, 11);
    const ctx = join(dir, 'report.txt');
    writeFileSync(ctx, text);
    const before = recorded().length;
    const res = await runCli([
      'run',
      '--context',
      ctx,
      '--query',
      'Summarise each section of the report (recursive, per section).',
      '--max-depth',
      '2',
      '--base-url',
      mock.url,
      '--model',
      'mock-root',
      '--log-dir',
      dir,
      '--json',
      '--example',
      REFERENCE,
      '--example',
      NATIVE,
      '--example-budget',
      '8000',
    ]);
    expect(res.code, res.stderr).toBe(0);
    const out = JSON.parse(res.stdout) as { stopReason: string; logFile: string };
    expect(out.stopReason).toBe('answered');

    const [a, b] = [await expected(REFERENCE, 4000), await expected(NATIVE, 4000)];
    const reqs = recorded().slice(before);
    const systems = reqs.map((r) => r.messages.find((m) => m.role === 'system')?.content ?? null);
    const withExamples = systems.filter((s) => s !== null && s.includes('\nWorked examples\n'));
    expect(withExamples.length).toBeGreaterThan(0);
    for (const s of withExamples) {
      expect(s).toContain(`--- Worked example 1 ---\n${a}\n(This example's code is Python; your REPL is JavaScript`);
      expect(s).toContain(`--- Worked example 2 ---\n${b}`);
    }
    // Child runs have a system prompt of their own, without the examples.
    const childSystems = systems.filter(
      (s) => s !== null && !s.includes('\nWorked examples\n') && s.startsWith('You are a Recursive Language Model'),
    );
    expect(childSystems.length).toBeGreaterThan(0);

    const events = readFileSync(out.logFile, 'utf8')
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l) as TrajectoryEvent);
    const starts = events.filter((e): e is RunStartEvent => e.type === 'run.start');
    const root = starts.find((e) => e.parentRunId === null)!;
    expect(root.examples).toEqual([
      { source: REFERENCE, chars: a.length, repl: 'python' },
      { source: NATIVE, chars: b.length, repl: 'javascript' },
    ]);
    expect(root.messages[0]!.content).toContain(a);
    const children = starts.filter((e) => e.parentRunId !== null);
    expect(children.length).toBeGreaterThan(0);
    for (const c of children) expect(c.examples).toBeUndefined();
  });

  it('bad input: a missing file, a non-log, a budget too small, depth 0', async () => {
    const ctx = join(dir, 'c.txt');
    writeFileSync(ctx, 'The magic number is 4827193.');
    const base = ['run', '--context', ctx, '--query', 'What is the magic number?', '--base-url', mock.url, '--model', 'mock-root'];
    const missing = await runCli([...base, '--example', join(dir, 'nope.jsonl')]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/--example: cannot read example log .*nope\.jsonl: no such file/);
    const notLog = await runCli([...base, '--example', ctx]);
    expect(notLog.stderr).toMatch(/--example: example .*c\.txt is not a readable log/);
    const small = await runCli([...base, '--example', REFERENCE, '--example-budget', '50']);
    expect(small.stderr).toMatch(/--example: the example budget of 50 characters is too small for .*c_recursive\.jsonl/);
    const badBudget = await runCli([...base, '--example', REFERENCE, '--example-budget', 'lots']);
    expect(badBudget.stderr).toMatch(/--example-budget must be a positive integer/);
    const direct = await runCli([...base, '--example', REFERENCE, '--max-depth', '0']);
    expect(direct.code).not.toBe(0);
    expect(direct.stderr).toMatch(/worked examples need a REPL/);
    for (const r of [missing, notLog, small, badBudget, direct]) expect(r.stderr).not.toMatch(/at .*\.ts:\d+/);
  });
});
