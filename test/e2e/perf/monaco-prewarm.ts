// Monaco's idle prewarm, side by side for two builds (a benchmark, not a test: prints numbers).
//   node --no-node-snapshot test/e2e/perf/monaco-prewarm.ts BEFORE_DIR AFTER_DIR [--reps N] [--profile]
// (each DIR a build: `npx vite build --outDir DIR`). Alternating builds, each rep in a fresh
// browser profile, it reports per build (medians):
// - prewarm: the longest main-thread task from the first idle callback until <html data-monaco="ready">
//   (wall time from a longtask observer, and thread time from a trace: on a shared machine the
//   wall time includes time the thread was descheduled), the sum of long tasks (>50 ms) in that
//   window, and how long the window lasted;
// - first editor: a reference log opened (file input) after the prewarm; from the open until its
//   first code block's Monaco editor shows text;
// - the same, with the log opened in the task right after the prewarm starts (idle callbacks
//   held until then), and the longest task meanwhile: what the prewarm costs someone who acts at once.
// `--profile` prints, for the first rep of each build, where the longest prewarm task spent its time.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { FIXTURES, launch, startServe, type Served } from '../support.ts';

const dirs = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && all[i - 1] !== '--reps');
if (dirs.length !== 2) throw new Error('usage: monaco-prewarm.ts BEFORE_DIR AFTER_DIR [--reps N] [--profile]');
const repsAt = process.argv.indexOf('--reps');
const REPS = repsAt > 0 ? Number(process.argv[repsAt + 1]) : 5;
const PROFILE = process.argv.includes('--profile');
const LOG = join(FIXTURES, 'c_recursive.jsonl');

/** Long tasks and idle-callback starts from page start, recorded by the page itself. */
const PROBE = `
  window.__long = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push([e.startTime, e.duration]); })
    .observe({ type: 'longtask', buffered: true });
  // Idle callbacks are recorded, and held while __holdIdle is set (until __releaseIdle()).
  window.__idle = [];
  const ric = window.requestIdleCallback.bind(window);
  const held = [];
  window.requestIdleCallback = (cb, opts) => {
    const run = () => ric((d) => {
      if (window.__idle.length === 0) performance.mark('probe:idle');
      window.__idle.push(performance.now());
      const r = cb(d);
      window.__onIdle?.();
      return r;
    }, opts);
    if (window.__holdIdle) held.push(run); else run();
    return 0;
  };
  window.__releaseIdle = () => { window.__holdIdle = false; for (const f of held.splice(0)) f(); };
  window.__ready = null;
  new MutationObserver(() => {
    if (window.__ready === null && document.documentElement.dataset.monaco === 'ready') {
      window.__ready = performance.now();
      performance.mark('probe:ready');
    }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-monaco'] });
`;

/**
 * Opens LOG through the file input from inside the page (so it can happen in a chosen task)
 * and resolves with [ms until the first block's Monaco editor shows text, longest task meanwhile].
 */
const OPEN_TO_EDITOR = `new Promise((resolve) => {
  const t0 = performance.now();
  window.__opened = t0;
  const dt = new DataTransfer();
  dt.items.add(new File([window.__logText], 'c_recursive.jsonl'));
  const input = document.querySelector('[data-testid="open-file"]');
  input.files = dt.files;
  input.dispatchEvent(new Event('change', { bubbles: true }));
  const check = () => {
    const lines = document.querySelector('[data-testid="code-0"] .view-lines');
    if (lines && lines.textContent.trim() !== '') {
      const t1 = performance.now();
      // Long tasks are reported after they end: give the observer a moment.
      setTimeout(() => resolve([t1 - t0, Math.max(0, ...window.__long.filter(([s]) => s >= t0 && s <= t1).map(([, d]) => d))]), 50);
    } else requestAnimationFrame(check);
  };
  check();
})`;

/** Lets the held idle callbacks run and opens the log in the task right after the first of them. */
const OPEN_AT_PREWARM = `new Promise((resolve) => {
  window.__onIdle = () => {
    window.__onIdle = null;
    setTimeout(() => resolve(${OPEN_TO_EDITOR}), 0);
  };
  window.__releaseIdle();
})`;

/** Polls an expression in the page (the app's CSP forbids the string eval of waitForFunction). */
async function until(page: Page, expr: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await page.evaluate(expr))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${expr}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Rep {
  longest: number;
  /** The same window's longest main-thread task by its thread (CPU) time, from a trace: on a shared machine a task's wall time includes the time it was descheduled. */
  longestCpu: number;
  /** The prewarm step (or other work) the longest task overlapped. */
  longestIn: string;
  longSum: number;
  window: number;
  firstEditor: number;
  openDuringPrewarm: number;
  longestDuringOpen: number;
}

async function prewarmWindow(page: Page): Promise<{ longest: number; longSum: number; window: number; longestIn: string }> {
  await until(page, 'window.__ready !== null');
  await page.waitForTimeout(100);
  const [idle, ready, long, steps] = await page.evaluate<[number[], number, [number, number][], [string, number, number][]]>(
    `[window.__idle, window.__ready, window.__long, performance.getEntriesByType('measure').filter((m) => m.name.startsWith('monaco-prewarm:')).map((m) => [m.name.slice(15), m.startTime, m.duration])]`,
  );
  const start = idle[0] ?? 0;
  const inside = long.filter(([s]) => s >= start - 1 && s <= ready);
  const [ls, ld] = inside.reduce((a, t) => (t[1] > a[1] ? t : a), [0, 0]);
  // Which step the longest task overlaps (builds before the steps have none to name).
  const step = steps.find(([, s, d]) => s < ls + ld && ls < s + d);
  return {
    longest: ld,
    longSum: inside.reduce((a, [, d]) => a + d, 0),
    window: ready - start,
    longestIn: ld === 0 ? '' : (step?.[0] ?? (ls < (idle[1] ?? Infinity) ? 'first idle callback' : '?')),
  };
}

type TraceEvent = { name: string; ph: string; ts: number; dur?: number; tdur?: number; tid: number; pid: number; args?: { name?: string } };

async function startTrace(page: Page): Promise<{ stop(): Promise<TraceEvent[]> }> {
  const cdp = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (d) => events.push(...(d.value as unknown as TraceEvent[])));
  await cdp.send('Tracing.start', {
    categories: 'devtools.timeline,disabled-by-default-devtools.timeline,blink.user_timing',
    transferMode: 'ReportEvents',
  });
  return {
    stop: async () => {
      const done = new Promise<void>((r) => cdp.once('Tracing.tracingComplete', () => r()));
      await cdp.send('Tracing.end');
      await done;
      return events;
    },
  };
}

/** The longest renderer main-thread task (thread time) between the probe's first idle callback and Monaco ready. */
async function longestTaskCpu(trace: { stop(): Promise<TraceEvent[]> }): Promise<number> {
  const events = await trace.stop();
  const mark = (name: string): number | undefined => events.find((e) => e.name === name)?.ts;
  const [from, to] = [mark('probe:idle'), mark('probe:ready')];
  const mains = events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  const main = mains.find((m) => events.some((e) => e.name === 'probe:idle' && e.pid === m.pid)) ?? mains[0];
  if (from === undefined || to === undefined || !main) return NaN;
  const tasks = events.filter(
    (e) =>
      e.ph === 'X' &&
      (e.name === 'RunTask' || e.name === 'ThreadControllerImpl::RunTask') &&
      e.pid === main.pid &&
      e.tid === main.tid &&
      e.ts >= from - 1000 &&
      e.ts <= to,
  );
  return Math.max(0, ...tasks.map((e) => (e.tdur ?? e.dur ?? 0) / 1000));
}

async function profileLongest(page: Page, label: string): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  await until(page, 'window.__ready !== null');
  const { profile } = (await cdp.send('Profiler.stop')) as unknown as {
    profile: {
      nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
      samples: number[];
      timeDeltas: number[];
    };
  };
  // Inclusive time per function over the whole prewarm (the profile starts after navigation).
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const acc = new Map<string, number>();
  profile.samples.forEach((s, i) => {
    const seen = new Set<string>();
    for (let id: number | undefined = s; id !== undefined; id = parent.get(id)) {
      const f = byId.get(id)!.callFrame;
      const k = `${f.functionName || '(anon)'} ${f.url.split('/').pop()}:${f.lineNumber}`;
      if (seen.has(k)) continue;
      seen.add(k);
      acc.set(k, (acc.get(k) ?? 0) + (profile.timeDeltas[i + 1] ?? 0) / 1000);
    }
  });
  const top = [...acc].filter(([k]) => !/^\((root|program|idle)\)/.test(k)).sort((a, b) => b[1] - a[1]);
  console.log(`${label}: inclusive ms during prewarm`);
  for (const [k, v] of top.slice(0, 25)) console.log(v.toFixed(0).padStart(7), k);
}

async function oneRep(served: Served, label: string, profile: boolean): Promise<Rep> {
  const setup = `window.__logText = ${JSON.stringify(readFileSync(LOG, 'utf8'))};${PROBE}`;
  // 1. The prewarm on its own, then a log opened after it.
  const b = await launch(served.url);
  let rep: Rep;
  try {
    await b.page.addInitScript(setup);
    const trace = profile ? null : await startTrace(b.page);
    await b.page.goto(served.url);
    if (profile) await profileLongest(b.page, label);
    const w = await prewarmWindow(b.page);
    const longestCpu = trace ? await longestTaskCpu(trace) : 0;
    const [firstEditor] = await b.page.evaluate<[number, number]>(OPEN_TO_EDITOR);
    rep = { ...w, longestCpu, firstEditor, openDuringPrewarm: 0, longestDuringOpen: 0 };
  } finally {
    await b.close();
  }
  // 2. The same log opened the moment the prewarm starts: idle callbacks are held until the
  //    page is up, as if the user had been quicker than the page's first idle moment.
  const b2 = await launch(served.url);
  try {
    await b2.page.addInitScript(`window.__holdIdle = true;${setup}`);
    await b2.page.goto(served.url);
    await b2.page.getByTestId('open-file').waitFor({ state: 'attached' });
    await b2.page.waitForTimeout(300);
    [rep.openDuringPrewarm, rep.longestDuringOpen] = await b2.page.evaluate<[number, number]>(OPEN_AT_PREWARM);
    if (process.env.DEBUG_STEPS)
      console.log(
        await b2.page.evaluate(
          `JSON.stringify({ opened: Math.round(window.__opened), steps: performance.getEntriesByType('measure').map((m) => [m.name.slice(15), Math.round(m.startTime), Math.round(m.duration)]), long: window.__long.map(([s, d]) => [Math.round(s), Math.round(d)]) })`,
        ),
      );
  } finally {
    await b2.close();
  }
  return rep;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const labels = ['before', 'after'] as const;
const servers = await Promise.all(dirs.map((d) => startServe(['--static', d])));
const results = new Map<string, Rep[]>(labels.map((l) => [l, []]));
try {
  for (let r = 0; r < REPS; r++)
    for (const [i, label] of labels.entries()) {
      const rep = await oneRep(servers[i]!, label, PROFILE && r === 0);
      results.get(label)!.push(rep);
      console.log(
        label,
        r,
        JSON.stringify(Object.fromEntries(Object.entries(rep).map(([k, v]) => [k, typeof v === 'number' ? Math.round(v) : v]))),
      );
    }
} finally {
  await Promise.all(servers.map((s) => s.stop()));
}
console.log(`\nmedians of ${REPS} alternating reps (ms)`);
console.log(
  '| build | longest prewarm task (wall) | longest prewarm task (CPU) | long tasks in prewarm (sum) | prewarm window | log opened after prewarm: first editor | log opened as prewarm starts: first editor | longest task then |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const label of labels) {
  const rs = results.get(label)!;
  const m = (k: Exclude<keyof Rep, 'longestIn'>): string => median(rs.map((x) => x[k])).toFixed(0);
  console.log(
    `| ${label} | ${m('longest')} | ${m('longestCpu')} | ${m('longSum')} | ${m('window')} | ${m('firstEditor')} | ${m('openDuringPrewarm')} | ${m('longestDuringOpen')} |`,
  );
}
