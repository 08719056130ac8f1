// Code edited in the paused editor survives looking elsewhere before running it: the
// researcher edits the paused reply's code, opens the charts to
// check something, comes back, and the edit is still there and is what runs.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appUnderTest, monacoText, startDemo } from './support.ts';

let page: Page;
appUnderTest({ onOpen: (a) => (page = a.page) });

// Monaco draws spaces as no-break spaces.
const STDOUTS = `[...document.querySelectorAll('[data-testid^="output-"]')].map((e) => e.textContent.replace(/\\u00a0/g, ' ')).join('\\n')`;

describe('paused editor', () => {
  it('keeps edits made while paused across a switch of panel, and runs them', async () => {
    await startDemo(page, 'needle', { breakpoints: ['after_reply'] });
    await page.getByTestId('paused-editor').waitFor({ timeout: 60_000 });
    await page.getByTestId('follow').uncheck();
    await page.locator('[data-testid="edit-block-0"] .view-lines').first().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\nprint("kept across views")', { delay: 10 });
    await page.getByRole('button', { name: 'Run edited code' }).waitFor();

    await page.getByTestId('tab-charts').click();
    await page.getByTestId('chart-waterfall').waitFor();
    await page.getByTestId('tab-run').click();
    await page.getByTestId('paused-editor').waitFor();
    expect(await page.getByTestId('run-edited').innerText()).toBe('Run edited code');
    // The editor shows its last lines once scrolled to the end.
    await page.locator('[data-testid="edit-block-0"] .view-lines').first().click();
    await page.keyboard.press('Control+End');
    expect(await monacoText(page, 'edit-block-0')).toContain('kept across views');

    await page.getByTestId('run-edited').click();
    await page.getByText('edited by hand').first().waitFor({ timeout: 60_000 });
    // The edited block's last line and its output's, below lines that wrap, are in view.
    await expect.poll(async () => page.evaluate(STDOUTS), { timeout: 30_000 }).toContain('kept across views');
    expect(await monacoText(page, 'code-0')).toContain('print("kept across views")');
  });
});
