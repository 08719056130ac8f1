// The app in Debian's Chromium against `rlm-studio serve`: open a reference-library log
// (tree, code, output, charts), a hostile log, the live demo to its answer, pause / edit /
// continue, fork, replay with the slider, compare, step / variables / cancel, exports, a chart
// as SVG, the new-run form with pasted text and a limit, and `rlm-studio view LOG` (its
// `#session=` preselected, the log read through /api/log). Screenshots go to
// test-results/screenshots/.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileNativeText, HOSTILE } from '../unit/renderer/hostile.ts';
import { dropText, FIXTURES, launch, monacoText, shot, startServe, appUnderTest, startDemo } from './support.ts';
import { bigLog } from './perf/logs.ts';

let page: Page;
const app = appUnderTest({ onOpen: (a) => (page = a.page) });

/** The native export of the step/cancel session, for the `view` test. */
let exportedNative = '';

const ACTIVE_ID = `window.__rlmStudio.store.getState().activeId`;

/** The session's pause as JSON ('null' when not paused), from the page's store (read-only). */
async function pauseOf(sessionId: string): Promise<string> {
  return await page.evaluate<string>(
    `JSON.stringify(window.__rlmStudio.store.getState().sessions.get(${JSON.stringify(sessionId)})?.summary?.pause ?? null)`,
  );
}

/** Runs `click` and returns the text of the download it starts. */
async function download(click: () => Promise<void>): Promise<string> {
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), click()]);
  const path = await dl.path();
  return readFileSync(path, 'utf8');
}

/** Every block's stdout of the active session, from the page's store (read-only). */
const STDOUTS = `(() => { const s = window.__rlmStudio.store.getState(); const e = s.sessions.get(s.activeId); return e.events.filter((x) => x.type === 'block.end').map((x) => x.stdout).join('\\n'); })()`;

async function treeItems(): Promise<number> {
  return page.getByRole('tree', { name: 'Recursion tree' }).getByRole('treeitem').count();
}

describe('RLM Studio in Chromium', () => {
  it('opens a reference-library log: tree, iteration code and output, charts', async () => {
    await page.getByTestId('open-file').setInputFiles(join(FIXTURES, 'c_recursive.jsonl'));
    const tree = page.getByRole('tree', { name: 'Recursion tree' });
    await tree.waitFor();
    // 4 runs: the root and its three child RLMs.
    await expect.poll(async () => tree.locator('[role="treeitem"][data-run-id]').count()).toBe(4);
    // Child runs are labelled by the prompt their parent sent them, not just the model name:
    // the row by the part that differs from its siblings' prompts, the title by the whole.
    const child = tree.locator('[role="treeitem"][data-run-id]').nth(1);
    expect(await child.innerText()).toContain('…billing ===');
    expect(await child.getAttribute('title')).toContain('Count the ERROR lines');
    await tree.locator('[role="treeitem"][data-run-id]').first().click();
    await page.getByTestId('iteration-1').click();
    const code = await monacoText(page, 'code-0');
    expect(code.length).toBeGreaterThan(5);
    // Coloured as Python (a reference log; several token classes), without starting the
    // TypeScript worker: it costs a core for seconds, and read-only code needs only the grammar.
    const tokenClasses = await page
      .getByTestId('code-0')
      .locator('.view-line span span')
      .evaluateAll((els) => new Set(els.map((e) => e.className)).size);
    expect(tokenClasses).toBeGreaterThan(2);
    expect(
      page
        .workers()
        .map((w) => w.url())
        .filter((u) => u.includes('ts.worker')),
    ).toEqual([]);
    const output = await monacoText(page, 'output-0');
    expect(output.length).toBeGreaterThan(0);
    // Keyboard navigation in the tree.
    await tree.focus();
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await expect.poll(async () => page.getByTestId('run-status').innerText()).toMatch(/answered|limit|failed/);
    await shot(page, '01-run-view-c_recursive');
    await page.getByTestId('tab-charts').click();
    for (const id of ['chart-iterations', 'chart-depth', 'chart-waterfall', 'chart-tokens', 'chart-cross-time']) {
      await page.getByTestId(id).locator('svg *').first().waitFor();
    }
    // The reference log records no price: its cost is unknown, said in place of a histogram of $0.
    expect(await page.getByTestId('chart-cross-cost-empty').innerText()).toMatch(/No loaded session recorded a price/);
    expect(await page.getByTestId('chart-waterfall').locator('rect.span').count()).toBeGreaterThan(5);
    await shot(page, '02-charts-c_recursive');
    // Graph mode of the tree (d3 layout on a canvas).
    await page.getByRole('button', { name: 'Graph' }).click();
    await page.locator('canvas.tree-graph').waitFor();
    await page.mouse.move(200, 500);
    await page.mouse.wheel(0, -300);
    await shot(page, '03-tree-graph');
    await page.getByRole('button', { name: 'List' }).click();
    await page.getByTestId('tab-run').click();
    // The top bar stays one row at 1100 px wide with a session open (it wrapped to two).
    await page.setViewportSize({ width: 1100, height: 700 });
    const bar = await page.locator('header.topbar').evaluate((e) => {
      const r = e.getBoundingClientRect();
      return { height: r.height, right: Math.max(...[...e.children].map((c) => c.getBoundingClientRect().right)) - r.right };
    });
    expect(bar.height).toBeLessThan(50);
    expect(bar.right).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1500, height: 950 });
  });

  it('a hostile log executes nothing', async () => {
    let dialogs = 0;
    page.on('dialog', (d) => {
      dialogs++;
      void d.dismiss();
    });
    const scriptsBefore = await page.locator('script').count();
    await dropText(page, 'hostile.rlm.jsonl', hostileNativeText());
    await expect.poll(treeItems).toBeGreaterThan(0);
    await page.getByRole('tree', { name: 'Recursion tree' }).getByRole('treeitem').first().click();
    await page.getByTestId('iteration-1').click();
    await page.getByTestId('reply-text').waitFor();
    expect(await page.getByTestId('reply-text').innerText()).toContain(HOSTILE.script);
    await monacoText(page, 'output-0');
    await page.getByTestId('cut-note').waitFor();
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.locator('script').count()).toBe(scriptsBefore);
    expect(await page.locator('a[href^="javascript:" i]').count()).toBe(0);
    expect(await page.locator('.center img, .center iframe').count()).toBe(0);
    expect(dialogs).toBe(0);
    await shot(page, '04-hostile-log');
  });

  it('runs the demo live to its answer', async () => {
    await startDemo(page, 'recursive');
    await page.getByTestId('run-answer').waitFor({ timeout: 90_000 });
    await expect.poll(async () => page.getByTestId('session-status').innerText(), { timeout: 30_000 }).toMatch(/finished/);
    expect(await treeItems()).toBeGreaterThan(1);
    // The recursive demo fans out with rlm_query_batched: its children are grouped.
    expect(await page.locator('.tree-row.batch').count()).toBeGreaterThanOrEqual(1);
    await shot(page, '05-live-demo-answered');
  });

  it('pauses after a reply, edits the code in Monaco, continues', async () => {
    await startDemo(page, 'needle', { breakpoints: ['after_reply'] });
    await page.getByTestId('paused-editor').waitFor({ timeout: 60_000 });
    const editor = page.locator('[data-testid="edit-block-0"] .monaco-editor textarea').first();
    await page.locator('[data-testid="edit-block-0"] .view-lines').first().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\nprint("edited in the e2e test")', { delay: 15 });
    void editor;
    // Code being edited gets the JavaScript language service.
    await expect.poll(() => page.workers().some((w) => w.url().includes('ts.worker')), { timeout: 30_000 }).toBe(true);
    await shot(page, '06-paused-edit');
    // Stay on this iteration (do not follow the run) to see the edited block run.
    await page.getByTestId('follow').uncheck();
    await page.getByTestId('run-edited').click();
    await page.getByText('edited by hand').first().waitFor({ timeout: 60_000 });
    await expect.poll(async () => page.evaluate(STDOUTS), { timeout: 30_000 }).toContain('edited in the e2e test');
    await page.getByTestId('follow').check();
    // Leave the breakpoint: clear it and continue to the end.
    await page.getByTestId('bp-after_reply').uncheck();
    // Stops already queued before the breakpoint was cleared still need a continue each; the
    // button re-renders with every status push, so click it whenever the session shows paused.
    await expect
      .poll(
        async () => {
          const status = await page.getByTestId('session-status').innerText();
          if (status.includes('paused'))
            await page
              .getByTestId('continue')
              .click({ timeout: 2_000 })
              .catch(() => undefined);
          return status;
        },
        { timeout: 90_000, interval: 250 },
      )
      .toMatch(/finished/);
    await page.getByTestId('run-answer').waitFor({ timeout: 90_000 });
  });

  it('forks a finished session from an iteration', async () => {
    const before = await page.getByTestId('session-select').locator('option').count();
    const root = page.getByRole('tree', { name: 'Recursion tree' }).locator('[role="treeitem"][data-run-id]').first();
    await root.click();
    await page.getByTestId('iteration-2').click();
    await page.getByTestId('fork').click();
    // A session this host ran: endpoint as recorded, ask the model again at the iteration.
    await page.getByTestId('fork-start').click();
    await expect.poll(async () => page.getByTestId('session-select').locator('option').count(), { timeout: 30_000 }).toBe(before + 1);
    await page.getByTestId('run-answer').waitFor({ timeout: 90_000 });
    await shot(page, '07-fork');
  });

  it('replays with the time slider', async () => {
    // The fork shows its answer before its last events arrive: replay the finished session.
    await expect.poll(async () => page.getByTestId('session-status').innerText(), { timeout: 60_000 }).toMatch(/finished/);
    await page.getByTestId('replay-start').click();
    const slider = page.getByTestId('replay-slider');
    const max = Number(await slider.getAttribute('max'));
    expect(max).toBeGreaterThan(5);
    await slider.fill(String(Math.floor(max / 3)));
    await expect.poll(async () => page.getByTestId('replay-pos').innerText()).toContain(`event ${Math.floor(max / 3)}/`);
    await page.getByTestId('replay-step').click();
    await expect.poll(async () => page.getByTestId('replay-pos').innerText()).toContain(`event ${Math.floor(max / 3) + 1}/`);
    await shot(page, '08-replay');
    await page.getByLabel('Speed').selectOption('100');
    await page.getByTestId('replay-play').click();
    await expect.poll(async () => page.getByTestId('replay-pos').innerText(), { timeout: 60_000 }).toContain(`event ${max}/${max}`);
    await page.getByTestId('replay-exit').click();
  });

  it('compares two sessions', async () => {
    await page.getByTestId('tab-compare').click();
    const options = await page.getByTestId('compare-a').locator('option').allTextContents();
    const demos = options.filter((o) => /demo|fork/i.test(o));
    expect(demos.length).toBeGreaterThanOrEqual(2);
    await page.getByTestId('compare-a').selectOption({ label: demos[0] as string });
    await page.getByTestId('compare-b').selectOption({ label: demos[demos.length - 1] as string });
    await page.getByTestId('divergence').waitFor();
    expect(await page.locator('.compare-table tbody tr').count()).toBeGreaterThanOrEqual(8);
    await shot(page, '09-compare');
  });

  it('steps from a breakpoint to the next stop, inspects a variable the code made, cancels', async () => {
    await page.getByTestId('tab-run').click();
    await startDemo(page, 'needle', { breakpoints: ['after_reply', 'after_block'] });
    await page.getByTestId('paused-editor').waitFor({ timeout: 60_000 });
    const sessionId = await page.evaluate<string>(ACTIVE_ID);
    // Add a variable to the paused reply's first block and run it.
    await page.locator('[data-testid="edit-block-0"] .view-lines').first().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\nvar e2eMarker = 6 * 7;', { delay: 15 });
    await page.getByTestId('follow').uncheck();
    await page.getByTestId('run-edited').click();
    // The after_block breakpoint stops once that block has run: its variables are there.
    await expect.poll(async () => pauseOf(sessionId), { timeout: 60_000 }).toMatch(/"kind":"after_block"/);
    const stop1 = await pauseOf(sessionId);
    const runId = (JSON.parse(stop1) as { runId: string }).runId;
    await page.getByRole('tree', { name: 'Recursion tree' }).locator(`[role="treeitem"][data-run-id="${runId}"]`).click();
    await page.getByTestId('load-vars').click();
    const row = page.getByTestId('variables').locator('tr', { hasText: 'e2eMarker' });
    await row.waitFor({ timeout: 30_000 });
    expect(await row.innerText()).toContain('42');
    await shot(page, '10-variables');
    // Step: the session runs to the next stop, whatever it is, and pauses there.
    await page.getByTestId('step').click();
    // In between it runs (no pause): wait for the next stop itself, not just for a change.
    const nextStop = async (): Promise<boolean> => {
      const p = await pauseOf(sessionId);
      return p !== 'null' && p !== stop1;
    };
    await expect.poll(nextStop, { timeout: 60_000 }).toBe(true);
    expect(await page.getByTestId('session-status').innerText()).toContain('paused');
    // Cancel the live session.
    // Follow again for the tests after this one (the box goes with the live run).
    await page.getByTestId('follow').check();
    await page.getByTestId('cancel').click();
    await expect.poll(async () => page.getByTestId('session-status').innerText(), { timeout: 60_000 }).toContain('cancelled');
  });

  it('exports the session as native and rlm-python logs that parse', async () => {
    const native = await download(() => page.getByTestId('export-native').click());
    const header = JSON.parse(native.split('\n', 1)[0] as string) as { format?: string; sessionId?: string };
    expect(header.format).toBe('rlm-studio');
    const lines = native.trim().split('\n');
    expect(lines.length).toBeGreaterThan(3);
    for (const l of lines) JSON.parse(l);
    exportedNative = native;
    const ref = await download(() => page.getByRole('button', { name: 'Export rlm-python' }).click());
    const meta = JSON.parse(ref.split('\n', 1)[0] as string) as { type?: string };
    expect(meta.type).toBe('metadata');
    for (const l of ref.trim().split('\n')) JSON.parse(l);
  });

  it('saves a chart as SVG', async () => {
    await page.getByTestId('tab-charts').click();
    const fig = page.getByTestId('chart-iterations');
    await fig.locator('svg *').first().waitFor();
    const svg = await download(() => fig.getByRole('button', { name: 'SVG' }).click());
    expect(svg).toMatch(/^(<\?xml[^>]*>\s*)?<svg/);
    expect(svg).toContain('xmlns="http://www.w3.org/2000/svg"');
    expect(svg).toMatch(/<(rect|path|line)\b/);
    await page.getByTestId('tab-run').click();
  });

  it('starts a run from the form with pasted text and a limit: stops at max_iterations', async () => {
    await page.getByTestId('topbar-new-run').click();
    await page.getByTestId('nr-profile').selectOption('demo');
    await page.getByLabel('text', { exact: true }).check();
    await page.getByLabel('Context text').fill('alpha 1\nbeta 2\ngamma 3\n');
    await page.getByTestId('nr-query').fill('Sum the numbers, but never finish.');
    await page.getByLabel('iterations', { exact: true }).fill('2');
    await page.getByTestId('nr-start').click();
    await expect.poll(async () => page.getByTestId('session-status').innerText(), { timeout: 90_000 }).toMatch(/finished|failed|cancelled/);
    const root = page.getByRole('tree', { name: 'Recursion tree' }).locator('[role="treeitem"][data-run-id]').first();
    await root.click();
    await expect.poll(async () => page.locator('.run-meta').first().innerText(), { timeout: 30_000 }).toContain('stop: max_iterations');
    expect(await page.getByTestId('run-status').innerText()).toBe('limit');
    expect(await page.getByTestId('iteration-2').count()).toBe(1);
    await shot(page, '11-max-iterations');
  });

  it('loaded nothing from the network and logged no errors', () => {
    expect(app.browser.foreign).toEqual([]);
    expect(app.browser.errors.filter((e) => !/ResizeObserver loop/.test(e))).toEqual([]);
  });
});

describe('rlm-studio view LOG', () => {
  it('preselects the session from #session= and reads the log through /api/log', async () => {
    expect(exportedNative).not.toBe('');
    const dir = mkdtempSync(join(tmpdir(), 'rlm-e2e-view-'));
    const log = join(dir, 'exported.rlm.jsonl');
    writeFileSync(log, exportedNative);
    const view = await startServe([], ['view', log]);
    const b = await launch(view.url);
    try {
      const id = decodeURIComponent(/#session=([^&]+)/.exec(view.url)?.[1] ?? '');
      expect(id).not.toBe('');
      const logRequests: string[] = [];
      b.context.on('request', (r) => {
        if (r.url().includes('/api/log')) logRequests.push(r.url());
      });
      await b.page.goto(view.url);
      await expect.poll(async () => b.page.getByTestId('session-select').inputValue(), { timeout: 30_000 }).toBe(id);
      const tree = b.page.getByRole('tree', { name: 'Recursion tree' });
      await expect.poll(async () => tree.locator('[role="treeitem"][data-run-id]').count(), { timeout: 30_000 }).toBeGreaterThan(0);
      const expected = exportedNative.trim().split('\n').length - 1;
      await expect
        .poll(async () => b.page.evaluate(`window.__rlmStudio.store.getState().sessions.get(${JSON.stringify(id)}).events.length`), {
          timeout: 30_000,
        })
        .toBe(expected);
      expect(logRequests.length).toBe(1);
      await shot(b.page, '12-view-log');
      expect(b.errors.filter((e) => !/ResizeObserver loop/.test(e))).toEqual([]);
    } finally {
      await b.close();
      await view.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a big native log: long prompts are left out of the first read and read back', () => {
  let dir = '';
  let log = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rlm-e2e-big-'));
    // Over the 8 MiB from which long prompts are left out by default.
    log = bigLog(join(dir, 'big.rlm.jsonl'), 9 * 1024 * 1024);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The longest initial message of a run, as the file has it. */
  function initialMessageOf(runId: string): string {
    for (const line of readFileSync(log, 'utf8').split('\n')) {
      if (!line.includes('"run.start"') || !line.includes(JSON.stringify(runId))) continue;
      const e = JSON.parse(line) as { type: string; runId: string; messages: { content: string }[] };
      if (e.type === 'run.start' && e.runId === runId) return e.messages.map((m) => m.content).sort((a, b) => b.length - a.length)[0] ?? '';
    }
    throw new Error(`no run.start for ${runId}`);
  }

  async function check(p: Page, sessionId: () => Promise<string>): Promise<void> {
    const tree = p.getByRole('tree', { name: 'Recursion tree' });
    await expect.poll(async () => tree.locator('[role="treeitem"][data-run-id]').count(), { timeout: 60_000 }).toBeGreaterThan(10);
    const id = await sessionId();
    const store = `window.__rlmStudio.store.getState().sessions.get(${JSON.stringify(id)})`;
    await expect
      .poll(async () => p.evaluate(`${store}.loading === null && ${store}.elided.size`), { timeout: 60_000 })
      .toBeGreaterThan(100);
    const first = tree.locator('[role="treeitem"][data-run-id]').first();
    const runId = (await first.getAttribute('data-run-id')) as string;
    const full = initialMessageOf(runId);
    expect(full.length).toBeGreaterThan(1024);
    await first.click();
    await p.getByTestId('iteration-1').click();
    // The iteration asks for its prompts; the preview becomes the whole text.
    await expect
      .poll(async () => p.evaluate(`${store}.traj.runs.get(${JSON.stringify(runId)}).start.messages.map((m) => m.content.length)`), {
        timeout: 30_000,
      })
      .toContain(full.length);
    await p.getByTestId('texts-loading').waitFor({ state: 'detached', timeout: 30_000 });
    // (The page shows the first 4,000 characters of a long text, past the preview's 240 bytes.)
    await p.getByTestId('prompt-messages').locator('summary').click();
    expect(await p.getByLabel('Initial messages').innerText()).toContain(full.slice(2000, 2100));
    // A search reads every left-out text first: words from the end of a long prompt match.
    await p.getByTestId('tab-search').click();
    await p.getByTestId('search-input').fill(full.slice(-60, -20));
    await expect.poll(async () => p.evaluate(`${store}.elided.size`), { timeout: 60_000 }).toBe(0);
    // Every copy of that run in the log matches, not only the one already shown.
    await expect.poll(async () => p.getByTestId('search-hit').count(), { timeout: 30_000 }).toBeGreaterThan(3);
    await p.getByTestId('tab-run').click();
  }

  it('from a dropped file', async () => {
    await page.getByTestId('open-file').setInputFiles(log);
    await check(page, async () => await page.evaluate<string>(ACTIVE_ID));
  });

  it('through `rlm-studio view LOG` (byte ranges of /api/log)', async () => {
    const view = await startServe([], ['view', log]);
    const b = await launch(view.url);
    try {
      const ranges: string[] = [];
      b.context.on('request', (r) => {
        if (r.url().includes('/api/log') && r.headers()['range']) ranges.push(r.headers()['range'] as string);
      });
      await b.page.goto(view.url);
      await check(b.page, async () => decodeURIComponent(/#session=([^&]+)/.exec(view.url)?.[1] ?? ''));
      expect(ranges.length).toBeGreaterThan(0);
      expect(b.errors.filter((e) => !/ResizeObserver loop/.test(e))).toEqual([]);
    } finally {
      await b.close();
      await view.stop();
    }
  });
});
