// Policy metrics in the app (Chromium against `rlm-studio serve`): two generated evaluations
// of known shape (task i makes i sub-calls; A solved the even tasks, B the first four), the
// reference library's logs as a folder, the run view's per-run table, the Evaluation view's
// section. Screenshots: policy-folder, policy-eval, policy-intersection, policy-run, policy-in-evaluation.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { writeEvalDir } from '../support/policy-sessions.ts';
import { FIXTURES, shot, appUnderTest } from './support.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlm-e2e-policy-'));
const A = join(tmp, 'config-a');
const B = join(tmp, 'config-b');
const U = join(tmp, 'config-unpriced');
const ids = Array.from({ length: 8 }, (_, i) => i);
let page: Page;
const WAIT = { timeout: 30_000 };

function writeEvaluations(): void {
  writeEvalDir(
    A,
    ids.map((i) => ({ id: `t${i}`, correct: i % 2 === 0, shape: { query: `q${i}`, calls: [i, 0], children: i % 3 } })),
  );
  writeEvalDir(
    B,
    ids.map((i) => ({ id: `t${i}`, correct: i < 4, shape: { query: `q${i}`, calls: [1] } })),
  );
  writeEvalDir(
    U,
    [0, 1].map((i) => ({ id: `u${i}`, correct: i === 0, shape: { query: `q${i}`, calls: [2], unpriced: true } })),
  );
}

const app = appUnderTest({
  before: async () => writeEvaluations(),
  after: async () => rmSync(tmp, { recursive: true, force: true }),
  onOpen: (a) => (page = a.page),
});

async function compute(path: string): Promise<void> {
  await page.getByTestId('policy-path').fill(path);
  await page.getByTestId('policy-open').click();
  await page.getByTestId('policy-summary').filter({ hasText: path }).waitFor(WAIT);
}

const barCounts = (testId: string, cls: string): Promise<number[]> =>
  page
    .getByTestId(testId)
    .locator(`rect.${cls}`)
    .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-count'))));

describe('policy metrics in the app', () => {
  it('a folder of the reference library’s logs: distributions of every session', async () => {
    await page.getByTestId('tab-policy').click();
    await compute(FIXTURES);
    expect(await page.getByTestId('policy-summary').innerText()).toMatch(/folder .* 8 log\(s\), 8 session\(s\)\./);
    // c_recursive (both formats) are the only sessions with child runs: 3 each.
    await page.getByTestId('policy-figure').selectOption('childRuns');
    const counts = await barCounts('policy-chart-all', 'bar-a');
    expect(counts.reduce((a, b) => a + b, 0)).toBe(8);
    expect(counts[0]).toBe(6);
    expect(counts.at(-1)).toBe(2);
    expect(await page.getByTestId('policy-chart-split').count()).toBe(0);
    await shot(page, 'policy-folder');
  });

  it('an evaluation: correct vs incorrect sub-calls (Figure 10), quartiles', async () => {
    await compute(A);
    await page.getByTestId('policy-figure').selectOption('subcalls');
    await expect.poll(() => page.getByTestId('policy-summary').innerText(), WAIT).toMatch(/8 session\(s\); 4 correct, 4 incorrect/);
    // Task i: i plain calls + i % 3 child runs.
    const sub = ids.map((i) => i + (i % 3));
    expect((await barCounts('policy-chart-split', 'bar-ok')).reduce((a, b) => a + b, 0)).toBe(4);
    expect((await barCounts('policy-chart-split', 'bar-bad')).reduce((a, b) => a + b, 0)).toBe(4);
    const sorted = [...sub].sort((a, b) => a - b);
    const median = (sorted[3]! + sorted[4]!) / 2;
    const ok = sub.filter((_, i) => i % 2 === 0).sort((a, b) => a - b);
    const bad = sub.filter((_, i) => i % 2 === 1).sort((a, b) => a - b);
    // Columns: p25, median, p75, max, median if correct, median if incorrect.
    expect((await page.getByTestId('policy-q-subcalls').innerText()).split('\t').slice(2).map(Number)).toEqual([
      median,
      sorted[5]! + (sorted[6]! - sorted[5]!) / 4, // p75 interpolated at position 5.25
      Math.max(...sub),
      (ok[1]! + ok[2]!) / 2,
      (bad[1]! + bad[2]!) / 2,
    ]);
    await shot(page, 'policy-eval');
  });

  it('a cost no call recorded reads "unknown" in the quartile table, not $0', async () => {
    // A's sessions recorded prices: its cost row has amounts.
    expect(await page.getByTestId('policy-q-costUsd').innerText()).toMatch(/\$0\.00/);
    await compute(U);
    await expect.poll(() => page.getByTestId('policy-summary').innerText(), WAIT).toMatch(/2 session\(s\); 1 correct, 1 incorrect/);
    expect((await page.getByTestId('policy-q-costUsd').innerText()).split('\t').slice(1)).toEqual(Array(6).fill('unknown'));
  });

  it('two configurations: the success sets, each task one click from its log', async () => {
    await compute(B);
    await page.getByTestId('policy-compare-a').selectOption(A);
    await page.getByTestId('policy-compare-b').selectOption(B);
    const cell = (k: string) => page.getByTestId(`policy-cell-${k}`);
    await expect.poll(() => cell('both').locator('li').allInnerTexts(), WAIT).toEqual(['t0 A B', 't2 A B']);
    expect((await cell('onlyA').locator('li span').allInnerTexts()).sort()).toEqual(['t4', 't6']);
    expect((await cell('onlyB').locator('li span').allInnerTexts()).sort()).toEqual(['t1', 't3']);
    expect((await cell('neither').locator('li span').allInnerTexts()).sort()).toEqual(['t5', 't7']);
    await page.getByTestId('policy-intersection').scrollIntoViewIfNeeded();
    await shot(page, 'policy-intersection');
    // t4 only A solved: open its log from A.
    await cell('onlyA').locator('li', { hasText: 't4' }).getByTestId('policy-open-a').click();
    const tree = page.getByRole('tree', { name: 'Recursion tree' });
    await tree.waitFor(WAIT);
    await expect.poll(() => page.getByTestId('session-select').locator('option:checked').innerText(), WAIT).toMatch(/t4/);
  });

  it('the run view: the session’s runs with their own metrics', async () => {
    // t4 of A: 4 plain calls in one batch, 1 child run.
    await page.getByTestId('run-policy').locator('summary').click();
    const rows = page.getByTestId('run-policy-row');
    await expect.poll(() => rows.count(), WAIT).toBe(2);
    expect(await rows.first().innerText()).toMatch(/t4-root\s+0\s+2\s+2\s+5 \(4\+1\)\s+5 \/ 2\.50\s+5 \/ 5\.00\s+4 \/ 4\.00/);
    expect(await page.getByTestId('run-policy-summary').innerText()).toMatch(
      /2 run\(s\), depth 1, 3 iterations, 3 code blocks, 5 sub-calls/,
    );
    await shot(page, 'policy-run');
  });

  it('the Evaluation view computes the same metrics for the evaluation shown', async () => {
    await page.getByTestId('tab-eval').click();
    await page.getByTestId('eval-path').fill(A);
    await page.getByTestId('eval-open').click();
    const section = page.getByTestId('eval-policy');
    await section.waitFor(WAIT);
    // Already computed in the Policy panel: shown at once, no second request.
    await expect.poll(() => section.getByTestId('policy-summary').innerText(), WAIT).toMatch(/4 correct, 4 incorrect/);
    await section.scrollIntoViewIfNeeded();
    await shot(page, 'policy-in-evaluation');
    expect(app.browser.errors).toEqual([]);
    expect(app.browser.foreign).toEqual([]);
  });
});
