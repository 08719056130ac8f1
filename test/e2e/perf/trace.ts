// Traces opening a big log in Chromium (devtools timeline) and prints, for each main-thread
// task over 90 ms, what it spent its time in by trace event (Layout, Paint, GC, script...).
// A tool, not a test; the trace is kept in /tmp/rlmperf/trace.json.
//   node --no-node-snapshot test/e2e/perf/trace.ts [FILE]    (WARM=SMALL_LOG opens that first)
import { mkdirSync, writeFileSync } from 'node:fs';
import { launch, startServe } from '../support.ts';
import { traceWhile } from './trace-capture.ts';
const served = await startServe();
const b = await launch(served.url);
const page = b.page;
try {
  await page.goto(served.url);
  await page
    .locator('html[data-monaco="ready"]')
    .waitFor({ state: 'attached', timeout: 60_000 })
    .catch(() => undefined);
  if (process.env.WARM) {
    await page.getByTestId('open-file').setInputFiles(process.env.WARM);
    await page.getByTestId('timings').waitFor({ timeout: 60_000 });
    await page.waitForTimeout(1000);
  }
  const events = await traceWhile(page, async () => {
    await page.getByTestId('open-file').setInputFiles(process.argv[2] ?? '/tmp/rlm-perf-logs/big100-v2.rlm.jsonl');
    await page.getByTestId('timings').waitFor({ timeout: 60_000 });
  });
  mkdirSync('/tmp/rlmperf', { recursive: true });
  writeFileSync('/tmp/rlmperf/trace.json', JSON.stringify(events));
  // Main-thread tasks over 90 ms and the trace events inside them (nested ones count in each level).
  type E = { name: string; ph: string; ts: number; dur?: number; tid: number; pid: number; args?: { data?: { frame?: string } } };
  const ev = events as unknown as E[];
  const rendererMain = ev.find(
    (e) => e.name === 'thread_name' && (e as unknown as { args: { name: string } }).args.name === 'CrRendererMain',
  );
  const main = ev.filter((e) => e.tid === rendererMain?.tid && e.pid === rendererMain?.pid && e.ph === 'X');
  const tasks = main.filter((e) => (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') && (e.dur ?? 0) > 90_000);
  for (const t of tasks) {
    const inside = main.filter((e) => e !== t && e.ts >= t.ts && e.ts + (e.dur ?? 0) <= t.ts + (t.dur ?? 0));
    const by = new Map<string, number>();
    for (const e of inside) by.set(e.name, (by.get(e.name) ?? 0) + (e.dur ?? 0) / 1000);
    console.log(
      `task ${Math.round((t.dur ?? 0) / 1000)} ms:`,
      [...by]
        .sort((a, b2) => b2[1] - a[1])
        .slice(0, 12)
        .map(([k, v]) => `${k} ${v.toFixed(0)}`)
        .join(' | '),
    );
  }
} finally {
  await b.close();
  await served.stop();
}
