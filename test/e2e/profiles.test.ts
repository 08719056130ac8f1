// Endpoint profiles in Chromium against `rlm-studio serve` (web mode): add a profile that
// points at a `mock-llm` this test starts, run it from the new-run form on pasted text (the
// mock plays the needle scenario for "magic number" queries) to the answer, then try to
// store a key and see the host's web-mode refusal.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { startMockProcess, type MockProcess } from '../integration/support/cli.ts';
import { shot, appUnderTest } from './support.ts';

let mock: MockProcess;
let page: Page;
const app = appUnderTest({
  before: async () => {
    mock = await startMockProcess();
  },
  after: async () => mock?.close(),
  onOpen: (a) => (page = a.page),
});

describe('Endpoint profiles in Chromium', () => {
  it('adds a profile for mock-llm, runs it to the answer, and shows the web-mode key refusal', async () => {
    await page.getByTestId('topbar-new-run').click();
    await page.getByRole('button', { name: 'Manage profiles…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Endpoint profiles' });
    await dialog.waitFor();
    expect(await dialog.getByTestId('pp-row-demo').innerText()).toContain('built-in, read-only');

    await dialog.getByRole('button', { name: 'Add profile' }).click();
    await dialog.getByLabel('Name', { exact: true }).fill('local-mock');
    // A bad URL first: refused in the form.
    await dialog.getByLabel('Base URL').fill('not a url');
    await dialog.getByLabel('Model', { exact: true }).fill('mock-root');
    await dialog.getByTestId('pp-save').click();
    await dialog.getByTestId('pp-error-baseUrl').waitFor();
    await dialog.getByLabel('Base URL').fill(mock.url);
    await dialog.getByTestId('pp-save').click();
    await expect.poll(async () => dialog.getByTestId('pp-status').innerText()).toBe('Saved "local-mock".');
    expect(await dialog.getByTestId('pp-row-local-mock').innerText()).toContain(mock.url);
    await shot(page, 'profiles-01-saved');

    // Escape closes; the new-run select now offers (and has picked) the new profile.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.getByTestId('nr-profile').inputValue()).toBe('local-mock');

    await page.getByLabel('text', { exact: true }).check();
    await page.getByLabel('Context text').fill('Some notes.\nThe weather was fine.\nThe magic number is 4242.\nMore notes follow.\n');
    await page.getByTestId('nr-query').fill('What is the magic number in the context?');
    await page.getByTestId('nr-start').click();
    await page.getByTestId('run-answer').waitFor({ timeout: 90_000 });
    await expect.poll(async () => page.getByTestId('run-answer').innerText(), { timeout: 30_000 }).toContain('4242');
    await shot(page, 'profiles-02-answer');

    // Web mode refuses to store keys; the panel shows the host's text and clears the field.
    await page.getByTestId('topbar-new-run').click();
    await page.getByRole('button', { name: 'Manage profiles…' }).click();
    await dialog.getByRole('button', { name: 'Edit local-mock' }).click();
    const key = dialog.getByLabel(/^API key \(desktop/);
    await key.fill('sk-e2e-not-a-real-key');
    await dialog.getByRole('button', { name: 'Store key' }).click();
    await expect
      .poll(async () => dialog.getByTestId('pp-key-status').innerText(), { timeout: 30_000 })
      .toMatch(/web mode.*does not store API keys.*environment variable/);
    expect(await key.inputValue()).toBe('');
    const state = await page.evaluate<string>(`JSON.stringify(window.__rlmStudio.store.getState().profiles)`);
    expect(state).not.toContain('sk-e2e-not-a-real-key');
    await shot(page, 'profiles-03-key-refused');
  });

  it('loaded nothing from the network and logged no errors', () => {
    expect(app.browser.foreign).toEqual([]);
    expect(app.browser.errors.filter((e) => !/ResizeObserver loop/.test(e))).toEqual([]);
  });
});
