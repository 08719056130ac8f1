// Measures the app in Chromium (a benchmark, not a test: prints numbers, asserts nothing).
//   node --no-node-snapshot test/e2e/perf/measure.ts
// 1. a ~100 MB native log opened by file input: first view, full load, longest main-thread task;
// 2. a 10,000-run tree: frame rate while panning the graph and scrolling the list;
// 3. a live stream of 1,000 events/s into the store: frame intervals while it runs.
import { mkdtempSync, writeFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRlmPythonText } from '../../../src-shared/codecs/rlm-python.ts';
import { encodeNative } from '../../../src-shared/codecs/native.ts';
import { makeHeader } from '../../../src-shared/codecs/native-lines.ts';
import { asSessionId, type TrajectoryEvent } from '../../../src-shared/events.ts';
import { launch, startServe, FIXTURES } from '../support.ts';
import { readFileSync } from 'node:fs';

const dir = mkdtempSync(join(tmpdir(), 'rlm-perf-'));

function relabel(e: TrajectoryEvent, k: number, seq: number, tOff: number): TrajectoryEvent {
  const r = (id: string | null) => (id === null ? null : `${id}-${k}`);
  const x = { ...e, seq, t: e.t + tOff, runId: r(e.runId), parentRunId: r(e.parentRunId) } as Record<string, unknown>;
  if ('callId' in e) x.callId = `${e.callId}-${k}`;
  if (e.type === 'subcall.start') x.childRunId = r(e.childRunId);
  if (e.type === 'run.start' && e.spawnedBy) x.spawnedBy = { ...e.spawnedBy, runId: r(e.spawnedBy.runId), callId: `${e.spawnedBy.callId}-${k}` };
  return x as unknown as TrajectoryEvent;
}

function bigLog(targetBytes: number): string {
  const base = readRlmPythonText(readFileSync(join(FIXTURES, 'c_recursive.jsonl'), 'utf8')).events.concat(readRlmPythonText(readFileSync(join(FIXTURES, 'b_aggregate.jsonl'), 'utf8')).events.map((e) => ({ ...e, runId: `b${e.runId}`, parentRunId: e.parentRunId ? `b${e.parentRunId}` : null }) as TrajectoryEvent));
  const file = join(dir, 'big.rlm.jsonl');
  const out: string[] = [];
  let bytes = 0;
  let seq = 0;
  const header = makeHeader(asSessionId('perf'), new Date());
  let first = true;
  for (let k = 0; bytes < targetBytes; k++) {
    const evs = base.map((e) => relabel(e, k, seq++, k * 1000));
    for (const line of encodeNative(header, evs)) {
      if (!first && line.startsWith('{"format"')) continue;
      first = false;
      out.push(line);
      bytes += line.length;
    }
  }
  writeFileSync(file, out.join(''));
  return file;
}

function wideTree(runs: number): string {
  const file = join(dir, 'tree.rlm.jsonl');
  const lines: string[] = [JSON.stringify(makeHeader(asSessionId('tree'), new Date())) + '\n'];
  const limits = { maxDepth: 5, maxIterations: 3, maxBudgetUsd: null, maxTimeoutMs: null, maxTokens: null, maxErrors: null, maxConcurrency: 8 };
  let seq = 0;
  const env = (runId: string, parent: string | null, depth: number, t: number) => ({ v: 1, seq: seq++, t, ts: '2026-01-01T00:00:00.000Z', runId, parentRunId: parent, depth });
  for (let i = 0; i < runs; i++) {
    const parent = i === 0 ? null : `r${Math.floor((i - 1) / 8)}`;
    const depth = i === 0 ? 0 : Math.floor(Math.log(i * 7 + 1) / Math.log(8));
    lines.push(JSON.stringify({ ...env(`r${i}`, parent, depth, i), type: 'run.start', spawnedBy: null, turn: 0, model: 'm', subModel: null, query: `task ${i}`, context: { type: 'string', totalChars: 10, chunkLengths: [10] }, limits, messages: [], tools: [] }) + '\n');
    lines.push(JSON.stringify({ ...env(`r${i}`, parent, depth, i + 1), type: 'model.reply', iteration: 1, purpose: 'turn', model: 'm', text: 'ok', usage: { inputTokens: 100 + (i % 50), outputTokens: 10, costUsd: 0.0001 * (i % 13) }, latencyMs: 5 }) + '\n');
    lines.push(JSON.stringify({ ...env(`r${i}`, parent, depth, i + 2), type: 'run.end', answer: 'x', stopReason: i % 17 ? 'answered' : 'max_iterations', message: null, iterations: 1, durationMs: 3, usage: { inputTokens: 0, outputTokens: 0, costUsd: 0, calls: 1 } }) + '\n');
  }
  writeFileSync(file, lines.join(''));
  return file;
}

const FPS = `(async (ms) => { const t = []; const t0 = performance.now(); await new Promise((res) => { const f = (now) => { t.push(now); if (now - t0 < ms) requestAnimationFrame(f); else res(); }; requestAnimationFrame(f); }); const d = t.slice(1).map((x, i) => x - t[i]); d.sort((a, b) => a - b); return { frames: d.length, fps: d.length / (ms / 1000), p50: d[Math.floor(d.length * 0.5)], p95: d[Math.floor(d.length * 0.95)], max: d[d.length - 1] }; })`;

async function main(): Promise<void> {
  const big = bigLog(100 * 1024 * 1024);
  const tree = wideTree(10_000);
  console.log(`big log ${(statSync(big).size / 1e6).toFixed(1)} MB; tree log ${(statSync(tree).size / 1e6).toFixed(1)} MB`);
  const served = await startServe();
  const b = await launch(served.url);
  const page = b.page;
  try {
    await page.goto(served.url);
    await page.evaluate(`window.__long = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration); }).observe({ type: 'longtask', buffered: false });`);
    const t0 = Date.now();
    await page.getByTestId('open-file').setInputFiles(big);
    await page.getByTestId('timings').waitFor({ timeout: 300_000 });
    const wall = Date.now() - t0;
    console.log('100 MB:', await page.getByTestId('timings').innerText(), `(wall incl. file handoff ${wall} ms)`);
    console.log('100 MB: long tasks (ms) during load:', await page.evaluate('JSON.stringify(window.__long.map(Math.round).sort((a,b)=>b-a).slice(0,8))'));

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
      for (let i = 0; i < 90; i++) await page.mouse.move(box.x + box.width / 2 + Math.sin(i / 8) * 200, box.y + box.height / 2 + Math.cos(i / 8) * 150);
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
