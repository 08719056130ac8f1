// The Findings view in Chromium against `rlm-studio view LOG`: an evaluation folder scanned
// beforehand by a rule scanner; the view lists its findings once the folder is added, a
// finding's link opens its log at the run and iteration found, and confirming or rejecting a
// finding (or judging a log the scanner passed over) appends a label beside the log and
// updates the agreement shown.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { scanFolder } from '../../src-main/analysis/scan/scan-logs.ts';
import { loadScanner } from '../../src-main/analysis/scan/scanner-file.ts';
import { writeEvalDir } from '../support/policy-sessions.ts';
import { appUnderTest, shot } from './support.ts';

const WAIT = { timeout: 30_000 };
const tmp = mkdtempSync(join(tmpdir(), 'rlm-e2e-findings-'));
const dir = join(tmp, 'eval');
writeEvalDir(dir, [
  { id: 't0', correct: true, shape: { query: 'q0', calls: [3] } },
  { id: 't1', correct: false, shape: { query: 'q1', calls: [0, 2, 0] } },
  { id: 't2', correct: false, shape: { query: 'q2', calls: [1] } },
]);
const scannerFile = join(tmp, 'fan-out.json');
writeFileSync(
  scannerFile,
  JSON.stringify({
    id: 'fan-out',
    kind: 'rule',
    description: 'more than one sub-call in a turn',
    scope: 'iteration',
    when: 'subcalls > 1',
  }),
);
let page: Page;
const app = appUnderTest({
  command: ['view', join(dir, 'logs', 't2.rlm.jsonl')],
  open: 'browser',
  before: async () => {
    await scanFolder(dir, [await loadScanner(scannerFile)]);
  },
  after: async () => rmSync(tmp, { recursive: true, force: true }),
  onOpen: (a) => (page = a.page),
});

const cell = (id: string) => page.getByTestId('findings-agreement').locator('tr[data-scanner="fan-out"]').getByTestId(id).textContent();

describe('the Findings view', () => {
  it('lists the findings of a scanned folder and opens one at its run and iteration', async () => {
    await page.goto(app.served.url);
    await page.getByTestId('tab-findings').click();
    await page.getByTestId('findings-folder').fill(dir);
    await page.getByTestId('findings-add').click();
    await expect.poll(() => page.getByTestId('finding').count(), WAIT).toBe(2);
    expect(await page.getByTestId('finding').evaluateAll((els) => els.map((e) => e.getAttribute('data-target')))).toEqual([
      'iteration:t0-root#1',
      'iteration:t1-root#2',
    ]);
    await expect.poll(() => page.getByTestId('findings-count').textContent(), WAIT).toMatch(/^2 finding\(s\), 1 log\(s\) not flagged/);
    expect(await cell('agreement-confirmed')).toBe('0');
    expect(await cell('agreement-precision')).toBe('—');
    await shot(page, '60-findings-list');

    await page.getByTestId('finding').nth(1).getByTestId('finding-open').click();
    await expect.poll(() => page.getByTestId('session-select').locator('option:checked').textContent(), WAIT).toBe('t1.rlm.jsonl');
    await expect.poll(() => page.locator('[role="treeitem"][aria-selected="true"]').getAttribute('data-run-id'), WAIT).toBe('t1-root');
    await expect.poll(() => page.getByTestId('iteration-detail').getAttribute('aria-label'), WAIT).toBe('Iteration 2');
    await shot(page, '61-findings-opened-at-iteration');
  });

  it('stores a confirmation or rejection as a label beside the log, and the agreement follows', async () => {
    await page.getByTestId('tab-findings').click();
    const second = page.getByTestId('finding').nth(1);
    await second.getByTestId('finding-confirm').click();
    await expect.poll(() => cell('agreement-confirmed'), WAIT).toBe('1');
    expect(await cell('agreement-precision')).toBe('100%');
    await expect.poll(() => second.getByTestId('finding-confirm').getAttribute('aria-pressed'), WAIT).toBe('true');
    const sidecar = readFileSync(join(dir, 'logs', 't1.rlm.jsonl.labels.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(sidecar.map((l) => JSON.parse(l) as unknown)).toEqual([
      { v: 1, op: 'add', target: 'iteration:t1-root#2', label: 'scan.fan-out.confirmed', at: expect.any(String) as unknown },
    ]);

    await page.getByTestId('finding').nth(0).getByTestId('finding-reject').click();
    await expect.poll(() => cell('agreement-rejected'), WAIT).toBe('1');
    expect(await cell('agreement-precision')).toBe('50%');
    expect(await cell('agreement-recall')).toBe('—');

    // The log it passed over, judged: the behaviour is there after all (a miss), so recall is 1 of 2.
    await page.getByTestId('unflagged').getByTestId('finding-confirm').click();
    await expect.poll(() => cell('agreement-recall'), WAIT).toBe('50%');
    // TP 1 (t1), FP 1 (t0), FN 1 (t2): po = 1/3, pe = (2·2 + 1·1)/9 = 5/9, kappa = −0.5.
    expect(await cell('agreement-kappa')).toBe('-0.50');
    await shot(page, '62-findings-verdicts-and-agreement');

    // Confirming the same finding again withdraws the verdict.
    await second.getByTestId('finding-confirm').click();
    await expect.poll(() => cell('agreement-confirmed'), WAIT).toBe('0');
    expect(app.browser.errors).toEqual([]);
  });
});
