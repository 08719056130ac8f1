// Labels and tree queries in the app (Chromium against `rlm-studio view LOG` on a generated
// folder): label a run from the run view, see it in the tree, reload and still see it, the
// log's bytes unchanged; Search ▸ Query lists the known matches and opens one; a bad
// expression points at its character; a dropped file says it cannot be labelled.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { KNOWN, writeSessionFolder } from '../support/session-folder.ts';
import { dropText, shot, appUnderTest } from './support.ts';

const N = 12;
const WAIT = { timeout: 30_000 };
const tmp = mkdtempSync(join(tmpdir(), 'rlm-e2e-labels-'));
const dir = join(tmp, 'logs');
// `view` opens the first log of the folder, written before the server starts.
const paths = writeSessionFolder(dir, N);
writeFileSync(join(tmp, 'rlm-labels.json'), JSON.stringify({ labels: [{ name: 'good-decomposition' }, { name: 'missed-evidence' }] }));
let page: Page;
const app = appUnderTest({
  command: ['view', paths[0]!],
  open: 'browser',
  after: async () => rmSync(tmp, { recursive: true, force: true }),
  onOpen: (a) => (page = a.page),
});

const treeLabels = (): Promise<string[]> => page.getByTestId('tree-label').allTextContents();

describe('labels in the app', () => {
  it('labels the root run; the tree shows it, it survives a reload, and the log is untouched', async () => {
    const before = readFileSync(paths[0]!);
    await page.goto(app.served.url);
    const box = page.getByTestId('labels-box');
    await box.getByRole('combobox', { name: 'Label', exact: true }).waitFor(WAIT);
    await box.getByRole('combobox', { name: 'Label target' }).selectOption('run:s0-root');
    await box.getByRole('combobox', { name: 'Label', exact: true }).selectOption('good-decomposition');
    await box.getByRole('textbox', { name: 'Note' }).fill('clean split');
    await box.getByRole('button', { name: 'Label' }).click();
    await expect.poll(treeLabels, WAIT).toEqual(['good-decomposition']);
    await expect.poll(() => box.locator('[data-target="run:s0-root"]').textContent(), WAIT).toMatch(/good-decomposition — clean split/);
    await shot(page, '30-labels-tree-and-run');

    const sidecar = readFileSync(`${paths[0]!}.labels.jsonl`, 'utf8').trim().split('\n');
    expect(sidecar.map((l) => JSON.parse(l) as unknown)).toEqual([
      { v: 1, op: 'add', target: 'run:s0-root', label: 'good-decomposition', note: 'clean split', at: expect.any(String) as unknown },
    ]);
    expect(readFileSync(paths[0]!).equals(before)).toBe(true);

    await page.reload();
    await expect.poll(treeLabels, WAIT).toEqual(['good-decomposition']);

    // A label on one of the run's iterations shows on the run's row too, after the run's own.
    await box.getByRole('combobox', { name: 'Label target' }).selectOption('iteration:s0-root#1');
    await box.getByRole('combobox', { name: 'Label', exact: true }).selectOption('missed-evidence');
    await box.getByRole('button', { name: 'Label' }).click();
    await expect.poll(treeLabels, WAIT).toEqual(['good-decomposition', 'it 1: missed-evidence']);
  });

  it('says a dropped log cannot be labelled, and why', async () => {
    await dropText(page, 'dropped.rlm.jsonl', readFileSync(paths[1]!, 'utf8'));
    await expect
      .poll(() => page.getByTestId('labels-box').textContent(), WAIT)
      .toMatch(/Labels unavailable: labels are kept beside a log file on the host/);
  });
});

describe('Search ▸ Query', () => {
  it('lists the known matches over the folder and opens one at its run', async () => {
    // A fresh page (same URL: goto alone would keep the dropped session shown).
    await page.reload();
    await page.getByTestId('labels-box').waitFor(WAIT);
    await page.getByTestId('tab-search').click();
    await page.getByTestId('query-mode').click();
    await page.getByTestId('query-input').fill('runs[depth = 2 and stopReason = "max_iterations"]');
    await page.getByTestId('query-run').click();
    const expected = paths.filter((_, i) => KNOWN.hasGrandchild(i)).length;
    await expect
      .poll(() => page.getByTestId('query-summary').textContent(), WAIT)
      .toBe(`${expected} match(es) in ${expected} of ${N} session(s) searched`);
    await expect.poll(() => page.getByTestId('query-hit').count(), WAIT).toBe(expected);
    await shot(page, '31-search-query');

    await page.getByTestId('query-hit').nth(1).click();
    await expect
      .poll(async () => page.getByTestId('session-select').locator('option:checked').textContent(), WAIT)
      .toBe('session-00003.rlm.jsonl');
    await expect.poll(() => page.locator('[role="treeitem"][aria-selected="true"]').getAttribute('data-run-id'), WAIT).toBe('s3-grand');
  });

  it('points at the character of a bad expression', async () => {
    await page.getByTestId('tab-search').click();
    await page.getByTestId('query-mode').click();
    await page.getByTestId('query-input').fill('runs[depth >]');
    await page.getByTestId('query-run').click();
    await expect
      .poll(() => page.getByTestId('query-error').textContent(), WAIT)
      .toMatch(/bad query at character 13: .*\nruns\[depth >\]\n {12}\^/);
    await shot(page, '32-search-query-error');
    expect(app.browser.errors.filter((e) => !/ResizeObserver loop|could not change|400|Bad Request/.test(e))).toEqual([]);
  });
});
