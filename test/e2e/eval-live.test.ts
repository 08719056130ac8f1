// The Evaluation view follows a queued evaluation as it runs: a real redis-server, one
// `rlm-studio worker` taking one session at a time against a slow mock-llm, the coordinator
// (`eval --queue`) writing results and progress.json, and the app (Chromium against
// `rlm-studio serve`) opened on the folder once: rows and progress appear without any click,
// and the view says when the evaluation has finished.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { runCli, startCli, startMockProcess, type MockProcess, type RunningCli } from '../integration/support/cli.ts';
import { startRedis, type TestRedis } from '../integration/support/redis.ts';
import { shot, appUnderTest } from './support.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlm-e2e-live-'));
const out = join(tmp, 'queued');
const TASKS = 6;
let redis: TestRedis;
let mock: MockProcess;
let page: Page;
let worker: RunningCli;
let coordinator: RunningCli;

const WAIT = { timeout: 60_000, intervals: [250] };

/** Redis, a slow mock-llm, one worker and the coordinator of a queued evaluation, started. */
async function startEvaluation(): Promise<void> {
  const ds = join(tmp, 'ds.jsonl');
  [redis, mock] = await Promise.all([startRedis(), startMockProcess(['--latency-ms', '250'])]);
  const gen = await runCli(['eval-gen', '--kind', 'sniah', '--sizes', '8192', '--count', String(TASKS), '-o', ds]);
  if (gen.code !== 0) throw new Error(gen.stderr);
  worker = startCli(['worker', '--queue', redis.url, '--concurrency', '1']);
  coordinator = startCli(['eval', ds, '--queue', redis.url, '--base-url', mock.url, '--model', 'mock-root', '--out', out, '--no-progress']);
}

appUnderTest({
  before: startEvaluation,
  after: async () => {
    for (const c of [coordinator, worker]) {
      if (c && c.child.exitCode === null) c.child.kill('SIGTERM');
      await c?.done;
    }
    await mock?.close();
    await redis?.stop();
    rmSync(tmp, { recursive: true, force: true });
  },
  onOpen: (a) => (page = a.page),
});

const rows = (): Promise<number> => page.locator('[data-testid^="eval-row-"]').count();

describe('the Evaluation view while a queued evaluation runs', () => {
  it('fills in rows and progress by itself, then says it finished', async () => {
    await expect.poll(() => existsSync(join(out, 'progress.json')), WAIT).toBe(true);
    await page.getByTestId('tab-eval').click();
    await page.getByTestId('eval-path').fill(out);
    await page.getByTestId('eval-open').click();
    const progress = page.getByTestId('eval-progress');
    await progress.waitFor();
    // Opened while running: fewer rows than tasks, and the line says so.
    expect(await rows()).toBeLessThan(TASKS);
    expect(await progress.getAttribute('data-live')).toBe('yes');
    expect(await progress.textContent()).toMatch(/Running on the queue: \d+\/6 done · \d+ running · 0 failed/);
    const first = await rows();
    await shot(page, 'eval-live-running');
    // No click from here on: the view reads the folder again while it is live.
    await expect.poll(rows, WAIT).toBeGreaterThan(first);
    await expect.poll(rows, WAIT).toBe(TASKS);
    await expect.poll(() => progress.getAttribute('data-live'), WAIT).toBe('no');
    expect(await progress.textContent()).toMatch(/Finished: 6\/6 done · 0 running · 0 failed/);
    expect(await page.getByTestId('eval-summary').textContent()).toMatch(/6 of 6 tasks finished; accuracy 100\.0%/);
    await shot(page, 'eval-live-finished');
    expect((await coordinator.done).code).toBe(0);
  });
});
