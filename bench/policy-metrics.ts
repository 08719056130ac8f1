// Policy metrics over an evaluation folder of generated sessions (issue 13: 1,000 sessions in
// under 10 s): reading every log and folding it into metrics (`readPolicySource`, what
// `rlm-studio stats DIR` and the app's metrics view do), then the distributions, the
// correct/incorrect split, repeats and a success-set intersection. Side by side: the same
// logs read by today's streaming stats alone, so the ratio is what the metrics add.
// Standalone: `node --no-node-snapshot bench/policy-metrics.ts [--sessions N]` prints the section.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { aggregatePolicy, successIntersection } from '../src-shared/analysis/policy-aggregate.ts';
import { StatsAccumulator } from '../src-shared/trajectory/log-stats.ts';
import { readPolicySource } from '../src-main/analysis/policy-sources.ts';
import { runJob } from '../src-main/host/analysis-jobs.ts';
import { metricsReply } from '../src-main/host/policy-metrics.ts';
import { expandLogInputs } from '../src-main/export/log-inputs.ts';
import { readLogBatches } from '../src-main/logs/read-log.ts';
import { writeEvalDir, type GeneratedTask } from '../test/support/policy-sessions.ts';
import { MB, r2 } from './lib.ts';

export interface PolicyBenchResult {
  sessions: number;
  logMB: number;
  events: number;
  statsOnlyMs: number;
  readMetricsMs: number;
  aggregateMs: number;
  intersectionMs: number;
  totalMs: number;
  /** Longest the calling thread's event loop was blocked (other commands wait that long): `metrics.open`'s work run on it, and run in its worker thread. */
  stallInlineMs: number;
  stallThreadedMs: number;
  threadedMs: number;
  ratioToStatsOnly: number;
  goalMs: number;
}

/** Task i: 2 to 5 iterations of 0 to 12 calls each, 0 to 2 child runs; every third a repeat of an earlier question. */
function tasks(n: number, pad: number): GeneratedTask[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `task-${i}`,
    correct: (i * 7) % 10 < 6,
    shape: {
      query: `question ${i % 3 === 0 ? i - (i % 9) : i}`,
      calls: Array.from({ length: 2 + (i % 4) }, (_, k) => (i * 5 + k * 3) % 13),
      children: i % 3,
      pad,
    },
  }));
}

export async function policyBench(opts: { sessions: number; work: string; pad?: number }): Promise<PolicyBenchResult> {
  const dir = join(opts.work, 'policy-eval');
  writeEvalDir(dir, tasks(opts.sessions, opts.pad ?? 1500));
  const logs = join(dir, 'logs');
  const logMB = readdirSync(logs).reduce((a, f) => a + statSync(join(logs, f)).size, 0) / MB;

  let events = 0;
  let t0 = performance.now();
  for (const input of await expandLogInputs([join(dir, 'logs')])) {
    const acc = new StatsAccumulator();
    for await (const batch of readLogBatches(input.path))
      for (const item of batch)
        if (item.kind === 'event') {
          events++;
          acc.push(item.event);
        }
    acc.result();
  }
  const statsOnlyMs = performance.now() - t0;

  t0 = performance.now();
  const source = await readPolicySource(dir);
  const readMetricsMs = performance.now() - t0;
  t0 = performance.now();
  const agg = aggregatePolicy(source.rows);
  const aggregateMs = performance.now() - t0;
  if (agg.sessions !== opts.sessions || agg.byCorrectness === null) throw new Error(`the bench read ${agg.sessions} sessions`);
  t0 = performance.now();
  successIntersection(
    source.rows,
    source.rows.map((r) => ({ ...r, correct: !r.correct })),
  );
  const intersectionMs = performance.now() - t0;
  const totalMs = readMetricsMs + aggregateMs;
  const stalled = async (work: () => Promise<unknown>): Promise<number> => {
    const h = monitorEventLoopDelay({ resolution: 10 });
    h.enable();
    await work();
    h.disable();
    return h.max / 1e6;
  };
  const stallInlineMs = await stalled(() => metricsReply(dir, 20));
  t0 = performance.now();
  const stallThreadedMs = await stalled(() => runJob({ job: 'metrics', path: dir, bins: 20 }));
  const threadedMs = performance.now() - t0;
  return {
    sessions: opts.sessions,
    logMB: r2(logMB),
    events,
    statsOnlyMs: r2(statsOnlyMs),
    readMetricsMs: r2(readMetricsMs),
    aggregateMs: r2(aggregateMs),
    intersectionMs: r2(intersectionMs),
    totalMs: r2(totalMs),
    stallInlineMs: r2(stallInlineMs),
    stallThreadedMs: r2(stallThreadedMs),
    threadedMs: r2(threadedMs),
    ratioToStatsOnly: r2(totalMs / statsOnlyMs),
    goalMs: 10_000,
  };
}

export function policyMarkdown(r: PolicyBenchResult): string {
  return [
    `## Policy metrics across sessions (an evaluation folder of ${r.sessions.toLocaleString('en-US')} generated sessions; goal < 10 s)`,
    '',
    `${r.logMB} MB of native logs, ${r.events.toLocaleString('en-US')} events. "stats only" is today's streaming \`stats\` over the same files (read + StatsAccumulator); "metrics" is \`readPolicySource\` (read, run tree without texts, per-run metrics, results.jsonl), then \`aggregatePolicy\` (quartiles and histograms of every figure, correct/incorrect split, repeats). Then the host's \`metrics.open\` (read, aggregate, the reply) run on the calling thread and in its worker thread, with the longest block of the calling thread's event loop in each (monitorEventLoopDelay): how long another client's command could wait.`,
    '',
    '| sessions | logMB | statsOnlyMs | readMetricsMs | aggregateMs | intersectionMs | totalMs | ratioToStatsOnly | goalMs | metrics.open in its thread: ms | host stall, inline: ms | host stall, threaded: ms |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    `| ${r.sessions} | ${r.logMB} | ${r.statsOnlyMs} | ${r.readMetricsMs} | ${r.aggregateMs} | ${r.intersectionMs} | ${r.totalMs} | ${r.ratioToStatsOnly} | ${r.goalMs} | ${r.threadedMs} | ${r.stallInlineMs} | ${r.stallThreadedMs} |`,
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { sessions: { type: 'string', default: '1000' } } });
  const work = mkdtempSync(join(tmpdir(), 'rlm-policy-bench-'));
  try {
    process.stdout.write(policyMarkdown(await policyBench({ sessions: Number(values.sessions), work })));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
