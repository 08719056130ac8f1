// "Ask a follow-up" in Chromium against `rlm-studio serve`: the demo session answers, then
// two follow-up turns run in its REPL (the mock's `variables` scenario submits the
// context_N / history_N names it sees), shown as turns of the same session; a log opened
// from a file says why it cannot be followed up.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { FIXTURES, shot, appUnderTest, startDemo } from './support.ts';

let page: Page;
const app = appUnderTest({ onOpen: (a) => (page = a.page) });

const Q = 'Which variables does the REPL hold now?';
const answer = (): Promise<string> => page.getByTestId('run-answer').innerText();

describe('Ask a follow-up', () => {
  it('runs follow-up turns in the finished demo session and shows them in order', async () => {
    await startDemo(page, 'needle');
    await expect.poll(async () => page.getByTestId('session-status').innerText(), { timeout: 90_000 }).toBe('finished');
    await page.getByTestId('run-answer').waitFor({ timeout: 30_000 });
    const first = await answer();
    expect(first).toMatch(/\d{4,}/);
    expect(await page.getByTestId('turn-0').count()).toBe(0);

    // Turn 1: no context given, so the question is context_1.
    const form = page.getByTestId('follow-up');
    await form.waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('fu-ask').isDisabled()).toBe(true);
    await page.getByTestId('fu-query').fill(Q);
    await page.getByTestId('fu-ask').click();
    await page.getByTestId('turn-1').waitFor({ timeout: 60_000 });
    await expect.poll(answer, { timeout: 60_000 }).toContain(`context_0, context_1, history_0 | context_1 starts: ${Q.slice(0, 40)}`);
    await expect.poll(async () => page.getByTestId('session-status').innerText(), { timeout: 30_000 }).toBe('finished');
    expect(await page.locator('.run-header h2').innerText()).toContain('turn 1');

    // Turn 2 with pasted context text.
    await page.getByTestId('fu-query').fill(Q);
    await page.getByTestId('fu-context-kind').selectOption('text');
    await page.getByTestId('fu-context-text').fill('Otters in a second document.');
    await page.getByTestId('fu-ask').click();
    await page.getByTestId('turn-2').waitFor({ timeout: 60_000 });
    await expect
      .poll(answer, { timeout: 60_000 })
      .toContain('context_0, context_1, context_2, history_0, history_1 | context_2 starts: Otters in a second document.');
    await expect.poll(async () => page.getByTestId('session-status').innerText(), { timeout: 30_000 }).toBe('finished');
    await shot(page, '30-follow-up-turn-2');

    // The turns bar goes back to the first turn's answer.
    expect(await page.locator('nav.turns button').allInnerTexts()).toEqual([
      expect.stringMatching(/^turn 0: .*magic number.* · answered$/) as unknown,
      `turn 1: ${Q} · answered`,
      `turn 2: ${Q} · answered`,
    ]);
    await page.getByTestId('turn-0').click();
    await expect.poll(answer).toBe(first);
  });

  it('explains that a log opened from a file cannot be followed up', async () => {
    await page.getByTestId('open-file').setInputFiles(join(FIXTURES, 'c_recursive.jsonl'));
    const tree = page.getByRole('tree', { name: 'Recursion tree' });
    await expect.poll(async () => tree.locator('[role="treeitem"][data-run-id]').count(), { timeout: 30_000 }).toBe(4);
    await tree.locator('[role="treeitem"][data-run-id]').first().click();
    await expect
      .poll(async () => page.getByTestId('follow-up-unavailable').innerText())
      .toMatch(/No follow-up: a log opened in this page keeps no REPL/);
    expect(await page.getByTestId('follow-up').count()).toBe(0);
  });

  it('loaded nothing from the network and logged no errors', () => {
    expect(app.browser.foreign).toEqual([]);
    expect(app.browser.errors.filter((e) => !/ResizeObserver loop/.test(e))).toEqual([]);
  });
});
