// A model call the endpoint refused and the client retried is visible: in the log (`retries`
// on model.reply and subcall.end), in `run`'s progress and --json, `chat --json`'s turns and
// `stats`, and per task in an
// evaluation's results and summary. Real CLI, real mock-llm process failing every third
// request, real HTTP.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retriesOf, type TrajectoryEvent } from '../../../src-shared/events.ts';
import { readEvalDir } from '../../../src-main/eval/open-dir.ts';
import { runArgs, runCli, startCli, startMockProcess, type MockProcess } from '../support/cli.ts';

let mock: MockProcess;
let dir: string;

beforeAll(async () => {
  mock = await startMockProcess(['--fail-every', '3', '--fail-status', '500', '--fail-retry-after-ms', '5']);
  dir = mkdtempSync(join(tmpdir(), 'rlm-retries-'));
});

afterAll(async () => {
  await mock.close();
});

const runIn = (context: string, query: string): string[] => runArgs({ context, query, baseUrl: mock.url, logDir: dir, model: 'm' });

const eventsIn = (logFile: string): TrajectoryEvent[] =>
  readFileSync(logFile, 'utf8')
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((l) => JSON.parse(l) as TrajectoryEvent);

const retriesIn = (logFile: string): number => eventsIn(logFile).reduce((n, e) => n + retriesOf(e), 0);

describe('retried model calls', () => {
  it('are recorded per call, printed with the reply, and counted by stats', async () => {
    const lines = Array.from(
      { length: 20_000 },
      (_, i) => `record ${i}: user ${(i * 37) % 999} wrote about topic ${['cats', 'dogs', 'birds'][i % 3]}`,
    );
    const context = join(dir, 'records.txt');
    writeFileSync(context, lines.join('\n'));
    const res = await runCli(runIn(context, 'Summarise the records.'));
    expect(res.code, res.stderr).toBe(0);
    const logFile = /^log: (.+)$/m.exec(res.stderr)?.[1];
    expect(logFile).toBeDefined();
    const events = eventsIn(logFile!);
    const calls = events.filter((e) => e.type === 'model.reply' || (e.type === 'subcall.end' && e.error === null));
    expect(calls.filter((e) => e.type === 'subcall.end').length).toBeGreaterThan(2);
    const retries = calls.reduce((n, e) => n + retriesOf(e), 0);
    // Every third request fails and is retried once: of R requests, R / 3 (rounded down) failed.
    const requests = calls.length + retries;
    expect(retries).toBe(Math.floor(requests / 3));
    expect(retries).toBeGreaterThan(0);
    const retriedReplies = events.filter((e) => e.type === 'model.reply' && e.retries);
    expect(res.stderr.match(/ \(1 retry\)$/gm)?.length ?? 0).toBe(retriedReplies.length);

    const stats = await runCli(['stats', logFile!, '--json']);
    expect(stats.code, stats.stderr).toBe(0);
    expect((JSON.parse(stats.stdout) as { retries: number }).retries).toBe(retries);
    const text = await runCli(['stats', logFile!]);
    expect(text.stdout).toMatch(new RegExp(`^requests retried\\s+${retries}$`, 'm'));
  });

  it('are counted in run --json, and per turn in chat --json', async () => {
    const context = join(dir, 'small.txt');
    writeFileSync(context, 'record 1: cats\nrecord 2: dogs\n'.repeat(500));
    const run = await runCli([...runIn(context, 'Summarise.'), '--json']);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { retries?: number; logFile: string };
    const inRun = retriesIn(out.logFile);
    expect(inRun).toBeGreaterThan(0);
    expect(out.retries).toBe(inRun);

    const cli = startCli(
      ['chat', '--context', context, '--base-url', mock.url, '--model', 'm', '--log-dir', dir, '--json'],
      {},
      { stdin: 'pipe' },
    );
    cli.child.stdin!.end('Summarise.\nAnd again.\n');
    const res = await cli.done;
    expect(res.code, res.stderr).toBe(0);
    const turns = res.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { retries?: number; logFile: string });
    expect(turns).toHaveLength(2);
    expect(turns.reduce((n, t) => n + (t.retries ?? 0), 0)).toBe(retriesIn(turns[0]!.logFile));
  });

  it('are counted per task in an evaluation: results.jsonl, its progress lines and summary.md', async () => {
    const ds = join(dir, 'ds.jsonl');
    expect((await runCli(['eval-gen', '--kind', 'oolong', '--sizes', '2^13', '--count', '3', '-o', ds])).code).toBe(0);
    const out = join(dir, 'eval-out');
    const ev = await runCli(['eval', ds, '--base-url', mock.url, '--model', 'mock-root', '--out', out, '--parallel', '1']);
    expect(ev.code, ev.stderr).toBe(0);
    const rows = readFileSync(join(out, 'results.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; logFile: string; retries?: number });
    expect(rows).toHaveLength(3);
    let total = 0;
    for (const row of rows) {
      const inLog = retriesIn(row.logFile);
      // Absent, not 0, when a task had none: lines written before retries were counted read the same.
      expect(row.retries).toBe(inLog > 0 ? inLog : undefined);
      const line = new RegExp(`${row.id} .* calls${inLog > 0 ? ` \\(${inLog} ${inLog === 1 ? 'retry' : 'retries'}\\)` : ' '} `);
      expect(ev.stdout + ev.stderr).toMatch(line);
      total += inLog;
    }
    expect(total).toBeGreaterThan(0);
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain(`model calls (${total} requests retried).`);
    expect((JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { totalRetries: number }).totalRetries).toBe(total);
    // What the app's Evaluation view is given for the directory.
    const overview = readEvalDir(out);
    expect(Object.fromEntries(overview.tasks.map((t) => [t.id, t.retries]))).toEqual(
      Object.fromEntries(rows.map((r) => [r.id, r.retries])),
    );
  }, 120_000);
});
