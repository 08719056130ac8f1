// A profile's prompt pack and context window, end to end in Chromium against `rlm-studio
// serve`: a pack file whose system text carries a marker and a 8,000-token window are set in
// a profile for a `mock-llm` this test starts (recording every request it gets, texts
// included); a run from the new-run form reaches its answer, its header names the pack, and
// the requests the mock received carry the pack's system text and the budgets sized from
// that window (not the model table's).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { OUR_PACKS } from '../../src-main/lm/our-prompt-packs.ts';
import { packHash, type PromptPack } from '../../src-main/lm/prompt-pack.ts';
import { subLmBudgets } from '../../src-main/engine/sub-lm-budgets.ts';
import { startMockProcess, type MockProcess } from '../integration/support/cli.ts';
import { appUnderTest, shot } from './support.ts';

const MARKER = 'E2E-PACK-7f3c: you are tested.';
const WINDOW = 8_000;
const dir = mkdtempSync(join(tmpdir(), 'rlm-e2e-pack-'));
const packFile = join(dir, 'marked.json');
const recordFile = join(dir, 'requests.jsonl');
const pack: PromptPack = {
  ...OUR_PACKS.javascript,
  name: 'e2e-marked',
  texts: { ...OUR_PACKS.javascript.texts, system: `${MARKER}\n${OUR_PACKS.javascript.texts.system}` },
};

let mock: MockProcess;
let page: Page;
const app = appUnderTest({
  before: async () => {
    writeFileSync(packFile, JSON.stringify(pack));
    mock = await startMockProcess(['--prompts', packFile, '--record', recordFile, '--record-texts']);
  },
  after: async () => {
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  },
  onOpen: (a) => (page = a.page),
});

interface Recorded {
  messages: { role: string; content: string }[];
}

describe('a profile’s prompt pack and context window in Chromium', () => {
  it('a run from a profile with a pack file and a window: its header names the pack, its requests carry the pack’s text and the window’s budgets', async () => {
    await page.getByTestId('topbar-new-run').click();
    await page.getByRole('button', { name: 'Manage profiles…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Endpoint profiles' });
    await dialog.getByRole('button', { name: 'Add profile' }).click();
    await dialog.getByLabel('Name', { exact: true }).fill('packed');
    await dialog.getByLabel('Base URL').fill(mock.url);
    await dialog.getByLabel('Model', { exact: true }).fill('mock-root');
    // A bad window first: refused in the form with the schema's rule.
    await dialog.getByTestId('pp-context-window').fill('0');
    await dialog.getByTestId('pp-prompts').fill(packFile);
    await dialog.getByTestId('pp-save').click();
    expect(await dialog.getByTestId('pp-error-contextWindow').innerText()).toBe(
      'Context window must be a positive integer (tokens), got "0".',
    );
    await dialog.getByTestId('pp-context-window').fill(String(WINDOW));
    await dialog.getByTestId('pp-save').click();
    await expect.poll(async () => dialog.getByTestId('pp-status').innerText()).toBe('Saved "packed".');
    expect(await dialog.getByTestId('pp-prompts-packed').innerText()).toBe(packFile);
    expect(await dialog.getByTestId('pp-context-window-packed').innerText()).toBe('8,000 tokens');
    await shot(page, 'profile-prompts-01-saved');

    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.getByTestId('nr-profile').inputValue()).toBe('packed');
    await page.getByLabel('text', { exact: true }).check();
    await page.getByLabel('Context text').fill('Some notes.\nThe weather was fine.\nThe magic number is 4242.\nMore notes follow.\n');
    await page.getByTestId('nr-query').fill('What is the magic number in the context?');
    await page.getByTestId('nr-start').click();
    await expect.poll(async () => page.getByTestId('run-answer').innerText(), { timeout: 90_000 }).toContain('4242');

    // run.start recorded the pack: the header shows its name and hash.
    const header = page.getByTestId('run-prompts');
    expect(await header.innerText()).toBe(`prompts: e2e-marked (${packHash(pack).slice(0, 8)})`);
    await shot(page, 'profile-prompts-02-answer');

    const requests = readFileSync(recordFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Recorded);
    expect(requests.length).toBeGreaterThan(0);
    const first = requests[0];
    const system = first?.messages.find((m) => m.role === 'system')?.content ?? '';
    expect(system.startsWith(MARKER)).toBe(true);
    // The budgets the system prompt quotes follow the profile's window, not mock-root's table entry.
    const ours = subLmBudgets(WINDOW);
    const table = subLmBudgets('mock-root');
    expect(ours.maxChars).not.toBe(table.maxChars);
    expect(system).toContain(`about ${WINDOW.toLocaleString('en-US')} tokens`);
    expect(system).toContain(`at most about ${ours.maxChars.toLocaleString('en-US')} characters`);
    expect(system).not.toContain(`at most about ${table.maxChars.toLocaleString('en-US')} characters`);
  });

  it('loaded nothing from the network and logged no errors', () => {
    expect(app.browser.foreign).toEqual([]);
    expect(app.browser.errors.filter((e) => !/ResizeObserver loop/.test(e))).toEqual([]);
  });
});
