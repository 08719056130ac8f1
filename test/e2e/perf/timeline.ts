// Traces one open of a log in Chromium and prints each thread's tasks in time order (main
// thread and workers), with what each spent its time in: where the milliseconds between
// the file input's change and the fully loaded view go. A tool, not a test.
//   node --no-node-snapshot test/e2e/perf/timeline.ts FILE [--min-ms 2] [--static DIR] [--cpu]
// (`--cpu`: also each thread's sampled CPU profile, the parse worker's included: the functions
// with the most self time, then the most inclusive time. Use an unminified build for names:
// see profile.ts.)
import { launch, startServe } from '../support.ts';
import { cpuProfiles, traceWhile, type TraceEvent } from './trace-capture.ts';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const file = process.argv[2];
if (!file || file.startsWith('--')) throw new Error('usage: timeline.ts FILE [--min-ms N] [--static DIR] [--cpu]');
const MIN_MS = Number(arg('--min-ms') ?? '2');
const STATIC = arg('--static');
const CPU = process.argv.includes('--cpu');

const served = await startServe(STATIC ? ['--static', STATIC] : []);
const b = await launch(served.url);
const page = b.page;
try {
  await page.goto(served.url);
  await page
    .locator('html[data-monaco="ready"]')
    .waitFor({ state: 'attached', timeout: 60_000 })
    .catch(() => undefined);
  await page.waitForTimeout(500);
  let timings: string | null = null;
  const events = await traceWhile(
    page,
    async () => {
      await page.waitForTimeout(200);
      await page.getByTestId('open-file').setInputFiles(file);
      await page.getByTestId('timings').waitFor({ timeout: 120_000 });
      timings = await page.getByTestId('timings').textContent();
      await page.waitForTimeout(100);
    },
    { cpu: CPU },
  );
  const names = new Map<string, string>();
  for (const e of events) if (e.name === 'thread_name' && e.args?.name) names.set(`${e.pid}:${e.tid}`, e.args.name);
  const change = events.find((e) => e.name === 'EventDispatch' && e.args?.data?.type === 'change');
  const t0 = change?.ts ?? Math.min(...events.filter((e) => e.ph === 'X').map((e) => e.ts));
  const interesting = new Set(['CrRendererMain', 'DedicatedWorker thread']);
  const byThread = new Map<string, TraceEvent[]>();
  for (const e of events) {
    const key = `${e.pid}:${e.tid}`;
    const n = names.get(key) ?? '';
    if (!interesting.has(n) || e.ph !== 'X' || e.ts < t0) continue;
    let list = byThread.get(key);
    if (!list) byThread.set(key, (list = []));
    list.push(e);
  }
  console.log(`timings: ${timings}`);
  for (const [key, list] of byThread) {
    console.log(`\n== ${names.get(key)} (${key})`);
    const tasks = list.filter((e) => e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask');
    let busy = 0;
    for (const t of tasks) {
      const dur = (t.dur ?? 0) / 1000;
      busy += dur;
      if (dur < MIN_MS) continue;
      const inside = list.filter((e) => e !== t && e.ts >= t.ts && e.ts + (e.dur ?? 0) <= t.ts + (t.dur ?? 0));
      const by = new Map<string, number>();
      for (const e of inside) {
        const label = e.name === 'FunctionCall' && e.args?.data?.functionName ? `fn:${e.args.data.functionName}` : e.name;
        by.set(label, (by.get(label) ?? 0) + (e.dur ?? 0) / 1000);
      }
      const top = [...by]
        .sort((x, y) => y[1] - x[1])
        .slice(0, 7)
        .map(([k, v]) => `${k} ${v.toFixed(1)}`)
        .join(' | ');
      console.log(`${((t.ts - t0) / 1000).toFixed(1).padStart(8)} ms  ${dur.toFixed(1).padStart(7)} ms  ${top}`);
    }
    console.log(`busy ${busy.toFixed(0)} ms in tasks`);
  }
  if (CPU) {
    for (const p of cpuProfiles(events)) {
      if (!interesting.has(p.thread)) continue;
      console.log(`\n== ${p.thread}: ${p.sampledMs.toFixed(0)} ms sampled; most self time`);
      for (const [fn, ms] of [...p.self].sort((x, y) => y[1] - x[1]).slice(0, 20)) console.log(`${ms.toFixed(1).padStart(8)} ms  ${fn}`);
      console.log(`-- most inclusive time (the function anywhere on the stack)`);
      for (const [fn, ms] of [...p.total].sort((x, y) => y[1] - x[1]).slice(0, 40)) console.log(`${ms.toFixed(1).padStart(8)} ms  ${fn}`);
    }
  }
} finally {
  await b.close();
  await served.stop();
}
