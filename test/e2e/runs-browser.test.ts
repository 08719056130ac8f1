// The runs browser in Chromium against `rlm-studio serve`: session logs and an evaluation
// folder of the runs folder listed with status, model, REPL, score and cost (unknown shown as
// unknown, not $0); a run started afterwards by another process appears live and turns
// finished without the page asking again; filtering and sorting; a click opens a run as a
// session and an evaluation in the Evaluation view.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { type MockProcess, runArgs, runCli, startCli, startMockProcess } from '../integration/support/cli.ts';
import { appUnderTest, shot } from './support.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlm-e2e-runs-'));
const runs = join(tmp, 'runs');
const ctx = join(tmp, 'ctx.txt');
const WAIT = { timeout: 30_000 };
let mock: MockProcess;
let slow: MockProcess;
let page: Page;
let pricedLog = '';
let unpricedLog = '';

async function cli(args: string[]): Promise<string> {
  const r = await runCli(args, {}, 115_000);
  if (r.code !== 0) throw new Error(`rlm-studio ${args.join(' ')} exited ${r.code}:\n${r.stderr}`);
  return r.stdout;
}

const logOf = (stdout: string): string => (JSON.parse(stdout) as { logFile: string }).logFile;

async function prepare(): Promise<void> {
  mkdirSync(runs, { recursive: true });
  writeFileSync(ctx, 'alpha beta\nthe secret code is 4411\ngamma\n');
  [mock, slow] = await Promise.all([startMockProcess(['--cost-per-mtok', '0.5']), startMockProcess(['--latency-ms', '1500'])]);
  const ds = join(tmp, 'ds.jsonl');
  const run = (url: string, model: string) =>
    cli([...runArgs({ context: ctx, query: 'What is the code?', baseUrl: url, logDir: runs, model }), '--json']);
  const [priced, unpriced] = await Promise.all([
    run(mock.url, 'mock-root'),
    // No price anywhere (the slow mock reports none, and the model is not in the price table).
    run(slow.url, 'my-unpriced-model'),
    cli(['eval-gen', '--kind', 'sniah', '--sizes', '8192', '-o', ds]).then(() =>
      Promise.all([
        cli(['eval', ds, '--base-url', mock.url, '--model', 'mock-root', '--out', join(runs, 'eval-sniah')]),
        cli(['eval', ds, '--base-url', slow.url, '--model', 'unpriced-root', '--out', join(runs, 'eval-unpriced')]),
      ]),
    ),
  ]);
  pricedLog = logOf(priced);
  unpricedLog = logOf(unpriced);
  // A log whose process died mid-run: the header and the root's start, last written long ago.
  const cut = join(runs, '2020-01-01_00-00-00_deadbeef.rlm.jsonl');
  const [header, start] = readFileSync(pricedLog, 'utf8').split('\n');
  writeFileSync(cut, `${JSON.stringify({ ...JSON.parse(header!), createdAt: '2020-01-01T00:00:00.000Z' })}\n${start}\n`);
  utimesSync(cut, new Date('2020-01-01'), new Date('2020-01-01'));
}

const app = appUnderTest({
  serveArgs: ['--runs-dir', runs],
  before: prepare,
  after: async () => {
    await Promise.all([mock?.close(), slow?.close()]);
    rmSync(tmp, { recursive: true, force: true });
  },
  onOpen: (a) => (page = a.page),
});

const row = (path: string) => page.locator(`[data-testid="runs-row"][data-path="${path}"]`);
const names = async (): Promise<string[]> =>
  page
    .locator('[data-testid="runs-row"] .runs-name')
    .evaluateAll((els) => els.map((e) => (e.textContent ?? '').replace(/^(run|eval) /, '')));

describe('the runs browser', () => {
  it('lists the runs folder: runs and an evaluation, with status, model, REPL, score and cost', async () => {
    // From the start page, as a newcomer finds it.
    await page.getByTestId('welcome-runs').click();
    await expect.poll(async () => page.getByTestId('runs-row').count(), WAIT).toBe(5);
    const priced = row(pricedLog);
    await expect.poll(() => priced.getAttribute('data-status')).toBe('finished');
    const text = (await priced.innerText()).replace(/\s+/g, ' ');
    expect(text).toContain('mock-root');
    expect(text).toContain('javascript');
    expect(text).toMatch(/\$0\.\d+/);
    // Unknown cost is unknown, never $0.
    const unpriced = (await row(unpricedLog).innerText()).replace(/\s+/g, ' ');
    expect(unpriced).toContain('my-unpriced-model');
    expect(unpriced).toContain('unknown');
    expect(unpriced).not.toContain('$0');
    await expect.poll(() => row(join(runs, '2020-01-01_00-00-00_deadbeef.rlm.jsonl')).getAttribute('data-status')).toBe('interrupted');
    const ev = row(join(runs, 'eval-sniah'));
    expect(await ev.getAttribute('data-status')).toBe('finished');
    expect((await ev.innerText()).replace(/\s+/g, ' ')).toMatch(/eval eval-sniah.*mock-root.*javascript.*1\/1 100%/);
    expect((await row(join(runs, 'eval-unpriced')).innerText()).replace(/\s+/g, ' ')).toMatch(/unpriced-root.*1\/1 100% unknown/);
    await shot(page, 'runs-browser');
  });

  it('shows a run started by another process live, then finished, with no request from the page', async () => {
    // What the page sends from here on (its socket is already open: wrap send on the prototype).
    await page.evaluate(() => {
      const w = globalThis as unknown as { sentFrames: string[] };
      w.sentFrames = [];
      const send = WebSocket.prototype.send;
      WebSocket.prototype.send = function (this: WebSocket, data: string | ArrayBufferLike | Blob | ArrayBufferView) {
        w.sentFrames.push(String(data));
        send.call(this, data);
      };
    });
    const running = startCli(runArgs({ context: ctx, query: 'What is the code?', baseUrl: slow.url, logDir: runs, model: 'mock-slow' }));
    try {
      const live = page.locator('[data-testid="runs-row"][data-status="live"]');
      await live.first().waitFor(WAIT);
      expect(await live.first().innerText()).toContain('mock-slow');
      await shot(page, 'runs-browser-live');
      const r = await running.done;
      expect(r.code).toBe(0);
      await expect.poll(() => page.locator('[data-testid="runs-row"][data-status="live"]').count(), WAIT).toBe(0);
      await expect.poll(async () => page.getByTestId('runs-row').count()).toBe(6);
    } finally {
      running.child.kill();
    }
    // Pushed by the host: the page asked for no listing meanwhile.
    const sent = await page.evaluate(() => (globalThis as unknown as { sentFrames: string[] }).sentFrames);
    expect(sent.filter((p) => p.includes('runs.watch') || p.includes('runs.recent'))).toEqual([]);
  });

  it('filters by text, kind and status, and sorts by a column', async () => {
    await page.getByTestId('runs-filter').fill('my-unpriced-model');
    await expect.poll(names).toEqual([unpricedLog.split('/').at(-1)]);
    await page.getByTestId('runs-filter').fill('');
    await page.getByTestId('runs-kind').selectOption('evaluation');
    await expect.poll(async () => (await names()).sort()).toEqual(['eval-sniah', 'eval-unpriced']);
    await page.getByTestId('runs-kind').selectOption('all');
    await page.getByTestId('runs-status').selectOption('interrupted');
    await expect.poll(names).toEqual(['2020-01-01_00-00-00_deadbeef.rlm.jsonl']);
    await page.getByTestId('runs-status').selectOption('all');
    await page.getByTestId('runs-sort-name').click();
    const asc = await names();
    expect(asc).toHaveLength(6);
    expect(asc).toEqual([...asc].sort());
    await page.getByTestId('runs-sort-name').click();
    expect(await names()).toEqual([...asc].reverse());
    // By date, newest first: the log started in 2020 is last.
    await page.getByTestId('runs-sort-date').click();
    expect((await names()).at(-1)).toBe('2020-01-01_00-00-00_deadbeef.rlm.jsonl');
  });

  it('a click opens an evaluation in the Evaluation view and a run as a session', async () => {
    await row(join(runs, 'eval-sniah')).click();
    await page.getByTestId('eval-summary').filter({ hasText: 'eval-sniah' }).waitFor(WAIT);
    expect(await page.getByTestId('tab-eval').getAttribute('aria-selected')).toBe('true');
    // Where no task has a price, the cost chart says so instead of an empty box.
    await page.getByTestId('tab-runs').click();
    await row(join(runs, 'eval-unpriced')).click();
    await page.getByTestId('eval-summary').filter({ hasText: 'eval-unpriced' }).waitFor(WAIT);
    expect(await page.getByTestId('eval-chart-cost-empty').innerText()).toMatch(/No task recorded a price/);
    expect(await page.getByTestId('eval-chart-cost').locator('svg').count()).toBe(0);
    await shot(page, 'runs-browser-eval-unpriced');
    await page.getByTestId('tab-runs').click();
    await row(unpricedLog).click();
    await page.getByTestId('run-status').first().waitFor(WAIT);
    await expect
      .poll(() => page.getByTestId('session-select').locator('option:checked').innerText())
      .toContain(unpricedLog.split('/').at(-1)!.slice(0, 19));
    expect(app.browser.errors).toEqual([]);
  });
});
