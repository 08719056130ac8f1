// A model call the endpoint refused and the client retried is visible: in the log (`retries`
// on model.reply and subcall.end), in `run`'s progress and in `stats`. Real CLI, real mock-llm
// process failing every third request, real HTTP.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import { runCli, startMockProcess, type MockProcess } from '../support/cli.ts';

let mock: MockProcess;
let dir: string;

beforeAll(async () => {
  mock = await startMockProcess(['--fail-every', '3', '--fail-status', '500', '--fail-retry-after-ms', '5']);
  dir = mkdtempSync(join(tmpdir(), 'rlm-retries-'));
});

afterAll(async () => {
  await mock.close();
});

describe('retried model calls', () => {
  it('are recorded per call, printed with the reply, and counted by stats', async () => {
    const lines = Array.from(
      { length: 20_000 },
      (_, i) => `record ${i}: user ${(i * 37) % 999} wrote about topic ${['cats', 'dogs', 'birds'][i % 3]}`,
    );
    const context = join(dir, 'records.txt');
    writeFileSync(context, lines.join('\n'));
    const res = await runCli([
      'run',
      '--context',
      context,
      '--query',
      'Summarise the records.',
      '--base-url',
      mock.url,
      '--model',
      'm',
      '--log-dir',
      dir,
    ]);
    expect(res.code, res.stderr).toBe(0);
    const logFile = /^log: (.+)$/m.exec(res.stderr)?.[1];
    expect(logFile).toBeDefined();
    const events = readFileSync(logFile!, 'utf8')
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l) as TrajectoryEvent);
    const calls = events.filter((e) => e.type === 'model.reply' || (e.type === 'subcall.end' && e.error === null));
    expect(calls.filter((e) => e.type === 'subcall.end').length).toBeGreaterThan(2);
    const retries = calls.reduce((n, e) => n + ((e.type === 'model.reply' || e.type === 'subcall.end' ? e.retries : 0) ?? 0), 0);
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
});
