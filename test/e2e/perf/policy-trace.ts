// Traces the Policy view in Chromium (devtools timeline) while it shows the metrics of a
// small evaluation (the first metrics shown) and then of one with 1,000 sessions, and prints
// for each main-thread task over 50 ms what it spent its time in. A tool, not a test.
//   node --no-node-snapshot test/e2e/perf/policy-trace.ts [--sessions N]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { CDPSession } from 'playwright-core';
import { writeEvalDir } from '../../support/policy-sessions.ts';
import { openApp, startServe } from '../support.ts';

const { values } = parseArgs({ options: { sessions: { type: 'string', default: '1000' } } });
const n = Number(values.sessions);
const tmp = mkdtempSync(join(tmpdir(), 'rlm-perf-policy-trace-'));
const task = (i: number) => ({
  id: `task-${i}`,
  correct: i % 3 !== 0,
  shape: { query: `question ${i}`, calls: Array.from({ length: 2 + (i % 4) }, (_, k) => (i * 5 + k * 3) % 13), children: i % 3, pad: 200 },
});
const SMALL = join(tmp, 'small');
const BIG = join(tmp, 'big');
writeEvalDir(
  SMALL,
  Array.from({ length: 5 }, (_, i) => task(i)),
);
writeEvalDir(
  BIG,
  Array.from({ length: n }, (_, i) => task(i)),
);

type E = { name: string; ph: string; ts: number; dur?: number; tid: number; pid: number; args?: { name?: string } };

async function traced(cdp: CDPSession, act: () => Promise<void>): Promise<E[]> {
  const events: E[] = [];
  const onData = (d: { value: Record<string, unknown>[] }): void => {
    events.push(...(d.value as unknown as E[]));
  };
  cdp.on('Tracing.dataCollected', onData);
  const done = new Promise<void>((r) => cdp.once('Tracing.tracingComplete', () => r()));
  await cdp.send('Tracing.start', {
    categories: 'devtools.timeline,disabled-by-default-devtools.timeline,v8',
    transferMode: 'ReportEvents',
  });
  await act();
  await cdp.send('Tracing.end');
  await done;
  cdp.off('Tracing.dataCollected', onData);
  return events;
}

function longTasks(label: string, ev: E[]): void {
  const rendererMain = ev.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const main = ev.filter((e) => e.tid === rendererMain?.tid && e.pid === rendererMain?.pid && e.ph === 'X');
  const tasks = main.filter((e) => (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') && (e.dur ?? 0) > 50_000);
  console.log(`${label}: ${tasks.length} task(s) over 50 ms`);
  for (const t of tasks) {
    const inside = main.filter((e) => e !== t && e.ts >= t.ts && e.ts + (e.dur ?? 0) <= t.ts + (t.dur ?? 0));
    const by = new Map<string, number>();
    for (const e of inside) by.set(e.name, (by.get(e.name) ?? 0) + (e.dur ?? 0) / 1000);
    const top = [...by].sort((a, b) => b[1] - a[1]).slice(0, 10);
    console.log(`  task ${Math.round((t.dur ?? 0) / 1000)} ms: ${top.map(([k, v]) => `${k} ${v.toFixed(0)}`).join(' | ')}`);
  }
}

const served = await startServe();
const browser = await openApp(served.url);
const page = browser.page;
try {
  const cdp = await page.context().newCDPSession(page);
  for (const [label, dir] of [
    ['first metrics shown (5 sessions)', SMALL],
    [`${n} sessions`, BIG],
  ] as const) {
    const ev = await traced(cdp, async () => {
      if (dir === SMALL) await page.getByTestId('tab-policy').click();
      await page.getByTestId('policy-path').fill(dir);
      await page.getByTestId('policy-open').click();
      await page.getByTestId('policy-summary').filter({ hasText: dir }).waitFor({ timeout: 120_000 });
      await page.waitForTimeout(500);
    });
    longTasks(label, ev);
  }
} finally {
  await browser.close();
  await served.stop();
  rmSync(tmp, { recursive: true, force: true });
}
