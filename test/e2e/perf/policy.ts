// Measures the Policy panel in Chromium on an evaluation of 1,000 generated sessions (a
// benchmark, not a test: prints numbers, asserts nothing): time from "Compute metrics" to the
// charts, the reply's size, and the longest main-thread tasks meanwhile (goal: none > 100 ms),
// then the same while switching the charted figure and drawing the success-set grid.
//   node --no-node-snapshot test/e2e/perf/policy.ts [--sessions N]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeEvalDir } from '../../support/policy-sessions.ts';
import { openApp, startServe } from '../support.ts';

const { values } = parseArgs({ options: { sessions: { type: 'string', default: '1000' } } });
const n = Number(values.sessions);
const tmp = mkdtempSync(join(tmpdir(), 'rlm-perf-policy-'));
const LONG = `window.__long = []; new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration); }).observe({ type: 'longtask', buffered: false });`;
const LONGEST = 'JSON.stringify(window.__long.map(Math.round).sort((a,b)=>b-a).slice(0,5))';

const task = (i: number, correct: boolean) => ({
  id: `task-${i}`,
  correct,
  shape: { query: `question ${i}`, calls: Array.from({ length: 2 + (i % 4) }, (_, k) => (i * 5 + k * 3) % 13), children: i % 3, pad: 200 },
});
const WARM = join(tmp, 'warm-up');
writeEvalDir(
  WARM,
  Array.from({ length: 5 }, (_, i) => task(i, i % 2 === 0)),
);
const A = join(tmp, 'a');
const B = join(tmp, 'b');
writeEvalDir(
  A,
  Array.from({ length: n }, (_, i) => task(i, (i * 7) % 10 < 6)),
);
writeEvalDir(
  B,
  Array.from({ length: n }, (_, i) => task(i, i % 3 !== 0)),
);

const served = await startServe();
const browser = await openApp(served.url);
const page = browser.page;
try {
  // Monaco's one-off prewarm runs when the page is first idle; wait for it so it is not counted as the panel's.
  await page.locator('html[data-monaco="ready"]').waitFor({ state: 'attached', timeout: 60_000 });
  await page.getByTestId('tab-policy').click();
  const out: Record<string, unknown> = { sessions: n };
  // Untimed: the first metrics shown load the panel's code and fonts (one-off work, measured apart).
  await page.evaluate(LONG);
  await page.getByTestId('policy-path').fill(WARM);
  await page.getByTestId('policy-open').click();
  await page.getByTestId('policy-summary').filter({ hasText: WARM }).waitFor({ timeout: 120_000 });
  await page.waitForTimeout(1000);
  out['warmUpLongestTasksMs'] = JSON.parse(String(await page.evaluate(LONGEST))) as number[];
  await page.getByTestId('policy-compare-a').selectOption(WARM);
  for (const [name, dir] of [
    ['a', A],
    ['b', B],
  ] as const) {
    await page.evaluate(LONG);
    await page.getByTestId('policy-path').fill(dir);
    const t0 = Date.now();
    await page.getByTestId('policy-open').click();
    await page.getByTestId('policy-summary').filter({ hasText: dir }).waitFor({ timeout: 120_000 });
    await page.getByTestId('policy-chart-split').locator('svg').waitFor();
    out[`${name}ComputeAndDrawMs`] = Date.now() - t0;
    out[`${name}LongestTasksMs`] = JSON.parse(String(await page.evaluate(LONGEST))) as number[];
  }
  await page.evaluate(LONG);
  for (const f of ['fanOutMax', 'costUsd', 'replMs', 'subcalls']) await page.getByTestId('policy-figure').selectOption(f);
  await page.getByTestId('policy-compare-a').selectOption(A);
  await page.getByTestId('policy-compare-b').selectOption(B);
  await page.getByTestId('policy-cell-both').waitFor();
  out['figuresAndGridLongestTasksMs'] = JSON.parse(String(await page.evaluate(LONGEST))) as number[];
  process.stdout.write(`${JSON.stringify(out)}\n`);
} finally {
  await browser.close();
  await served.stop();
  rmSync(tmp, { recursive: true, force: true });
}
