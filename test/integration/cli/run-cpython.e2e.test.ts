// `--repl cpython` through the real CLI: `run` against the mock-llm process (a recursion whose
// children run CPython too), `rerun` of the reference library's own logs in real CPython, `eval`,
// and the refusals (no OS sandbox, --python without cpython, a Python too old or missing).
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogHeader, RunStartEvent, TrajectoryEvent } from '../../../src-shared/events.ts';
import { needleContext, reportContext } from '../../../src-main/demo/contexts.ts';
import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';
import { runArgs, runCli, startMockProcess, type MockProcess } from '../support/cli.ts';

/** Debian's python3, with numpy (bin/lib/ensure-sandbox.sh). */
const PYTHON = '/usr/bin/python3';
let mock: MockProcess;
let dir: string;

beforeAll(async () => {
  mock = await startMockProcess();
  dir = mkdtempSync(join(tmpdir(), 'rlm-e2e-cpython-'));
});
afterAll(async () => {
  await mock.close();
});

function writeContext(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

function eventsOf(logFile: string): { header: LogHeader; events: TrajectoryEvent[] } {
  const lines = readFileSync(logFile, 'utf8').trimEnd().split('\n');
  return { header: JSON.parse(lines[0]!) as LogHeader, events: lines.slice(1).map((l) => JSON.parse(l) as TrajectoryEvent) };
}

describe('rlm-studio run --repl cpython against mock-llm', () => {
  it('finds a needle, the model taught Python and its code run by CPython', async () => {
    const { text, answer } = needleContext(400_000, 3);
    const logDir = mkdtempSync(join(dir, 'logs-'));
    const args = runArgs({
      context: writeContext('needle.txt', text),
      query: 'What is the magic number in the context?',
      baseUrl: mock.url,
      logDir,
    });
    const r = await runCli([...args, '--repl', 'cpython', '--python', PYTHON, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { answer: string; stopReason: string; logFile: string; sandbox?: { layers: string[] } };
    expect(out).toMatchObject({ stopReason: 'answered', answer });
    const { header, events } = eventsOf(out.logFile);
    // The same Python as --repl python shows the model: the log says python.
    expect(header.repl).toBe('python');
    const start = events.find((e): e is RunStartEvent => e.type === 'run.start');
    expect(start?.repl).toBe('python');
    // What protected the code is recorded in the log and in --json.
    expect(start?.sandbox?.layers).toEqual(expect.arrayContaining(['bwrap', 'rlimits', 'scrubbed-env']));
    expect(out.sandbox?.layers).toEqual(start?.sandbox?.layers);
    expect(events.filter((e) => e.type === 'block.end').every((e) => e.type === 'block.end' && e.error === null)).toBe(true);
  });

  it('runs a depth-2 recursion whose children run CPython of their own', async () => {
    const { text } = reportContext(3, 3000, 11);
    const logDir = mkdtempSync(join(dir, 'logs-'));
    const args = runArgs({
      context: writeContext('report.txt', text),
      query: 'Summarise each section of the report (recursive, per section).',
      baseUrl: mock.url,
      logDir,
    });
    const r = await runCli([...args, '--repl', 'cpython', '--python', PYTHON, '--max-depth', '2', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { answer: string; stopReason: string; logFile: string };
    expect(out.stopReason).toBe('answered');
    const { events } = eventsOf(out.logFile);
    const children = events.filter((e) => e.type === 'run.start' && e.depth === 1);
    expect(children.length).toBeGreaterThanOrEqual(3);
    const childBlocks = events.filter((e) => e.type === 'block.end' && e.depth === 1);
    expect(childBlocks.length).toBeGreaterThan(0);
    expect(childBlocks.every((e) => e.type === 'block.end' && e.error === null)).toBe(true);
  });

  it('refuses with the reason where there is no OS sandbox, and --python without --repl cpython', async () => {
    const logDir = mkdtempSync(join(dir, 'logs-'));
    const args = runArgs({ context: writeContext('small.txt', 'hello'), query: 'q', baseUrl: mock.url, logDir });
    const none = await runCli([...args, '--repl', 'cpython'], { RLM_STUDIO_BWRAP: '/nonexistent/bwrap' });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('the CPython REPL runs only inside an OS sandbox, and there is none here');
    expect(none.stderr).toContain('RLM_STUDIO_BWRAP names /nonexistent/bwrap');
    expect(none.stderr).not.toMatch(/at .*\.ts:\d+/);
    const stray = await runCli([...args, '--python', PYTHON]);
    expect(stray.code).toBe(2);
    expect(stray.stderr).toContain('--python names the interpreter of --repl cpython');
    const missing = await runCli([...args, '--repl', 'cpython', '--python', '/nonexistent/python3']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('/nonexistent/python3 was not found');
  });
});

describe('rlm-studio rerun --repl cpython', () => {
  const CONTEXTS = join(REFERENCE_FIXTURES, 'contexts');
  // Each reference log's blocks, run again in real CPython: every output the reference's CPython printed.
  for (const [log, context] of [
    ['a_needle.jsonl', 'a_needle.txt'],
    ['b_aggregate.jsonl', 'b_aggregate.json'],
    ['c_recursive.jsonl', 'c_recursive.txt'],
    ['d_max_iterations.jsonl', 'd_max_iterations.txt'],
  ] as const) {
    it(`re-executes the reference's ${log} with every block the same`, async () => {
      const logDir = mkdtempSync(join(dir, 'rerun-'));
      const r = await runCli([
        'rerun',
        join(REFERENCE_FIXTURES, log),
        '--context',
        join(CONTEXTS, context),
        '--repl',
        'cpython',
        '--python',
        PYTHON,
        '--log-dir',
        logDir,
        '--json',
      ]);
      expect(r.code, r.stderr + r.stdout).toBe(0);
      const out = JSON.parse(r.stdout) as { blocks: number; same: number; different: unknown[]; repl: string };
      expect(out.repl).toBe('cpython');
      expect(out.different).toEqual([]);
      expect(out.same).toBe(out.blocks);
      expect(out.blocks).toBeGreaterThan(0);
    });
  }
});

describe('rlm-studio eval --repl cpython', () => {
  it('runs every task of a dataset in CPython sessions', async () => {
    const ds = join(dir, 'dataset.jsonl');
    const gen = await runCli(['eval-gen', '--kind', 'sniah', '--sizes', '2^13', '--count', '3', '-o', ds]);
    expect(gen.code, gen.stderr).toBe(0);
    const outDir = join(dir, 'eval-out');
    const r = await runCli([
      'eval',
      ds,
      '--base-url',
      mock.url,
      '--model',
      'mock-root',
      '--out',
      outDir,
      '--parallel',
      '3',
      '--repl',
      'cpython',
      '--python',
      PYTHON,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const results = readFileSync(join(outDir, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { stopReason: string; correct?: boolean });
    expect(results).toHaveLength(3);
    for (const res of results) expect(res.stopReason).toBe('answered');
    const record = JSON.parse(readFileSync(join(outDir, 'eval.json'), 'utf8')) as { repl: string; cpython: unknown };
    expect(record).toMatchObject({ repl: 'python', cpython: { python: PYTHON } });
    expect(readdirSync(join(outDir, 'logs')).length).toBe(3);
  });
});
