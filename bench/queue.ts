// `node --no-node-snapshot bench/queue.ts [--tasks N] [--latency-ms MS] [--concurrency C]`:
// distributed evaluation throughput. N generated tasks (S-NIAH at 2^13 tokens, --max-depth 0:
// one model call per session, so the model's latency dominates and the queue's cost shows)
// against mock-llm at MS per call: in-process (`eval` without --queue, C sessions at once) as
// the baseline, alternating with one worker process in --pairs rounds (so load from other work
// falls on both), then through Redis with 2 and 4 worker processes of C sessions each.
// Prints a Markdown section for bench/RESULTS.md (figures, never asserted). Needs ioredis and
// /usr/bin/redis-server.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Queue } from 'bullmq';
import { writeDataset } from '../src-main/cli/dataset-file.ts';
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
    /** Rounds of in-process then one worker, each on N ÷ pairs tasks. */
    pairs: { type: 'string', default: '2' },
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
const PAIRS = Number(args.pairs);

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
  tasks: number;
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
  await writeDataset({ kinds: ['sniah'], sizes: [8192], seed: 1, count: N, out: ds, inlineMaxChars: 1 << 20 });
  // The paired rounds' share of the tasks: in-process and one worker alternate on it, so the
  // machine's load (other work on its cores) falls on both alike.
  const part = join(work, 'part.jsonl');
  const perRound = Math.ceil(N / PAIRS);
  await writeDataset({ kinds: ['sniah'], sizes: [8192], seed: 1, count: perRound, out: part, inlineMaxChars: 1 << 20 });
  const common = { baseUrl: mock.url, model: 'mock-root', maxDepth: 0 };
  const rows: Row[] = [];
  const workerOverheadMs: number[] = [];

  const local = async (dataset: string, outDir: string): Promise<{ s: number; cpuMs: number; correct: number }> => {
    const t0 = performance.now();
    const c0 = ownCpuMs();
    const res = await runEval({
      ...common,
      dataset,
      outDir,
      client: new OpenAiCompatibleClient({ baseUrl: mock.url, apiKey: 'x' }),
      parallel: C,
    });
    return { s: (performance.now() - t0) / 1000, cpuMs: ownCpuMs() - c0, correct: res.summary.correct };
  };
  const startWorkers = async (n: number): Promise<ChildProcess[]> => {
    const ws = Array.from({ length: n }, () => startWorker(redis.url));
    // Workers boot (Node, the modules, a Redis connection) before the clock starts.
    const probe = connectRedis(redis.url);
    const q = new Queue(QUEUE_NAME, { connection: probe });
    for (let tries = 0; (await q.getWorkers()).length < n && tries < 200; tries++) await new Promise((r) => setTimeout(r, 100));
    await q.close();
    await probe.quit();
    return ws;
  };
  const queued = async (
    ws: ChildProcess[],
    dataset: string,
    outDir: string,
  ): Promise<{ s: number; workerMs: number; coordinatorMs: number; redisMs: number; correct: number }> => {
    const t0 = performance.now();
    const c0 = ownCpuMs();
    const w0 = ws.reduce((a, w) => a + cpuMsOf(w.pid), 0);
    const r0 = cpuMsOf(redis.pid());
    const res = await runQueuedEval({
      ...common,
      dataset,
      outDir,
      url: redis.url,
      wire: { apiKeyEnv: null, sampling: {}, sub: null, tools: null },
      pollMs: 100,
      // Pickup to completion, as BullMQ recorded it, minus the session's own time.
      onCollected: (t) => {
        if (ws.length === 1 && t.processedOn !== null && t.finishedOn !== null)
          workerOverheadMs.push(t.finishedOn - t.processedOn - t.sessionMs);
      },
    });
    return {
      s: (performance.now() - t0) / 1000,
      workerMs: ws.reduce((a, w) => a + cpuMsOf(w.pid), 0) - w0,
      coordinatorMs: ownCpuMs() - c0,
      redisMs: cpuMsOf(redis.pid()) - r0,
      correct: res.summary.correct,
    };
  };

  log(`paired rounds: ${PAIRS} × (in-process, then 1 worker) on ${perRound} tasks each, ${C} at a time`);
  const one = await startWorkers(1);
  const sum = { localS: 0, localCpuMs: 0, localCorrect: 0, s: 0, worker: 0, coordinator: 0, redis: 0, correct: 0 };
  for (let round = 0; round < PAIRS; round++) {
    const l = await local(part, join(work, `local-${round}`));
    const q = await queued(one, part, join(work, `queue-1-${round}`));
    sum.localS += l.s;
    sum.localCpuMs += l.cpuMs;
    sum.localCorrect += l.correct;
    sum.s += q.s;
    sum.worker += q.workerMs;
    sum.coordinator += q.coordinatorMs;
    sum.redis += q.redisMs;
    sum.correct += q.correct;
  }
  await Promise.all(one.map(stop));
  const paired = perRound * PAIRS;
  const localS = sum.localS;
  const localCpuMs = sum.localCpuMs;
  const cpu = { worker: sum.worker, coordinator: sum.coordinator, redis: sum.redis };
  const oneWorkerPerS = paired / sum.s;
  rows.push(
    {
      mode: 'in-process',
      workers: 1,
      tasks: paired,
      wallS: r2(localS),
      perS: r2(paired / localS),
      speedup: null,
      correct: sum.localCorrect,
      cpuMs: r2(localCpuMs / paired),
    },
    {
      mode: 'queue',
      workers: 1,
      tasks: paired,
      wallS: r2(sum.s),
      perS: r2(oneWorkerPerS),
      speedup: 1,
      correct: sum.correct,
      cpuMs: r2((cpu.worker + cpu.coordinator + cpu.redis) / paired),
    },
  );
  for (const n of WORKER_COUNTS.filter((k) => k !== 1)) {
    log(`queue: ${n} worker(s) × ${C} on ${N} tasks`);
    const ws = await startWorkers(n);
    const q = await queued(ws, ds, join(work, `queue-${n}`));
    rows.push({
      mode: 'queue',
      workers: n,
      tasks: N,
      wallS: r2(q.s),
      perS: r2(N / q.s),
      speedup: r2(N / q.s / oneWorkerPerS),
      correct: q.correct,
      cpuMs: r2((q.workerMs + q.coordinatorMs + q.redisMs) / N),
    });
    await Promise.all(ws.map(stop));
  }

  const floorS = (N * LATENCY) / 1000 / C;
  const overheadPerTaskMs = ((sum.s - localS) * 1000 * C) / paired;
  workerOverheadMs.sort((a, b) => a - b);
  const med = workerOverheadMs[Math.floor(workerOverheadMs.length / 2)] ?? Number.NaN;
  const queueCpuMs = (cpu.worker + cpu.coordinator + cpu.redis - localCpuMs) / paired;
  const two = rows.find((r) => r.mode === 'queue' && r.workers === 2);
  const loadEnd = loadavg()[0]!;
  const out = [
    '## Distributed evaluation (queue; `bench/queue.ts`, run on its own)',
    '',
    `\`node --no-node-snapshot bench/queue.ts --tasks ${N} --latency-ms ${LATENCY} --concurrency ${C} --pairs ${PAIRS}\`: generated S-NIAH tasks (2^13 tokens, \`--max-depth 0\`: one model call per session), mock-llm at ${LATENCY} ms per call, Redis on loopback, ${C} sessions at once per process; worker processes are \`rlm-studio worker\` started before the clock. In-process and one worker alternate in ${PAIRS} rounds of ${perRound} tasks (their rows add the rounds up), so changes in the machine's load fall on both alike; 2 and 4 workers run all ${N} tasks, compared with one worker in sessions per second. Machine: ${cpus().length} cores shared with other work (1-minute load average ${loadStart.toFixed(1)} at the start, ${loadEnd.toFixed(1)} at the end).`,
    '',
    '| mode | processes | tasks | wall (s) | sessions/s | vs 1 worker | CPU per session, all processes (ms) | correct |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.mode} | ${r.workers} | ${r.tasks} | ${r.wallS} | ${r.perS} | ${r.speedup === null ? '–' : `${r.speedup} ×`} | ${r.cpuMs} | ${r.correct}/${r.tasks} |`,
    ),
    '',
    `Model floor for one process: ${r2(floorS)} s per ${N} tasks (${LATENCY} ms ÷ ${C} each). Queue overhead per task, one worker against in-process at the same concurrency: ${r2(overheadPerTaskMs)} ms of session-slot time per task ((queue wall − in-process wall) × ${C} ÷ ${paired}); inside the worker, pickup to completion minus the session's own time: median ${r3(med)} ms over ${workerOverheadMs.length} jobs.`,
    '',
    `CPU per session (steadier than wall time, though a loaded machine inflates it too): in-process ${r2(localCpuMs / paired)} ms; through the queue with one worker ${r2(cpu.worker / paired)} ms in the worker + ${r2(cpu.coordinator / paired)} ms in the coordinator + ${r2(cpu.redis / paired)} ms in redis-server = ${r2((cpu.worker + cpu.coordinator + cpu.redis) / paired)} ms, so the queue costs ${r2(queueCpuMs)} ms of CPU per session.`,
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
