// The shareable HTML file in Debian's Chromium, opened from a file: URL as a double-click
// would: a reference-library log and a native one show their tree and code with every
// request recorded (none may leave file:, data: and blob:, and anything else is aborted),
// a hostile log stays text, and the app's Export ▸ Shareable HTML makes a file that opens
// the same way.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileEvents } from '../unit/renderer/hostile.ts';
import { FIXTURES, launch, openApp, ROOT, shot, startServe, type Browser } from './support.ts';

const PWN_SCRIPT = '</script><script>window.__pwned=1</script>';
const PWN_IMG = '<img src=x onerror="window.__pwned=1">';

let dir: string;
let browser: Browser;
/** Every request the pages made, by URL. */
const requests: string[] = [];
/** Every worker the pages started, by script URL. */
const workers: string[] = [];

function bundle(log: string, out: string): string {
  const path = join(dir, out);
  execFileSync(join(ROOT, 'bin/rlm-studio'), ['bundle', log, '-o', path], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  return path;
}

function hostileLog(): string {
  const events = hostileEvents() as unknown as Record<string, unknown>[];
  const reply = events.find((e) => e.type === 'model.reply')!;
  reply.text = `${PWN_SCRIPT} ${PWN_IMG}\n${String(reply.text)}`;
  const header = { format: 'rlm-studio', version: 1, sessionId: 'hostile</script>', createdAt: '2026-01-01T00:00:00.000Z' };
  const path = join(dir, 'hostile<script>x.rlm.jsonl');
  writeFileSync(path, [header, ...events].map((x) => JSON.stringify(x)).join('\n') + '\n');
  return path;
}

const treeRuns = (): Promise<number> =>
  browser.page.getByRole('tree', { name: 'Recursion tree' }).locator('[role="treeitem"][data-run-id]').count();

async function openBundle(path: string): Promise<void> {
  await browser.page.goto(pathToFileURL(path).href);
  await browser.page.getByRole('tree', { name: 'Recursion tree' }).waitFor({ timeout: 30_000 });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-bundle-e2e-'));
  browser = await launch('file:///');
  // Nothing may reach a network: abort it (and it is recorded below, failing the test).
  await browser.context.route(/^(https?|wss?|ftp):/, (route) => route.abort());
  browser.context.on('request', (r) => requests.push(r.url()));
  browser.page.on('worker', (w) => workers.push(w.url()));
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the shareable HTML file from file:', () => {
  it('shows a reference-library log: tree and an iteration’s code, through inlined workers, with no network', async () => {
    await openBundle(bundle(join(FIXTURES, 'c_recursive.jsonl'), 'recursive.html'));
    await expect.poll(treeRuns, { timeout: 30_000 }).toBe(4);
    const tree = browser.page.getByRole('tree', { name: 'Recursion tree' });
    expect(await tree.locator('[role="treeitem"][data-run-id]').nth(1).getAttribute('title')).toContain('Count the ERROR lines');
    expect(await browser.page.title()).toBe('c_recursive.jsonl — RLM Studio');
    await tree.locator('[role="treeitem"][data-run-id]').first().click();
    await browser.page.getByTestId('iteration-1').click();
    const code = browser.page.getByTestId('code-0');
    await code.waitFor();
    await expect.poll(async () => (await code.innerText()).trim().length).toBeGreaterThan(5);
    expect(await code.innerText()).toMatch(/context|print/);
    // Read-only: no host, nothing to run or fork, and no control, tab or note the reader cannot use.
    const page = browser.page;
    const absent = [
      'connection',
      'topbar-new-run',
      'open-file',
      'session-select',
      'session-close',
      'fork',
      'counterfactual-open',
      'counterfactual-child',
      'timings',
      'labels-box',
      'follow-up-unavailable',
      'session-status',
      'tab-compare',
      'tab-eval',
      'tab-policy',
      'tab-runs',
      'tab-findings',
    ];
    expect(Object.fromEntries(await Promise.all(absent.map(async (id) => [id, await page.getByTestId(id).count()] as const)))).toEqual(
      Object.fromEntries(absent.map((id) => [id, 0])),
    );
    expect(await page.getByRole('tab').allInnerTexts()).toEqual(['Run', 'Charts', 'Search']);
    // What it can do stays: export, replay, search (text only: tree queries need a host).
    expect(await page.getByTestId('export-native').count()).toBe(1);
    await page.getByTestId('tab-search').click();
    await page.getByTestId('search-input').waitFor();
    expect(await page.getByTestId('query-mode').count()).toBe(0);
    await page.getByTestId('tab-run').click();
    // The log was read by the parse worker, started from a blob: URL (a file: page may not load one from a file).
    expect(workers.length).toBeGreaterThan(0);
    expect(workers.filter((u) => !u.startsWith('blob:'))).toEqual([]);
    expect(
      await browser.page.evaluate('window.__rlmStudio.store.getState().sessions.values().next().value.timings.spent.read'),
    ).toBeGreaterThanOrEqual(0);
    await shot(browser.page, 'bundle-01-recursive');
  });

  it('shows a native log the same way', async () => {
    const native = join(dir, 'recursive.rlm.jsonl');
    execFileSync(join(ROOT, 'bin/rlm-studio'), ['convert', join(FIXTURES, 'c_recursive.jsonl'), '--to', 'native', '-o', native], {
      cwd: ROOT,
      stdio: 'ignore',
    });
    await openBundle(bundle(native, 'native.html'));
    await expect.poll(treeRuns, { timeout: 30_000 }).toBe(4);
    expect(await browser.page.evaluate('window.__rlmStudio.store.getState().sessions.values().next().value.title')).toBe(
      'recursive.rlm.jsonl',
    );
  });

  it('keeps a hostile log inert: text shown literally, nothing run', async () => {
    let dialogs = 0;
    browser.page.on('dialog', (d) => {
      dialogs++;
      void d.dismiss();
    });
    await openBundle(bundle(hostileLog(), 'hostile.html'));
    await expect.poll(treeRuns).toBeGreaterThan(0);
    await browser.page.getByRole('tree', { name: 'Recursion tree' }).getByRole('treeitem').first().click();
    await browser.page.getByTestId('iteration-1').click();
    const reply = browser.page.getByTestId('reply-text');
    await reply.waitFor();
    expect(await reply.innerText()).toContain(PWN_SCRIPT);
    expect(await reply.innerText()).toContain(PWN_IMG);
    expect(await browser.page.evaluate('window.__pwned')).toBeUndefined();
    // The page's own module script only (the log's data block was removed once read).
    expect(await browser.page.locator('script').count()).toBe(1);
    expect(await browser.page.locator('img, iframe').count()).toBe(0);
    expect(dialogs).toBe(0);
    await shot(browser.page, 'bundle-02-hostile');
  });

  it('made no request outside file:, data: and blob:, and logged no error (a CSP violation would be one)', () => {
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.filter((u) => !/^(file|data|blob):/.test(u))).toEqual([]);
    expect(browser.errors).toEqual([]);
  });
});

describe('Export ▸ Shareable HTML in the app', () => {
  it('downloads a file that opens offline on the same session', async () => {
    const served = await startServe();
    const app = await openApp(served.url);
    try {
      await app.page.getByTestId('open-file').setInputFiles(join(FIXTURES, 'c_recursive.jsonl'));
      const tree = app.page.getByRole('tree', { name: 'Recursion tree' });
      await expect.poll(async () => tree.locator('[role="treeitem"][data-run-id]').count(), { timeout: 30_000 }).toBe(4);
      await expect.poll(async () => app.page.getByTestId('session-status').innerText()).not.toBe('loading');
      const [download] = await Promise.all([
        app.page.waitForEvent('download', { timeout: 30_000 }),
        app.page.getByTestId('export-html').click(),
      ]);
      expect(download.suggestedFilename()).toBe('c_recursive.html');
      const saved = join(dir, 'exported.html');
      copyFileSync(await download.path(), saved);
      await openBundle(saved);
      await expect.poll(treeRuns, { timeout: 30_000 }).toBe(4);
      expect(browser.errors).toEqual([]);
      expect(requests.filter((u) => !/^(file|data|blob):/.test(u))).toEqual([]);
    } finally {
      await app.close();
      await served.stop();
    }
  });
});
