// Counterfactual sub-calls in Chromium against `rlm-studio serve` (mock model): the needle
// demo's one llm_query is re-run with an edited prompt, the recorded and the new answer show
// side by side, and "Fork with this answer" starts a fork whose answer follows the new result.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { shot, appUnderTest, startDemo } from './support.ts';

let page: Page;
const app = appUnderTest({ onOpen: (a) => (page = a.page) });

const status = (): Promise<string> => page.getByTestId('session-status').innerText();

describe('Counterfactual sub-calls', () => {
  it('re-runs a sub-call with an edited prompt, shows both answers, and forks with the new one', async () => {
    await startDemo(page, 'needle');
    await expect.poll(status, { timeout: 90_000 }).toBe('finished');
    const recordedAnswer = await page.getByTestId('run-answer').innerText();
    const before = await page.getByTestId('session-select').locator('option').count();

    await page.getByTestId('iteration-2').click();
    await page.getByTestId('counterfactual-open').first().click();
    const panel = page.getByTestId('counterfactual-panel');
    await panel.waitFor();
    const prompt = panel.getByTestId('cf-prompt');
    const original = await prompt.inputValue();
    expect(original).toMatch(/^TASK: find-number/);
    await prompt.fill(original.replace(/TEXT:\n[\s\S]*$/, 'TEXT:\nthe magic number is 777'));
    await panel.getByTestId('cf-run').click();
    await expect.poll(async () => panel.getByTestId('cf-new-text').innerText(), { timeout: 30_000 }).toBe('777');
    const recorded = await panel.getByTestId('cf-recorded').innerText();
    expect(recorded).toMatch(/\d{4,}/);
    expect(recorded).not.toContain('777');
    await shot(page, '40-counterfactual-side-by-side');

    await panel.getByTestId('cf-fork').click();
    await expect.poll(async () => page.getByTestId('session-select').locator('option').count(), { timeout: 30_000 }).toBe(before + 1);
    await expect.poll(status, { timeout: 90_000 }).toBe('finished');
    await expect.poll(async () => page.getByTestId('run-answer').innerText(), { timeout: 30_000 }).toContain('777');
    expect(recordedAnswer).not.toContain('777');
    // The fork's call at the same place says its result was substituted.
    await page.getByTestId('iteration-2').click();
    await page.getByTestId('substituted').waitFor({ timeout: 30_000 });
    await page.getByTestId('substituted').scrollIntoViewIfNeeded();
    await shot(page, '41-counterfactual-fork');
  });

  it('re-runs a child run as its own session from the child run header, then forks the parent with its answer', async () => {
    await startDemo(page, 'recursive');
    await expect.poll(status, { timeout: 90_000 }).toBe('finished');
    const recordedAnswer = await page.getByTestId('run-answer').first().innerText();
    const tree = page.getByRole('tree', { name: 'Recursion tree' });
    await tree.locator('[role="treeitem"][data-run-id]').nth(1).click();
    await page.getByTestId('counterfactual-child').click();
    const panel = page.getByTestId('counterfactual-panel');
    const prompt = panel.getByTestId('cf-prompt');
    await prompt.fill((await prompt.inputValue()).replace(/SECTION:\n[\s\S]*$/, 'SECTION:\n== Counterfactual ==\nONE line only.'));
    await panel.getByTestId('cf-run').click();
    await expect.poll(async () => panel.getByTestId('cf-new-text').innerText(), { timeout: 90_000 }).toContain('Counterfactual');
    await shot(page, '42-counterfactual-child-run');
    await panel.getByTestId('cf-fork').click();
    await expect
      .poll(
        async () => (await page.getByTestId('session-select').locator('option:checked').innerText()).startsWith('Counterfactual fork'),
        {
          timeout: 30_000,
        },
      )
      .toBe(true);
    await expect.poll(status, { timeout: 90_000 }).toBe('finished');
    await expect.poll(async () => page.getByTestId('run-answer').first().innerText(), { timeout: 30_000 }).toContain('Counterfactual');
    expect(recordedAnswer).not.toContain('Counterfactual');
  });

  it('loaded nothing from the network and logged no errors', () => {
    expect(app.browser.foreign).toEqual([]);
    expect(app.browser.errors.filter((e) => !/ResizeObserver loop/.test(e))).toEqual([]);
  });
});
