// Measures the app in Chromium (a benchmark, not a test: prints numbers, asserts nothing).
//   node --no-node-snapshot test/e2e/perf/measure.ts
// 1. a ~100 MB native log opened by file input: first view, full load, longest main-thread task;
// 2. a 10,000-run tree: frame rate while panning the graph and scrolling the list;
// 3. a live stream of 1,000 events/s into the store: frame intervals while it runs;
// 4. with `--gb`: a ~1 GB native log (time, longest tasks, page memory), written in chunks.
// Big logs are cached in $RLM_PERF_DIR (default /tmp/rlm-perf-logs) between runs.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeHeader } from '../../../src-shared/codecs/native-lines.ts';
import { asSessionId } from '../../../src-shared/events.ts';
import { launch, startServe, type Browser } from '../support.ts';
import { bigLog } from './logs.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlm-perf-'));
const cache = process.env.RLM_PERF_DIR ?? join(tmpdir(), 'rlm-perf-logs');
mkdirSync(cache, { recursive: true });
const GB = process.argv.includes('--gb');
const ONLY_GB = process.argv.includes('--only-gb');
/** `--only-100`: just the 100 MB opens (quick A/B); `--static DIR`: serve another build (e.g. the previous one). */
const ONLY_100 = process.argv.includes('--only-100');
const staticAt = process.argv.indexOf('--static');
const STATIC = staticAt > 0 ? process.argv[staticAt + 1] : undefined;
const REPEAT = Number(process.env.RLM_PERF_REPEAT ?? '2');

const LONG = `window.__long = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration); }).observe({ type: 'longtask', buffered: false });`;
const LONGEST = 'JSON.stringify(window.__long.map(Math.round).sort((a,b)=>b-a).slice(0,8))';

/**
 * CPU time the whole machine has spent busy (all cores, from /proc/stat): on 2 shared cores a
 * load's wall time swings with whatever else runs, its CPU cost much less.
 */
function busyCpuSeconds(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  const total = fields.reduce((a, b) => a + b, 0);
  return (total - idle) / 100;
}

/** Opens `file` by the file input in a fresh page; prints first view, full load, long tasks and heap. */
async function openBig(b: Browser, url: string, file: string, label: string): Promise<void> {
  const page = b.page;
  await page.goto(url);
  // Monaco's one-time start-up work happens at idle after load; a user opens files after that.
  // (Builds before that marker just get 5 s.)
  await page
    .locator('html[data-monaco="ready"]')
    .waitFor({ state: 'attached', timeout: 5_000 })
    .catch(() => undefined);
  await page.evaluate(LONG);
  const cpu0 = busyCpuSeconds();
  const t0 = Date.now();
  await page.getByTestId('open-file').setInputFiles(file);
  await page
    .getByTestId('timings')
    .waitFor({ timeout: Number(process.env.RLM_PERF_TIMEOUT_MS ?? 600_000) })
    .catch(async (err: unknown) => {
      // Say what the page was doing (its notices and load state) instead of only timing out.
      const state = await page.evaluate(
        `JSON.stringify((() => { const s = window.__rlmStudio.store.getState(); return { notices: s.notices, sessions: [...s.sessions.values()].map((e) => ({ id: e.id, events: e.events.length, loading: e.loading, timings: e.timings, problems: e.problems.slice(0, 3) })) }; })())`,
      );
      throw new Error(`${label}: no timings (${String(err)}); page state: ${String(state)}`);
    });
  const wall = Date.now() - t0;
  const cpu = busyCpuSeconds() - cpu0;
  console.log(
    `${label}:`,
    await page.getByTestId('timings').innerText(),
    `(wall incl. file handoff ${wall} ms; machine CPU busy ${cpu.toFixed(2)} s)`,
  );
  console.log(`${label}: long tasks (ms) during load:`, await page.evaluate(LONGEST));
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const heap = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number; totalSize: number };
  console.log(`${label}: JS heap after load ${(heap.usedSize / 1e6).toFixed(0)} MB used / ${(heap.totalSize / 1e6).toFixed(0)} MB`);
  await cdp.detach();
}

function wideTree(runs: number): string {
  const file = join(dir, 'tree.rlm.jsonl');
  const lines: string[] = [JSON.stringify(makeHeader(asSessionId('tree'), new Date())) + '\n'];
  const limits = {
    maxDepth: 5,
    maxIterations: 3,
    maxBudgetUsd: null,
    maxTimeoutMs: null,
    maxTokens: null,
    maxErrors: null,
    maxConcurrency: 8,
  };
  let seq = 0;
  const env = (runId: string, parent: string | null, depth: number, t: number) => ({
    v: 1,
    seq: seq++,
    t,
    ts: '2026-01-01T00:00:00.000Z',
    runId,
    parentRunId: parent,
    depth,
  });
  for (let i = 0; i < runs; i++) {
    const parent = i === 0 ? null : `r${Math.floor((i - 1) / 8)}`;
    const depth = i === 0 ? 0 : Math.floor(Math.log(i * 7 + 1) / Math.log(8));
    lines.push(
      JSON.stringify({
        ...env(`r${i}`, parent, depth, i),
        type: 'run.start',
        spawnedBy: null,
        turn: 0,
        model: 'm',
        subModel: null,
        query: `task ${i}`,
        context: { type: 'string', totalChars: 10, chunkLengths: [10] },
        limits,
        messages: [],
        tools: [],
      }) + '\n',
    );
    lines.push(
      JSON.stringify({
        ...env(`r${i}`, parent, depth, i + 1),
        type: 'model.reply',
        iteration: 1,
        purpose: 'turn',
        model: 'm',
        text: 'ok',
        usage: { inputTokens: 100 + (i % 50), outputTokens: 10, costUsd: 0.0001 * (i % 13) },
        latencyMs: 5,
      }) + '\n',
    );
    lines.push(
      JSON.stringify({
        ...env(`r${i}`, parent, depth, i + 2),
        type: 'run.end',
        answer: 'x',
        stopReason: i % 17 ? 'answered' : 'max_iterations',
        message: null,
        iterations: 1,
        durationMs: 3,
        usage: { inputTokens: 0, outputTokens: 0, costUsd: 0, calls: 1 },
      }) + '\n',
    );
  }
  writeFileSync(file, lines.join(''));
  return file;
}

const FPS = `(async (ms) => { const t = []; const t0 = performance.now(); await new Promise((res) => { const f = (now) => { t.push(now); if (now - t0 < ms) requestAnimationFrame(f); else res(); }; requestAnimationFrame(f); }); const d = t.slice(1).map((x, i) => x - t[i]); d.sort((a, b) => a - b); return { frames: d.length, fps: d.length / (ms / 1000), p50: d[Math.floor(d.length * 0.5)], p95: d[Math.floor(d.length * 0.95)], max: d[d.length - 1] }; })`;

async function main(): Promise<void> {
  const big = bigLog(join(cache, 'big100-v2.rlm.jsonl'), 100 * 1024 * 1024);
  const tree = wideTree(10_000);
  console.log(`big log ${(statSync(big).size / 1e6).toFixed(1)} MB; tree log ${(statSync(tree).size / 1e6).toFixed(1)} MB`);
  const served = await startServe(STATIC ? ['--static', STATIC] : []);
  const b = await launch(served.url);
  const page = b.page;
  try {
    if (ONLY_GB || GB) {
      const gb = bigLog(join(cache, 'big1g-v2.rlm.jsonl'), 1024 * 1024 * 1024);
      console.log(`1 GB log ${(statSync(gb).size / 1e6).toFixed(1)} MB`);
      await openBig(b, served.url, gb, '1 GB');
      if (ONLY_GB) return;
    }
    for (let i = 0; i < REPEAT; i++) await openBig(b, served.url, big, `100 MB #${i + 1}`);
    if (ONLY_100) return;

    await page.getByTestId('open-file').setInputFiles(tree);
    await page.getByTestId('timings').filter({ hasText: '30,000 events' }).waitFor({ timeout: 120_000 });
    console.log('10k tree:', await page.getByTestId('timings').innerText());
    // Scroll the virtualised list.
    const list = page.getByRole('tree', { name: 'Recursion tree' });
    const scrolling = page.evaluate(`${FPS}(3000)`);
    for (let i = 0; i < 60; i++) {
      await list.hover();
      await page.mouse.wheel(0, 400);
      await page.waitForTimeout(40);
    }
    console.log('10k tree list scroll:', JSON.stringify(await scrolling));
    await page.getByRole('button', { name: 'Graph' }).click();
    const canvas = page.locator('canvas.tree-graph');
    await canvas.waitFor();
    const box = await canvas.boundingBox();
    if (box) {
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.wheel(0, 800); // zoom out to see many nodes
      const panning = page.evaluate(`${FPS}(3000)`);
      await page.mouse.down();
      for (let i = 0; i < 90; i++)
        await page.mouse.move(box.x + box.width / 2 + Math.sin(i / 8) * 200, box.y + box.height / 2 + Math.cos(i / 8) * 150);
      await page.mouse.up();
      console.log('10k tree graph pan:', JSON.stringify(await panning));
    }
    await page.getByRole('button', { name: 'List' }).click();
    // Live: 1,000 events/s pushed into the store (the host's events message path) for 4 s.
    const live = await page.evaluate(`(async () => {
      const { store } = window.__rlmStudio;
      const src = store.getState().sessions.get(store.getState().activeId).events;
      store.getState().addLocalSession('live', 'live stream');
      const fps = ${FPS}(4000);
      let i = 0; const t0 = performance.now();
      await new Promise((res) => { const tick = () => { const due = Math.min(src.length, Math.floor((performance.now() - t0))); const batch = src.slice(i, due); i = due; if (batch.length) store.getState().ingestEvents('live', batch); if (performance.now() - t0 < 4000 && i < src.length) setTimeout(tick, 4); else res(); }; tick(); });
      return { delivered: i, ...(await fps) };
    })()`);
    console.log('live 1,000 events/s:', JSON.stringify(live));
  } finally {
    await b.close();
    await served.stop();
  }
}

await main();
