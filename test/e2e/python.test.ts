// Python sessions in Debian's Chromium against `rlm-studio serve`: the demo chosen as Python in
// the New run form, live to its answer (every run marked Python, its code coloured as Python
// without Monaco's TypeScript worker); a Python run paused after its reply, its code edited in
// Monaco and its variables listed with Python's type names; the reference library's own
// a_needle log imported and re-executed in the app against its context (every block the same
// as recorded), a re-execution written by `rlm-studio rerun` opened, and the imported log
// forked from an iteration, given its context, to continue live against the bundled mock model.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { FIXTURES, monacoText, ROOT, shot, appUnderTest, startDemo } from './support.ts';

let page: Page;
const app = appUnderTest({ onOpen: (a) => (page = a.page) });

const ACTIVE_ID = `window.__rlmStudio.store.getState().activeId`;

/** The page's session of the imported a_needle.jsonl (re-executed, then forked). */
let imported = '';

async function pauseOf(sessionId: string): Promise<string> {
  return await page.evaluate<string>(
    `JSON.stringify(window.__rlmStudio.store.getState().sessions.get(${JSON.stringify(sessionId)})?.summary?.pause ?? null)`,
  );
}

const runRows = () => page.getByRole('tree', { name: 'Recursion tree' }).locator('[role="treeitem"][data-run-id]');

/** Distinct token classes Monaco drew in an editor: more than two means a grammar coloured it. */
async function tokenClasses(testId: string): Promise<number> {
  await monacoText(page, testId);
  return page
    .getByTestId(testId)
    .locator('.view-line span span')
    .evaluateAll((els) => new Set(els.map((e) => e.className)).size);
}

const tsWorkers = (): string[] =>
  page
    .workers()
    .map((w) => w.url())
    .filter((u) => u.includes('ts.worker'));

const newPythonDemo = (demo: string, breakpoints: string[] = []): Promise<void> => startDemo(page, demo, { repl: 'python', breakpoints });

describe('Python sessions in Chromium', () => {
  it('runs the demo in Python from the New run form, live to its answer', async () => {
    await newPythonDemo('recursive');
    await page.getByTestId('run-answer').waitFor({ timeout: 120_000 });
    await expect.poll(async () => page.getByTestId('session-status').innerText(), { timeout: 60_000 }).toMatch(/finished/);
    // The recursive demo spawns child RLMs: each has a Python REPL of its own, and says so.
    await expect.poll(async () => runRows().count(), { timeout: 30_000 }).toBeGreaterThan(1);
    const langs = await runRows().evaluateAll((els) => els.map((e) => e.getAttribute('data-repl')));
    expect(new Set(langs)).toEqual(new Set(['python']));
    await runRows().first().click();
    expect(await page.getByTestId('run-repl').innerText()).toBe('Python REPL');
    await page.getByTestId('iteration-1').click();
    const code = await monacoText(page, 'code-0');
    expect(code).toMatch(/^import |isinstance\(|print\(/m);
    expect(code).not.toMatch(/\bconst\b|console\.log/);
    expect(await tokenClasses('code-0')).toBeGreaterThan(2);
    expect(tsWorkers()).toEqual([]);
    await shot(page, 'py-01-demo-answered');
  });

  it('pauses a Python run after its reply, edits the code in Monaco, lists its variables', async () => {
    await newPythonDemo('needle', ['after_reply', 'after_block']);
    await page.getByTestId('paused-editor').waitFor({ timeout: 90_000 });
    const sessionId = await page.evaluate<string>(ACTIVE_ID);
    expect(await tokenClasses('edit-block-0')).toBeGreaterThan(2);
    // New lines at the top of the block: top level, whatever indentation the block ends with.
    await page.locator('[data-testid="edit-block-0"] .view-lines').first().click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.type('e2e_marker = 6 * 7\nprint("edited in python", e2e_marker)\n', { delay: 15 });
    // Python is coloured by its grammar alone: no language worker for code being edited either.
    expect(tsWorkers()).toEqual([]);
    await shot(page, 'py-02-paused-edit');
    await page.getByTestId('follow').uncheck();
    await page.getByTestId('run-edited').click();
    await expect.poll(async () => pauseOf(sessionId), { timeout: 90_000 }).toMatch(/"kind":"after_block"/);
    const stop = JSON.parse(await pauseOf(sessionId)) as { runId: string };
    await page.getByText('edited by hand').first().waitFor({ timeout: 30_000 });
    expect(await monacoText(page, 'output-0')).toContain('edited in python 42');
    await runRows()
      .and(page.locator(`[data-run-id="${stop.runId}"]`))
      .click();
    await page.getByTestId('load-vars').click();
    const marker = page.getByTestId('var-e2e_marker');
    await marker.waitFor({ timeout: 30_000 });
    expect(await marker.innerText()).toMatch(/e2e_marker\s+int\s+42/);
    // The reference's names are there with Python's own types.
    expect(await page.getByTestId('var-answer').innerText()).toMatch(/answer\s+dict/);
    await shot(page, 'py-03-variables');
    // Follow again for the tests after this one (the box goes with the live run).
    await page.getByTestId('follow').check();
    await page.getByTestId('cancel').click();
    await expect.poll(async () => page.getByTestId('session-status').innerText(), { timeout: 60_000 }).toContain('cancelled');
  });

  it('re-executes an imported reference log in the app: every block the same as recorded', async () => {
    await page.getByTestId('open-file').setInputFiles(join(FIXTURES, 'a_needle.jsonl'));
    await runRows().first().waitFor({ timeout: 30_000 });
    expect(await runRows().first().getAttribute('data-repl')).toBe('python');
    imported = await page.evaluate<string>(ACTIVE_ID);
    await page.getByTestId('rerun').click();
    // The reference library's logs do not hold their context: the form asks for it.
    await page.getByTestId('rerun-start').click();
    expect(await page.getByTestId('rerun-error').innerText()).toContain('does not hold its context');
    await page.getByTestId('rerun-context-path').fill(join(FIXTURES, 'contexts/a_needle.txt'));
    await page.getByTestId('rerun-start').click();
    await expect.poll(async () => page.evaluate(ACTIVE_ID), { timeout: 30_000 }).not.toBe(imported);
    const banner = page.getByTestId('rerun-summary');
    await banner.waitFor({ timeout: 90_000 });
    await expect.poll(async () => page.getByTestId('session-status').innerText(), { timeout: 120_000 }).toMatch(/finished/);
    const recordedBlocks = await page.evaluate<number>(
      `window.__rlmStudio.store.getState().sessions.get(${JSON.stringify(imported)}).events.filter((e) => e.type === 'block.end').length`,
    );
    await expect.poll(async () => Number(await banner.getAttribute('data-blocks')), { timeout: 30_000 }).toBe(recordedBlocks);
    expect(recordedBlocks).toBeGreaterThan(1);
    expect(await banner.getAttribute('data-different')).toBe('0');
    expect(await banner.innerText()).toContain(`${recordedBlocks} same`);
    // The page handed the host the file itself: re-executed as the reference library's log.
    expect(await banner.innerText()).toContain('a_needle.jsonl (reference library log)');
    await runRows().first().click();
    expect(await page.getByTestId('run-repl').innerText()).toBe('Python REPL');
    await page.getByTestId('iteration-1').click();
    expect(await page.getByTestId('rerun-0').getAttribute('data-same')).toBe('true');
    await shot(page, 'py-04-rerun-in-app');
  });

  it('opens a re-execution written by `rlm-studio rerun` and shows its comparison', async () => {
    // `rlm-studio rerun` runs every recorded block of the reference library's own log again.
    const res = spawnSync(
      join(ROOT, 'bin/rlm-studio'),
      [
        'rerun',
        join(FIXTURES, 'a_needle.jsonl'),
        '--context',
        join(FIXTURES, 'contexts/a_needle.txt'),
        '--log-dir',
        join(app.served.dir, 'reruns'),
        '--json',
      ],
      { cwd: ROOT, encoding: 'utf8', timeout: 180_000 },
    );
    expect(res.status, res.stderr).toBe(0);
    const report = JSON.parse(res.stdout) as { blocks: number; same: number; different: unknown[]; logFile: string };
    expect(report.different).toEqual([]);
    await page.getByTestId('open-file').setInputFiles(report.logFile);
    const banner = page.getByTestId('rerun-summary');
    await banner.waitFor({ timeout: 30_000 });
    await expect.poll(async () => Number(await banner.getAttribute('data-blocks')), { timeout: 30_000 }).toBe(report.blocks);
    expect(report.blocks).toBeGreaterThan(1);
    expect(await banner.getAttribute('data-different')).toBe('0');
    expect(await banner.innerText()).toContain(`${report.blocks} same`);
    expect(await banner.innerText()).toContain('a_needle.jsonl (reference library log)');
    await runRows().first().click();
    expect(await page.getByTestId('run-repl').innerText()).toBe('Python REPL');
    await page.getByTestId('iteration-1').click();
    expect(await page.getByTestId('rerun-0').getAttribute('data-same')).toBe('true');
    await shot(page, 'py-05-rerun-cli');
  });

  it('forks the imported log from an iteration and continues live against the mock model', async () => {
    const before = await page.getByTestId('session-select').locator('option').count();
    expect(imported).not.toBe('');
    await page.getByTestId('session-select').selectOption(imported);
    await runRows().first().click();
    await page.getByTestId('iteration-2').click();
    await page.getByTestId('fork').click();
    // An imported log has no recorded context: the fork asks for it.
    await page.getByTestId('fork-profile').selectOption('demo');
    await page.getByTestId('fork-context-path').fill(join(FIXTURES, 'contexts/a_needle.txt'));
    await page.getByTestId('fork-start').click();
    // The page hands the log to the host first (one more session), then the fork is shown.
    const shown = page.getByTestId('session-select').locator('option:checked');
    await expect.poll(async () => shown.innerText(), { timeout: 30_000 }).toMatch(/^Fork of /);
    expect(await page.getByTestId('session-select').locator('option').count()).toBeGreaterThan(before);
    await page.getByTestId('run-answer').waitFor({ timeout: 120_000 });
    await expect.poll(async () => page.getByTestId('session-status').innerText(), { timeout: 60_000 }).toMatch(/finished/);
    await runRows().first().click();
    expect(await page.getByTestId('run-repl').innerText()).toBe('Python REPL');
    await shot(page, 'py-06-fork-of-imported');
  });

  it('loaded nothing from the network and logged no errors', () => {
    expect(app.browser.foreign).toEqual([]);
    expect(app.browser.errors.filter((e) => !/ResizeObserver loop/.test(e))).toEqual([]);
  });
});
