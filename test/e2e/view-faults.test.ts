// Issue 40, defect 1 (Chromium against `rlm-studio serve`): the policy metrics of an
// evaluation that is 100% correct and of one that is 0% correct (one side of the correct /
// incorrect split has no sessions, so no quartiles) draw in the Policy tab and in the
// Evaluation view, instead of blanking the page. And a view that does fault stays alone: it
// says what failed with "Try again" and "Close", while the header, the other panels and the
// other open sessions go on working. Screenshots: policy-all-correct, policy-none-correct,
// view-failed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { writeEvalDir } from '../support/policy-sessions.ts';
import { FIXTURES, appUnderTest, shot } from './support.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlm-e2e-faults-'));
const SOLVED = join(tmp, 'solved');
const BASELINE = join(tmp, 'baseline');
const WAIT = { timeout: 30_000 };
let page: Page;

const app = appUnderTest({
  before: async () => {
    const ids = Array.from({ length: 5 }, (_, i) => i);
    writeEvalDir(
      SOLVED,
      ids.map((i) => ({ id: `t${i}`, correct: true, shape: { query: `q${i}`, calls: [i, 1] } })),
    );
    writeEvalDir(
      BASELINE,
      ids.map((i) => ({ id: `t${i}`, correct: false, shape: { query: `q${i}`, calls: [i] } })),
    );
  },
  after: async () => rmSync(tmp, { recursive: true, force: true }),
  onOpen: (a) => (page = a.page),
});

/** The quartile table's row of a figure: p25, median, p75, max, median if correct, median if incorrect. */
const row = async (root: ReturnType<Page['getByTestId']>, figure: string): Promise<string[]> =>
  (await root.getByTestId(`policy-q-${figure}`).locator('td').allInnerTexts()).map((t) => t.trim());

describe('policy metrics of a solved benchmark and of a 0% baseline', () => {
  it('the Policy tab: every session on one side of the split, the other side shown as none', async () => {
    await page.getByTestId('tab-policy').click();
    await page.getByTestId('policy-path').fill(SOLVED);
    await page.getByTestId('policy-open').click();
    const detail = page.getByTestId('policy-detail');
    await detail.getByTestId('policy-summary').filter({ hasText: SOLVED }).waitFor(WAIT);
    expect(await detail.getByTestId('policy-summary').innerText()).toMatch(/5 session\(s\); 5 correct, 0 incorrect/);
    // Root iterations: 2 in every session; sub-calls i + 1 for i = 0…4.
    expect(await row(detail, 'rootIterations')).toEqual(['2', '2', '2', '2', '2', '–']);
    expect(await row(detail, 'subcalls')).toEqual(['2', '3', '4', '5', '3', '–']);
    await page.getByTestId('policy-figure').selectOption('subcalls');
    const split = detail.getByTestId('policy-chart-split');
    expect(await split.locator('text', { hasText: 'no incorrect sessions' }).count()).toBe(1);
    expect(await split.locator('rect.bar-ok').evaluateAll((els) => els.reduce((a, e) => a + Number(e.getAttribute('data-count')), 0))).toBe(
      5,
    );
    await shot(page, 'policy-all-correct');

    await page.getByTestId('policy-path').fill(BASELINE);
    await page.getByTestId('policy-open').click();
    await detail.getByTestId('policy-summary').filter({ hasText: BASELINE }).waitFor(WAIT);
    expect(await detail.getByTestId('policy-summary').innerText()).toMatch(/5 session\(s\); 0 correct, 5 incorrect/);
    expect(await row(detail, 'subcalls')).toEqual(['1', '2', '3', '4', '–', '2']);
    expect(await split.locator('text', { hasText: 'no correct sessions' }).count()).toBe(1);
    await shot(page, 'policy-none-correct');
    expect(await page.getByTestId('view-failed').count()).toBe(0);
  });

  it('the Evaluation view computes them for a solved evaluation too', async () => {
    await page.getByTestId('tab-eval').click();
    await page.getByTestId('eval-path').fill(SOLVED);
    await page.getByTestId('eval-open').click();
    const section = page.getByTestId('eval-policy');
    await section.waitFor(WAIT);
    await expect.poll(() => section.getByTestId('policy-summary').innerText(), WAIT).toMatch(/5 correct, 0 incorrect/);
    expect(await row(section, 'subcalls')).toEqual(['2', '3', '4', '5', '3', '–']);
    expect(await page.getByTestId('view-failed').count()).toBe(0);
    expect(app.browser.errors).toEqual([]);
  });

  it('a view that faults says so in its place; the page and the other sessions go on', async () => {
    await page.getByTestId('open-file').setInputFiles(join(FIXTURES, 'a_needle.jsonl'));
    await page.getByRole('tree', { name: 'Recursion tree' }).waitFor(WAIT);
    const healthy = await page.evaluate<string>('window.__rlmStudio.store.getState().activeId');
    await page.getByTestId('open-file').setInputFiles(join(FIXTURES, 'c_recursive.jsonl'));
    await expect.poll(() => page.evaluate('window.__rlmStudio.store.getState().activeId'), WAIT).not.toBe(healthy);
    const broken = await page.evaluate<string>('window.__rlmStudio.store.getState().activeId');
    // A state no view expects (as a bug would leave it): the session's trajectory gone.
    await page.evaluate(`(() => {
      const st = window.__rlmStudio.store;
      const sessions = new Map(st.getState().sessions);
      sessions.set(${JSON.stringify(broken)}, { ...sessions.get(${JSON.stringify(broken)}), traj: null });
      st.setState({ sessions });
    })()`);
    const failed = page.getByTestId('view-failed');
    await failed.first().waitFor(WAIT);
    expect(await failed.first().innerText()).toMatch(/Showing this session's .* failed: /);
    await expect.poll(() => page.getByTestId('tab-policy').isVisible()).toBe(true);
    await shot(page, 'view-failed');

    // Another session is shown as ever.
    await page.getByTestId('session-select').selectOption(healthy);
    await page.getByRole('tree', { name: 'Recursion tree' }).waitFor(WAIT);
    expect(await failed.count()).toBe(0);

    // Back to the broken one: still failed ("Try again" cannot mend it); "Close this session" closes it.
    await page.getByTestId('session-select').selectOption(broken);
    await failed.first().waitFor(WAIT);
    await failed.first().getByTestId('view-failed-retry').click();
    await failed.first().waitFor(WAIT);
    const listed = await page.getByTestId('session-select').locator('option').count();
    await failed.first().getByTestId('view-failed-close').click();
    await expect.poll(() => page.evaluate(`window.__rlmStudio.store.getState().sessions.has(${JSON.stringify(broken)})`), WAIT).toBe(false);
    expect(await page.getByTestId('session-select').locator('option').count()).toBe(listed - 1);
    // The other panels still draw.
    await page.getByTestId('tab-policy').click();
    await page.getByTestId('policy-detail').waitFor(WAIT);
    expect(await failed.count()).toBe(0);
  });
});
