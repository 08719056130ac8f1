// Profiles opening a big log in Chromium (CPU profile of the page's main thread through CDP)
// and prints the functions with the most self time inside long tasks. A tool, not a test.
//   node --no-node-snapshot test/e2e/perf/profile.ts FILE [--static DIR] [--task-ms 90]
// (`--static DIR`: another build, e.g. one made with `npx vite build --minify false --outDir DIR`
// for readable function names; `--task-ms N`: break down each long task of N ms or more.)
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, startServe } from '../support.ts';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv[2];
if (!file) throw new Error('usage: profile.ts FILE');
const staticAt = process.argv.indexOf('--static');
const taskMsAt = process.argv.indexOf('--task-ms');
const TASK_MS = taskMsAt > 0 ? Number(process.argv[taskMsAt + 1]) : 90;
const served = await startServe(staticAt > 0 ? ['--static', process.argv[staticAt + 1] ?? ''] : []);
const b = await launch(served.url);
const page = b.page;
try {
  await page.goto(served.url);
  await page.locator('html[data-monaco="ready"]').waitFor({ state: 'attached', timeout: 60_000 });
  await page.evaluate(
    `window.__long = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push([e.startTime, e.duration]); }).observe({ type: 'longtask', buffered: false });`,
  );
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 250 });
  await cdp.send('Profiler.start');
  // A named busy loop whose page time we know aligns the profile's clock with performance.now().
  const markAt = await page.evaluate<number>(
    '(function __syncMarker() { const t = performance.now(); while (performance.now() - t < 20); return t; })()',
  );
  await page.getByTestId('open-file').setInputFiles(file);
  await page.getByTestId('timings').waitFor({ timeout: 600_000 });
  const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: Profile };
  console.log(await page.getByTestId('timings').innerText());
  const long = await page.evaluate<[number, number][]>('window.__long');
  console.log('long tasks:', JSON.stringify(long.map(([s, d]) => [Math.round(s), Math.round(d)])));
  // Kept for a closer look in DevTools' Performance panel.
  const saved = join(process.env['RLM_PERF_DIR'] ?? join(tmpdir(), 'rlm-perf-logs'), 'last.cpuprofile');
  mkdirSync(join(saved, '..'), { recursive: true });
  writeFileSync(saved, JSON.stringify(profile));
  console.log(`profile saved to ${saved}`);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const n = byId.get(profile.samples[i] as number);
    if (!n) continue;
    const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}`;
    self.set(k, (self.get(k) ?? 0) + (profile.timeDeltas[i + 1] ?? 0) / 1000);
  }
  // Each long task: the functions (inclusive) it spent its time in.
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const label = (n: Node): string =>
    `${n.callFrame.functionName || '(anon)'}:${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}`;
  let syncT = -1;
  let tt = profile.startTime;
  const times: number[] = [];
  for (let i = 0; i < profile.samples.length; i++) {
    tt += profile.timeDeltas[i] ?? 0;
    times.push(tt / 1000);
    if (syncT < 0 && (byId.get(profile.samples[i] as number) as Node).callFrame.functionName === '__syncMarker') syncT = tt / 1000;
  }
  const off = markAt - syncT; // page ms = profile ms + off
  const boring =
    /^(\(root\)|\(program\)|performWorkOnRoot|performSyncWorkOnRoot|flushSyncWorkAcrossRoots_impl|processRootScheduleInMicrotask|renderRootSync|workLoopSync|performUnitOfWork|beginWork|renderWithHooks|updateFunctionComponent|commitRoot|completeRoot|completeRootWhenReady|\(anon\):index)/;
  for (const [ls, ld] of long) {
    if (ld < TASK_MS) continue;
    const acc = new Map<string, number>();
    for (let i = 0; i < times.length; i++) {
      const pt = (times[i] as number) + off;
      if (pt < ls || pt > ls + ld) continue;
      const seen = new Set<string>();
      for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parent.get(id)) {
        const k = label(byId.get(id) as Node);
        if (seen.has(k)) continue;
        seen.add(k);
        acc.set(k, (acc.get(k) ?? 0) + (profile.timeDeltas[i + 1] ?? 0) / 1000);
      }
    }
    const top = [...acc.entries()]
      .filter(([k]) => !boring.test(k))
      .sort((x, y) => y[1] - x[1])
      .slice(0, 14);
    console.log(`task at ${Math.round(ls)} ${Math.round(ld)} ms: ${top.map(([k, v]) => `${k} ${v.toFixed(0)}`).join(' | ')}`);
  }
  const top = [...self.entries()].sort((a, b2) => b2[1] - a[1]).slice(0, 30);
  for (const [k, v] of top) console.log(v.toFixed(1).padStart(8), k);
} finally {
  await b.close();
  await served.stop();
}
