// The context coverage map in Chromium against `rlm-studio serve`: a reference-library log
// opened in the page, its context file picked, the figures and the strips beside the tree,
// and a click on a span opening the iteration or the sub-call that saw it; and a saved log
// whose recipe names its context file, and a built-in demo run, mapped without picking the
// file (`/api/context`).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { FIXTURES, ROOT, launch, shot, startDemo, startServe, appUnderTest } from './support.ts';

let page: Page;
const app = appUnderTest({ onOpen: (a) => (page = a.page) });

async function openWithContext(log: string, context: string): Promise<void> {
  await page.getByTestId('open-file').setInputFiles(join(FIXTURES, log));
  await page.getByRole('tree', { name: 'Recursion tree' }).waitFor();
  await page.getByTestId('coverage-file').setInputFiles(join(FIXTURES, 'contexts', context));
  await page.getByTestId('coverage-figures').waitFor({ timeout: 60_000 });
}

/** The figures row of the panel's table whose first cell is `label`, as cell texts. */
async function figures(label: string): Promise<string[]> {
  const row = page.getByTestId('coverage-figures').locator('tr', { has: page.locator('th', { hasText: label }) });
  return row.locator('td').allInnerTexts();
}

describe('context coverage in the app', () => {
  it('a_needle: the root saw the head and the needle line, and a span opens its iteration', async () => {
    await openWithContext('a_needle.jsonl', 'a_needle.txt');
    const ctx = readFileSync(join(FIXTURES, 'contexts/a_needle.txt'), 'utf8');
    const line = ctx.split('\n').find((l) => l.includes('secret access code'))!;
    const seen = 300 + line.length + 1;
    const session = await figures('session');
    expect(session[0]).toContain(seen.toLocaleString('en-US'));
    expect(session[3]).toContain((ctx.length - seen).toLocaleString('en-US'));
    for (const scope of ['session', 'run', 'iteration']) await page.getByTestId(`coverage-strip-${scope}`).waitFor();
    // The strips say what S, R and I are, and are wide enough to see and click.
    expect(await page.getByTestId('coverage-strip-legend').innerText()).toMatch(
      /S the session · R the selected run · I the selected iteration/,
    );
    expect((await page.getByTestId('coverage-strip-session').boundingBox())!.width).toBeGreaterThanOrEqual(20);
    // The largest unseen span is the context between the head and the needle.
    expect(await page.getByTestId('coverage-unseen').locator('li').first().innerText()).toContain('300–');
    // The largest seen span (the head) was seen in iteration 1; the needle line in iteration 2.
    await page.getByTestId('coverage-seen').nth(1).click();
    await expect.poll(async () => page.getByTestId('iteration-detail').getAttribute('aria-label')).toBe('Iteration 2');
    // Clicking the head's band at the top of the session strip opens iteration 1.
    const strip = page.getByTestId('coverage-strip-session');
    await strip.click({ position: { x: 5, y: 1 } });
    await expect.poll(async () => page.getByTestId('iteration-detail').getAttribute('aria-label')).toBe('Iteration 1');
    expect(app.browser.errors).toEqual([]);
  });

  it('c_recursive: sections went to child runs; the strips show it beside the tree', async () => {
    await openWithContext('c_recursive.jsonl', 'c_recursive.txt');
    const session = await figures('session');
    expect(session[2]).toMatch(/^3,796\s+100\.0%$/);
    // The root run's model saw none of it; what a model saw, a child run's did, and the list says whose.
    expect(session[0]).toMatch(/^0\s+0\.0%$/);
    const seen = await page.getByTestId('coverage-seen').allInnerTexts();
    expect(seen.map((t) => t.trim())).toContain('0–76 · model of r0/2.0.0 · #1');
    expect(seen.join('\n')).not.toContain('root');
    // The figures fit the sidebar, at the default size and at a small window.
    for (const [width, height] of [
      [1500, 950],
      [1100, 700],
    ] as const) {
      await page.setViewportSize({ width, height });
      const fit = await page.getByTestId('coverage-figures').evaluate((table) => {
        const panel = table.closest('.coverage-panel')!.getBoundingClientRect();
        const cells = [...table.querySelectorAll('th, td')].map((c) => c.getBoundingClientRect().right);
        return { right: Math.max(...cells, table.getBoundingClientRect().right), panel: panel.right };
      });
      expect(fit.right, `${width}x${height}`).toBeLessThanOrEqual(fit.panel);
      await shot(page, `coverage-c_recursive-${width}`);
    }
    await page.setViewportSize({ width: 1500, height: 950 });
    expect(app.browser.errors).toEqual([]);
  });

  it('a built-in demo run: mapped from the context the host made for it once it ends, no picking', async () => {
    await page.getByTestId('tab-run').click();
    await startDemo(page, 'recursive');
    await expect.poll(async () => page.getByTestId('session-status').innerText(), { timeout: 60_000 }).toMatch(/finished/);
    await page.getByTestId('coverage-figures').waitFor({ timeout: 60_000 });
    const panel = await page.getByTestId('coverage-panel').innerText();
    expect(panel).toContain('Context: demo-recursive.txt');
    expect(panel).not.toContain('Pick the context file');
    // Nothing left to follow.
    expect(await page.getByTestId('follow').count()).toBe(0);
    await shot(page, 'coverage-demo');
    expect(app.browser.errors).toEqual([]);
  });

  it('b_aggregate: a span sent to a sub-call opens that call in its list', async () => {
    await openWithContext('b_aggregate.jsonl', 'b_aggregate.json');
    const first = page.getByTestId('coverage-seen').first();
    const label = await first.innerText();
    expect(label).toContain('sub-call');
    const callId = /· (\S+:\S+)$/.exec(label.trim())?.[1];
    expect(callId).toBeTruthy();
    await first.click();
    const row = page.locator(`[data-call-id="${callId}"]`);
    await row.waitFor();
    // Opened: the whole prompt is shown, not its first 120 characters.
    await expect.poll(async () => (await row.locator('td').nth(2).innerText()).length).toBeGreaterThan(200);
    await shot(page, 'coverage-b_aggregate-subcall');
    expect(app.browser.errors).toEqual([]);
  });

  it('a saved log with its recipe beside it: the host serves the context file, no picking', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rlm-e2e-coverage-'));
    const log = join(dir, 'a_needle.rlm.jsonl');
    const converted = spawnSync(join(ROOT, 'bin/rlm-studio'), ['convert', join(FIXTURES, 'a_needle.jsonl'), '--to', 'native', '-o', log], {
      encoding: 'utf8',
    });
    expect(converted.status, converted.stderr).toBe(0);
    const contextFile = join(FIXTURES, 'contexts/a_needle.txt');
    writeFileSync(
      log.replace(/\.rlm\.jsonl$/, '.rlm.session.json'),
      JSON.stringify({
        version: 1,
        profile: 'demo',
        model: 'm',
        subModel: null,
        context: { kind: 'file', path: contextFile },
        query: null,
        limits: {},
      }),
    );
    const view = await startServe([], ['view', log]);
    const b = await launch(view.url);
    try {
      const contextRequests: string[] = [];
      b.context.on('request', (r) => {
        if (r.url().includes('/api/context')) contextRequests.push(r.method());
      });
      await b.page.goto(view.url);
      const use = b.page.getByTestId('coverage-host-context');
      await use.waitFor({ timeout: 30_000 });
      expect(await use.innerText()).toContain('a_needle.txt');
      // Mapped without a click: the session has ended and the host has its context.
      await b.page.getByTestId('coverage-figures').waitFor({ timeout: 60_000 });
      const ctx = readFileSync(contextFile, 'utf8');
      const line = ctx.split('\n').find((l) => l.includes('secret access code'))!;
      const seen = 300 + line.length + 1;
      const row = b.page.getByTestId('coverage-figures').locator('tr', { has: b.page.locator('th', { hasText: 'session' }) });
      const cells = await row.locator('td').allInnerTexts();
      expect(cells[0]).toContain(seen.toLocaleString('en-US'));
      expect(cells[3]).toContain((ctx.length - seen).toLocaleString('en-US'));
      expect(await b.page.getByTestId('coverage-panel').innerText()).toContain('Context: a_needle.txt');
      expect(contextRequests).toEqual(['HEAD', 'GET']);
      await shot(b.page, 'coverage-host-context');
      expect(b.errors).toEqual([]);
    } finally {
      await b.close();
      await view.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
