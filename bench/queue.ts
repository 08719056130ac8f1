// `node --no-node-snapshot bench/queue.ts [--tasks N] [--latency-ms MS] [--concurrency C]`:
// distributed evaluation throughput. N generated tasks (S-NIAH at 2^13 tokens, --max-depth 0:
// one model call per session, so the model's latency dominates and the queue's cost shows)
// against mock-llm at MS per call: in-process (`eval` without --queue, C sessions at once) as
// the baseline, then through Redis with 1, 2 and 4 worker processes of C sessions each.
// Prints a Markdown section for bench/RESULTS.md (figures, never asserted). Needs ioredis and
// /usr/bin/redis-server.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Queue, type ConnectionOptions } from 'bullmq';
import { generateDataset } from '../src-main/eval/dataset.ts';
import { runQueuedEval } from '../src-main/eval/queue/coordinator.ts';
import { QUEUE_NAME } from '../src-main/eval/queue/keys.ts';
import { connectRedis } from '../src-main/eval/queue/redis.ts';
import { runEval } from '../src-main/eval/runner.ts';
import { OpenAiCompatibleClient } from '../src-main/lm/openai-client.ts';
import { startRedis } from '../test/integration/support/redis.ts';
import { log, r2, r3, root, startMock } from './lib.ts';
import { upsertSection } from './sections.ts';

const { values: args } = parseArgs({
  options: {
    tasks: { type: 'string', default: '1000' },
    'latency-ms': { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '8' },
    workers: { type: 'string', default: '1,2,4' },
    /** Also put the section into bench/RESULTS.md (replacing the one there), where `npm run bench` keeps it. */
    write: { type: 'boolean', default: false },
    /** A folder for V8 CPU profiles of the worker processes (the coordinator: run this with --cpu-prof). */
    'worker-profile': { type: 'string' },
  },
});
const N = Number(args.tasks);
const LATENCY = Number(args['latency-ms']);
const C = Number(args.concurrency);
const WORKER_COUNTS = args.workers.split(',').map(Number);

function startWorker(url: string): ChildProcess {
  return spawn(join(root, 'bin/rlm-studio'), ['worker', '--queue', url, '--concurrency', String(C)], {
    stdio: ['ignore', 'ignore', 'ignore'],
    env: args['worker-profile'] ? { ...process.env, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${args['worker-profile']}` } : process.env,
  });
}

/** CPU time (user + system) a process has used so far, from /proc (clock ticks of 10 ms). */
function cpuMsOf(pid: number | null | undefined): number {
  if (pid === null || pid === undefined) return Number.NaN;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
const ownCpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const stop = (w: ChildProcess): Promise<void> =>
  new Promise((res) => {
    if (w.exitCode !== null) return res();
    w.once('exit', () => res());
    w.kill('SIGTERM');
  });

interface Row {
  mode: string;
  workers: number;
  wallS: number;
  perS: number;
  speedup: number | null;
  correct: number;
  /** CPU per session of every process taking part (workers, coordinator, redis-server). */
  cpuMs: number;
}

const loadStart = loadavg()[0]!;
const work = mkdtempSync(join(tmpdir(), 'rlm-bench-queue-'));
const redis = await startRedis();
const mock = await startMock(['--latency-ms', String(LATENCY)]);
try {
  const ds = join(work, 'ds.jsonl');
  generateDataset({ kinds: ['sniah'], sizes: [8192], seed: 1, count: N, out: ds, inlineMaxChars: 1 << 20 });
  const common = { dataset: ds, baseUrl: mock.url, model: 'mock-root', maxDepth: 0 };
  const rows: Row[] = [];

  log(`local: ${N} tasks, ${C} at a time`);
  let t0 = performance.now();
  let c0 = ownCpuMs();
  const local = await runEval({
    ...common,
    outDir: join(work, 'local'),
    client: new OpenAiCompatibleClient({ baseUrl: mock.url, apiKey: 'x' }),
    parallel: C,
  });
  const localS = (performance.now() - t0) / 1000;
  const localCpuMs = ownCpuMs() - c0;
  const cpu = { worker: Number.NaN, coordinator: Number.NaN, redis: Number.NaN };
  rows.push({
    mode: 'in-process',
    workers: 1,
    wallS: r2(localS),
    perS: r2(N / localS),
    speedup: null,
    correct: local.summary.correct,
    cpuMs: r2(localCpuMs / N),
  });

  const workerOverheadMs: number[] = [];
  let oneWorkerS = Number.NaN;
  for (const n of WORKER_COUNTS) {
    log(`queue: ${n} worker(s) × ${C}`);
    const ws = Array.from({ length: n }, () => startWorker(redis.url));
    // Workers boot (Node, the modules, a Redis connection) before the clock starts.
    const probe = connectRedis(redis.url);
    const q = new Queue(QUEUE_NAME, { connection: probe as unknown as ConnectionOptions });
    for (let tries = 0; (await q.getWorkers()).length < n && tries < 200; tries++) await new Promise((r) => setTimeout(r, 100));
    t0 = performance.now();
    c0 = ownCpuMs();
    const w0 = cpuMsOf(ws[0]!.pid);
    const all0 = ws.reduce((a, w) => a + cpuMsOf(w.pid), 0);
    const r0 = cpuMsOf(redis.pid());
    const res = await runQueuedEval({
      ...common,
      outDir: join(work, `queue-${n}`),
      url: redis.url,
      wire: { apiKeyEnv: null, sampling: {}, sub: null, tools: null },
      pollMs: 100,
      // Pickup to completion, as BullMQ recorded it, minus the session's own time.
      onCollected: (t) => {
        if (n === 1 && t.processedOn !== null && t.finishedOn !== null) workerOverheadMs.push(t.finishedOn - t.processedOn - t.sessionMs);
      },
    });
    const s = (performance.now() - t0) / 1000;
    const workersCpuMs = ws.reduce((a, w) => a + cpuMsOf(w.pid), 0) - all0;
    const rowCpuMs = workersCpuMs + ownCpuMs() - c0 + cpuMsOf(redis.pid()) - r0;
    if (n === 1) Object.assign(cpu, { worker: cpuMsOf(ws[0]!.pid) - w0, coordinator: ownCpuMs() - c0, redis: cpuMsOf(redis.pid()) - r0 });
    if (n === 1) oneWorkerS = s;
    rows.push({
      mode: 'queue',
      workers: n,
      wallS: r2(s),
      perS: r2(N / s),
      speedup: n === 1 ? 1 : r2(oneWorkerS / s),
      correct: res.summary.correct,
      cpuMs: r2(rowCpuMs / N),
    });
    await q.close();
    await probe.quit();
    await Promise.all(ws.map(stop));
  }

  const floorS = (N * LATENCY) / 1000 / C;
  const q1 = rows.find((r) => r.mode === 'queue' && r.workers === 1)!;
  const overheadPerTaskMs = ((q1.wallS - localS) * 1000 * C) / N;
  workerOverheadMs.sort((a, b) => a - b);
  const med = workerOverheadMs[Math.floor(workerOverheadMs.length / 2)] ?? Number.NaN;
  const queueCpuMs = (cpu.worker + cpu.coordinator + cpu.redis - localCpuMs) / N;
  const two = rows.find((r) => r.mode === 'queue' && r.workers === 2);
  const loadEnd = loadavg()[0]!;
  const out = [
    '## Distributed evaluation (queue; `bench/queue.ts`, run on its own)',
    '',
    `\`node --no-node-snapshot bench/queue.ts --tasks ${N} --latency-ms ${LATENCY} --concurrency ${C}\`: ${N} generated S-NIAH tasks (2^13 tokens, \`--max-depth 0\`: one model call per session), mock-llm at ${LATENCY} ms per call, Redis on loopback, ${C} sessions at once per process; worker processes are \`rlm-studio worker\` started before the clock. Machine: ${cpus().length} cores shared with other work (1-minute load average ${loadStart.toFixed(1)} at the start, ${loadEnd.toFixed(1)} at the end).`,
    '',
    '| mode | processes | wall (s) | sessions/s | vs 1 worker | CPU per session, all processes (ms) | correct |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.mode} | ${r.workers} | ${r.wallS} | ${r.perS} | ${r.speedup === null ? '–' : `${r.speedup} ×`} | ${r.cpuMs} | ${r.correct}/${N} |`,
    ),
    '',
    `Model floor for one process: ${r2(floorS)} s (${N} × ${LATENCY} ms ÷ ${C}). Queue overhead per task, one worker against in-process at the same concurrency: ${r2(overheadPerTaskMs)} ms of session-slot time per task ((queue wall − in-process wall) × ${C} ÷ ${N}); inside the worker, pickup to completion minus the session's own time: median ${r3(med)} ms over ${workerOverheadMs.length} jobs.`,
    '',
    `CPU per session (load-independent; the machine's load stretches every wall figure above): in-process ${r2(localCpuMs / N)} ms; through the queue with one worker ${r2(cpu.worker / N)} ms in the worker + ${r2(cpu.coordinator / N)} ms in the coordinator + ${r2(cpu.redis / N)} ms in redis-server = ${r2((cpu.worker + cpu.coordinator + cpu.redis) / N)} ms, so the queue costs ${r2(queueCpuMs)} ms of CPU per session.`,
    '',
    `Goals (issue 15): queue overhead under 5 ms per task: ${queueCpuMs < 5 ? 'met' : 'not met'} in CPU (${r2(queueCpuMs)} ms); 2 workers ≥ 1.8 × one: ${two === undefined || two.speedup === null ? 'not measured' : `${two.speedup >= 1.8 ? 'met' : 'not met'} (${two.speedup} ×)`}. "correct" is 0 because mock-llm's eval policies play the REPL strategy and do not solve a depth-0 direct call: this section measures throughput and cost only.`,
    '',
  ].join('\n');
  process.stdout.write(`${out}\n`);
  if (args.write) {
    const results = join(root, 'bench/RESULTS.md');
    writeFileSync(results, upsertSection(readFileSync(results, 'utf8'), 'queue', out));
    log(`wrote the queue section into ${results}`);
  }
} finally {
  await mock.close();
  await redis.stop();
  rmSync(work, { recursive: true, force: true });
}
