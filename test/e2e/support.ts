// End-to-end support: `rlm-studio serve` as a child process (URL with token parsed from its
// output) and Debian's Chromium driven by playwright-core with a fresh profile.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const ROOT = resolve(import.meta.dirname, '../..');
export const FIXTURES = '/work/shared/fixtures/rlm-python';
const SHOTS = join(ROOT, 'test-results/screenshots');

export interface Served {
  url: string;
  dir: string;
  stop(): Promise<void>;
}

/**
 * `extraArgs`: more `serve` options (the benchmark passes `--static` to compare builds).
 * `command`: e.g. `['view', LOG]` instead of `['serve']`; the URL then carries `#session=`.
 */
export async function startServe(extraArgs: string[] = [], command: string[] = ['serve']): Promise<Served> {
  const dir = mkdtempSync(join(tmpdir(), 'rlm-e2e-'));
  const child: ChildProcess = spawn(
    join(ROOT, 'bin/rlm-studio'),
    [
      ...command,
      '--port',
      '0',
      '--runs-dir',
      join(dir, 'runs'),
      '--settings-dir',
      join(dir, 'settings'),
      '--demo-latency-ms',
      '30',
      ...extraArgs,
    ],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`serve printed no URL in 120 s:\n${out}`)), 120_000);
    const on = (b: Buffer): void => {
      out += b.toString();
      const m = /serving (?:.* )?at (http:\/\/\S+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        res(m[1]);
      }
    };
    child.stdout?.on('data', on);
    child.stderr?.on('data', on);
    child.on('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`serve exited (${code}) before printing its URL:\n${out}`));
    });
  });
  return {
    url,
    dir,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null) child.kill('SIGKILL');
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Console errors and page errors seen so far. */
  errors: string[];
  /** Requests to anything but the served origin (must stay empty: nothing from the network). */
  foreign: string[];
  close(): Promise<void>;
}

/** A browser on the served app, once the page has connected to the host. */
export async function openApp(url: string): Promise<Browser> {
  const browser = await launch(url);
  await browser.page.goto(url);
  await browser.page.getByTestId('connection').filter({ hasText: 'open' }).waitFor({ timeout: 30_000 });
  return browser;
}

export async function launch(origin: string): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'rlm-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1500, height: 950 },
    acceptDownloads: true,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  const foreign: string[] = [];
  const host = new URL(origin).host;
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  context.on('request', (r) => {
    const u = new URL(r.url());
    if ((u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'ws:') && u.host !== host) foreign.push(r.url());
  });
  return {
    context,
    page,
    errors,
    foreign,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

/** Drops a file made of `text` onto the window, as a person dragging it would. */
export async function dropText(page: Page, name: string, text: string): Promise<void> {
  // Browser-side code as a string: this file is type-checked without the DOM library.
  const js = `(() => {
    const dt = new DataTransfer();
    dt.items.add(new File([${JSON.stringify(text)}], ${JSON.stringify(name)}, { type: 'application/x-ndjson' }));
    const target = document.querySelector('.app');
    target.dispatchEvent(new DragEvent('dragover', { bubbles: true, cancelable: true, dataTransfer: dt }));
    target.dispatchEvent(new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: dt }));
  })()`;
  await page.evaluate(js);
}

/** The text Monaco shows for an editor (rendered lines; enough for short code). */
/**
 * The text Monaco shows in an editor. The editor mounts before it lays out its lines, so
 * this waits (up to 30 s) for some text rather than reading an empty first frame.
 */
export async function monacoText(page: Page, testId: string): Promise<string> {
  const loc = page.locator(`[data-testid="${testId}"] .view-lines`).first();
  await loc.waitFor({ timeout: 30_000 });
  const deadline = Date.now() + 30_000;
  let text = '';
  let previous: string | null = null;
  // Monaco fills its lines over a few frames: wait until two reads agree.
  while (Date.now() < deadline) {
    text = (await loc.innerText()).replace(/\u00a0/g, ' ');
    if (text.trim() !== '' && text === previous) break;
    previous = text;
    await page.waitForTimeout(100);
  }
  return text;
}
