// Opens the same reference-format logs in our app and in the reference library's web viewer,
// alternating, and prints medians and ratios (a benchmark, not a test: asserts nothing).
//   node --no-node-snapshot test/e2e/perf/side-by-side.ts --reference PATH [--sizes 10,100] [--logs C,A] [--repeat 3]
//   node --no-node-snapshot test/e2e/perf/side-by-side.ts --sizes 10          (ours only: no reference given)
// PATH: a checkout of alexzhang13/rlm (or its visualizer/ folder, or a bare git mirror of it);
// its viewer is built once into $RLM_PERF_DIR (reference-viewer.ts). `--static DIR` serves
// another build of ours; `--before DIR` adds a build of ours to compare with (e.g. main's, made
// with `npm run build:renderer` in a checkout of it), as a third side in the same rotation.
// `--floor` adds a page that only reads the file in a worker and parses every line
// (parse-floor.ts): the least any viewer of the whole log does, as a bound on the ratios.
// Sizes are MB; logs: C = c_recursive (child runs), A = a_needle.
//
// Both pages are measured the same way, by a script added to the page before it loads:
// t0 is the file input's `change` event; "first view" is the first animation frame in which
// the log's view has been painted (ours: a run row; the reference shows nothing before it
// is done), "fully loaded" the first frame after everything was painted (ours: the timings
// line that appears once every event is folded in; the reference: its log view); both are
// taken at the animation frame after the one that found them in the DOM. Frames per second
// count animation frames between the two ends; long tasks come from a PerformanceObserver.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { FIXTURES, launch, startServe, type Browser } from '../support.ts';
import { FLOOR_SETUP, startParseFloor } from './parse-floor.ts';
import { buildReferenceViewer, referenceSource, startReferenceViewer } from './reference-viewer.ts';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const cache = process.env.RLM_PERF_DIR ?? join(tmpdir(), 'rlm-perf-logs');
mkdirSync(cache, { recursive: true });
const SIZES = (arg('--sizes') ?? '10,100').split(',').map(Number);
const LOGS = (arg('--logs') ?? 'C').split(',');
const REPEAT = Number(arg('--repeat') ?? '3');
const REFERENCE = arg('--reference');
const STATIC = arg('--static');
const BEFORE = arg('--before');
const FLOOR = process.argv.includes('--floor');
const TIMEOUT = Number(process.env.RLM_PERF_TIMEOUT_MS ?? 600_000);

const FIXTURE: Record<string, string> = { C: 'c_recursive.jsonl', A: 'a_needle.jsonl', B: 'b_aggregate.jsonl' };

/**
 * A reference-format log of about `mb` MB: the fixture's metadata line, then its iteration
 * lines repeated (each repetition reads as another completion of the same logger, which the
 * reference merges into one timeline and we show as another root run).
 */
function referenceLog(kind: string, mb: number): string {
  const name = FIXTURE[kind];
  if (!name) throw new Error(`unknown log kind ${kind} (C, A or B)`);
  const file = join(cache, `ref-${kind}-${mb}mb.jsonl`);
  const target = mb * 1024 * 1024;
  if (existsSync(file) && statSync(file).size >= target && statSync(file).size < target * 1.05) return file;
  const lines = readFileSync(join(FIXTURES, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  const meta = lines.filter((l) => l.includes('"type": "metadata"') || l.includes('"type":"metadata"'));
  const iterations = lines.filter((l) => !meta.includes(l)).join('\n') + '\n';
  const fd = openSync(file, 'w');
  let bytes = 0;
  if (meta[0]) bytes += writeSync(fd, meta[0] + '\n');
  const block = iterations.repeat(Math.max(1, Math.floor((8 << 20) / iterations.length)));
  while (bytes < target) bytes += writeSync(fd, bytes + block.length <= target ? block : iterations);
  closeSync(fd);
  return file;
}

/** Added to every page before its scripts: the clock starts at the file input's change. */
const PROBE = `(() => {
  const w = window;
  w.__perf = { t0: null, first: null, full: null, frames: 0, long: [], seen: { first: false, full: false } };
  new PerformanceObserver((l) => { for (const e of l.getEntries()) if (w.__perf.t0 !== null) w.__perf.long.push(e.duration); }).observe({ type: 'longtask', buffered: false });
  document.addEventListener('change', (e) => { if (e.target && e.target.type === 'file') w.__perf.t0 = performance.now(); }, true);
  // A view counts once painted: the time is taken at the frame after the one that found it in the DOM.
  const frame = (now) => {
    const p = w.__perf;
    if (p.t0 !== null && p.full === null) {
      p.frames++;
      if (p.seen.first && p.first === null) p.first = now - p.t0;
      if (p.seen.full) { p.full = now - p.t0; if (p.first === null) p.first = p.full; }
      if (!p.seen.first && w.__firstSel && document.querySelector(w.__firstSel)) p.seen.first = true;
      if (!p.seen.full && w.__isFull()) p.seen.full = true;
    }
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})();`;

interface Side {
  name: string;
  url: string;
  /** Makes the page's "first view" and "fully loaded" tests. */
  setup: string;
  input: (page: Page) => ReturnType<Page['locator']>;
  /** Waits until the page is ready for a file. */
  ready: (page: Page) => Promise<void>;
}

const OURS_SETUP = `window.__firstSel = '[role="treeitem"]'; window.__isFull = () => document.querySelector('[data-testid="timings"]') !== null;`;
const REF_SETUP = `window.__firstSel = null; window.__isFull = () => [...document.querySelectorAll('header button')].some((b) => (b.textContent || '').includes('Back'));`;

interface Sample {
  first: number;
  full: number;
  fps: number;
  longest: number;
  heapMb: number;
}

async function openOnce(b: Browser, side: Side, file: string): Promise<Sample> {
  const page = b.page;
  await page.goto(side.url);
  await side.ready(page);
  await side.input(page).setInputFiles(file);
  // A function, not a string: our page's CSP has no 'unsafe-eval'.
  await page.waitForFunction(() => (globalThis as unknown as { __perf?: { full: number | null } }).__perf?.full != null, undefined, {
    timeout: TIMEOUT,
    polling: 100,
  });
  const p = await page.evaluate<{ first: number; full: number; frames: number; long: number[] }>('window.__perf');
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const heap = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
  await cdp.detach();
  return {
    first: p.first,
    full: p.full,
    fps: p.full > 0 ? (p.frames * 1000) / p.full : 0,
    longest: p.long.length ? Math.max(...p.long) : 0,
    heapMb: heap.usedSize / 1e6,
  };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

async function main(): Promise<void> {
  const served = await startServe(STATIC ? ['--static', STATIC] : []);
  const stops: (() => Promise<void>)[] = [served.stop];
  const sides: Side[] = [
    {
      name: 'ours',
      url: served.url,
      setup: OURS_SETUP,
      input: (page) => page.getByTestId('open-file'),
      ready: async (page) => {
        // A user opens files after the page's idle-time start-up work (as measure.ts).
        await page
          .locator('html[data-monaco="ready"]')
          .waitFor({ state: 'attached', timeout: 5_000 })
          .catch(() => undefined);
      },
    },
  ];
  if (BEFORE) {
    const before = await startServe(['--static', BEFORE]);
    stops.push(before.stop);
    sides.push({ ...(sides[0] as Side), name: 'before', url: before.url });
  }
  if (REFERENCE) {
    const src = referenceSource(REFERENCE, cache);
    const dir = buildReferenceViewer(src, cache);
    const ref = await startReferenceViewer(dir);
    stops.push(ref.stop);
    sides.push({
      name: 'reference',
      url: ref.url,
      setup: REF_SETUP,
      input: (page) => page.locator('input[type="file"]').first(),
      ready: async (page) => {
        await page.locator('input[type="file"]').first().waitFor({ state: 'attached', timeout: 30_000 });
        await page.waitForTimeout(500);
      },
    });
  } else console.log('no --reference PATH: measuring ours only');
  if (FLOOR) {
    const floor = await startParseFloor();
    stops.push(floor.stop);
    sides.push({
      name: 'floor',
      url: floor.url,
      setup: FLOOR_SETUP,
      input: (page) => page.locator('input[type="file"]'),
      ready: async (page) => {
        await page.locator('input[type="file"]').waitFor({ state: 'attached', timeout: 30_000 });
      },
    });
  }
  const browsers = new Map<string, Browser>();
  try {
    for (const side of sides) {
      const b = await launch(side.url);
      await b.page.addInitScript(side.setup + PROBE);
      browsers.set(side.name, b);
    }
    const rows: string[] = [];
    for (const kind of LOGS)
      for (const mb of SIZES) {
        const file = referenceLog(kind, mb);
        const got = new Map<string, Sample[]>(sides.map((s) => [s.name, []]));
        for (let i = 0; i < REPEAT; i++)
          // Alternating, and in the other order each round: load from other work falls on all sides.
          for (const side of i % 2 ? [...sides].reverse() : sides) {
            const s = await openOnce(browsers.get(side.name) as Browser, side, file);
            got.get(side.name)?.push(s);
            console.log(
              `${kind} ${mb} MB #${i + 1} ${side.name}: first ${s.first.toFixed(0)} ms, full ${s.full.toFixed(0)} ms, ${s.fps.toFixed(0)} fps, longest task ${s.longest.toFixed(0)} ms, heap ${s.heapMb.toFixed(0)} MB`,
            );
          }
        const med = (name: string, k: keyof Sample): number => median((got.get(name) ?? []).map((s) => s[k]));
        const cell = (k: keyof Sample, unit: string): string =>
          sides.map((s) => `${med(s.name, k).toFixed(0)}${unit}`).join(' / ') +
          (REFERENCE && k === 'full'
            ? ` (${(med('ours', k) / med('reference', k)).toFixed(2)}×${FLOOR ? `; floor ${(med('floor', k) / med('reference', k)).toFixed(2)}×` : ''})`
            : '');
        rows.push(
          `| ${kind} ${mb} MB | ${cell('first', ' ms')} | ${cell('full', ' ms')} | ${cell('fps', '')} | ${cell('longest', ' ms')} | ${cell('heapMb', ' MB')} |`,
        );
      }
    console.log(`\nmedians of ${REPEAT}, ${sides.map((s) => s.name).join(' / ')}:`);
    console.log('| log | first view | fully loaded | fps while loading | longest task | heap after |');
    console.log('| --- | --- | --- | --- | --- | --- |');
    for (const r of rows) console.log(r);
  } finally {
    for (const b of browsers.values()) await b.close();
    for (const stop of stops) await stop();
  }
}

await main();
