// End-to-end support: `rlm-studio serve` as a child process (URL with token parsed from its
// output) and Debian's Chromium driven by playwright-core with a fresh profile.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { REFERENCE_FIXTURES } from '../support/reference-fixtures.ts';

export const ROOT = resolve(import.meta.dirname, '../..');

/**
 * The environment of the tests' UI: built apart from the app's dist/renderer, with the console
 * handles the tests read (window.__rlmStudio) switched on. Servers started here get it too, so
 * the benchmark scripts that use this file outside Vitest see the same UI.
 */
export function testUiEnv(): { RLM_STUDIO_TEST_HANDLES: string; RLM_STUDIO_UI_DIR: string } {
  return { RLM_STUDIO_TEST_HANDLES: '1', RLM_STUDIO_UI_DIR: process.env['RLM_STUDIO_UI_DIR'] ?? join(ROOT, 'dist/renderer-test') };
}
export const FIXTURES = REFERENCE_FIXTURES;
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
      env: { ...process.env, ...testUiEnv() },
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

/** The app a test file drives: its server, and a browser on it. Read inside tests and hooks (set in `beforeAll`). */
export interface AppUnderTest {
  readonly served: Served;
  readonly browser: Browser;
  readonly page: Page;
}

export interface AppOptions {
  /** More `serve` options, or the command instead of `serve` (`startServe`'s arguments). */
  serveArgs?: string[];
  command?: string[];
  /** 'app' (default): the page opened and connected to the host; 'browser': a browser only, the test opens the page. */
  open?: 'app' | 'browser';
  /** What the file needs beside the app (a mock model, an evaluation on disk…): started with the server, before the browser. */
  before?: () => Promise<void>;
  /** Stops what `before` started, once the browser and the server are closed. */
  after?: () => Promise<void>;
  /** Called once the browser is up (a file keeps its page in a variable of its own). */
  onOpen?: (app: AppUnderTest) => void;
}

/**
 * The preamble of a test file that drives the app: in `beforeAll`, `rlm-studio serve` (with
 * `before`) and then a browser on it; in `afterAll`, the browser, the server, then `after`.
 */
export function appUnderTest(opts: AppOptions = {}): AppUnderTest {
  let served: Served | null = null;
  let browser: Browser | null = null;
  const ready = <T>(v: T | null, what: string): T => {
    if (v === null) throw new Error(`the ${what} is not started yet (read it inside a test or a hook)`);
    return v;
  };
  const app: AppUnderTest = {
    get served() {
      return ready(served, 'server');
    },
    get browser() {
      return ready(browser, 'browser');
    },
    get page() {
      return ready(browser, 'browser').page;
    },
  };
  beforeAll(async () => {
    // Both settle before either failure is thrown: a server that started is stopped in afterAll.
    const [s, b] = await Promise.allSettled([startServe(opts.serveArgs, opts.command), opts.before?.()]);
    if (s.status === 'fulfilled') served = s.value;
    if (s.status === 'rejected') throw s.reason;
    if (b.status === 'rejected') throw b.reason;
    browser = opts.open === 'browser' ? await launch(s.value.url) : await openApp(s.value.url);
    opts.onOpen?.(app);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await served?.stop();
    await opts.after?.();
  });
  return app;
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

/** Starts a built-in demo from the New run form (the demo profile), with `repl` and breakpoints `nr-bp-…` when given. */
export async function startDemo(
  page: Page,
  demo: string,
  opts: { repl?: 'javascript' | 'python'; breakpoints?: string[] } = {},
): Promise<void> {
  await page.getByTestId('topbar-new-run').click();
  await page.getByTestId('nr-profile').selectOption('demo');
  if (opts.repl) await page.getByTestId('nr-repl').selectOption(opts.repl);
  await page.getByTestId('nr-demo').selectOption(demo);
  for (const b of opts.breakpoints ?? []) await page.getByTestId(`nr-bp-${b}`).check();
  await page.getByTestId('nr-start').click();
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
