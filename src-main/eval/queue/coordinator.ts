// The coordinator of a queued evaluation: enqueues every session of the dataset with a job id
// derived from the task and the configuration (enqueueing again adds nothing), then collects
// finished jobs into --out: the log first (written beside, then renamed), then the result line,
// then the job is removed from Redis. results.jsonl thus holds each session exactly once: a
// coordinator killed between two of these steps finds the line (and skips) or not (and writes
// it) when started again with the same arguments. Redis keeps unfinished and uncollected jobs
// (with persistence on, across a restart); the coordinator retries while it is unreachable.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { withoutUndefined } from '../../../src-shared/defined.ts';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync } from 'node:zlib';
import { Queue, type Job } from 'bullmq';
import type { EvalProgress } from '../../../src-shared/protocol.ts';
import { loadTaskContext } from '../dataset.ts';
import { jsonTextOf } from '../../sandbox/json-source.ts';
import { configKey, type EvalDefinition } from '../eval-config.ts';
import { ProgressTracker } from '../progress.ts';
import type { TaskResult } from '../results.ts';
import {
  firstOfEachError,
  heartbeat,
  logPathFor,
  planEval,
  resultLine,
  writeSummary,
  type EvalPlan,
  type EvalRunResult,
} from '../runner.ts';
import { notRunResult } from '../task-session.ts';
import { logNameFor, type WorkUnit } from '../units.ts';
import type { EvalTask } from '../tasks/types.ts';
import { keys, QUEUE_NAME, sha } from './keys.ts';
import { connectRedis, sayReachability, type RedisClient } from './redis.ts';
import { JobData, JobReturn, type WireConfig } from './wire.ts';

export interface QueuedEvalOptions extends EvalDefinition {
  url: string;
  /** Where workers find the endpoints' keys and what they send (the keys themselves never enter Redis). */
  wire: Pick<WireConfig, 'apiKeyEnv' | 'sampling' | 'sub' | 'stream'> & { tools: WireConfig['tools'] };
  /** How often finished jobs are collected. */
  pollMs?: number;
  /** Job attempts when a worker's processing throws (not a session that ended in an error: that is a result). */
  attempts?: number;
  /** Each collected job's times as BullMQ recorded them (the benchmark's queue overhead). */
  onCollected?: (t: { processedOn: number | null; finishedOn: number | null; sessionMs: number }) => void;
}

export interface QueuedEvalResult extends EvalRunResult {
  evalId: string;
  /** Jobs this invocation added (0 when every pending session was already queued). */
  enqueued: number;
}

/** The evaluation's id: its configuration and its --out, so two evaluations never share jobs. */
function evaluationId(o: EvalDefinition, plan: EvalPlan): string {
  return sha(JSON.stringify({ config: configKey(o, plan.dataset), outDir: plan.outDir })).slice(0, 16);
}

/** A session's job id: the evaluation, the task (its whole line, context included) and the repeat. */
function jobIdFor(evalId: string, unit: WorkUnit, contextHash: string): string {
  const { context: _c, contextFile: _f, ...line } = unit.task;
  return `${evalId}-${sha(JSON.stringify({ line, contextHash })).slice(0, 16)}-r${unit.repeat}`;
}

const BATCH = 200;
/** Finished jobs read per poll: each carries its log, and Redis buffers a whole reply for a slow reader. */
const COLLECT_BATCH = 50;
/** How often the running count and eval-status's progress are refreshed while collecting. */
const STATUS_EVERY_MS = 1000;

export async function runQueuedEval(o: QueuedEvalOptions): Promise<QueuedEvalResult> {
  const plan = await planEval(o);
  const say = o.onProgress ?? ((): void => undefined);
  const redis: RedisClient = connectRedis(o.url, sayReachability('eval', o.url, say));
  const queue = new Queue(QUEUE_NAME, { connection: redis });
  // The connection's outage is told once (above); without a listener BullMQ printed every failed
  // reconnection as an 8-line error dump.
  queue.on('error', () => undefined);
  const evalId = evaluationId(o, plan);
  const tracker = new ProgressTracker(plan.outDir, 'queue', plan.units.length, plan.kept);
  tracker.write('running', true);
  const stopBeat = heartbeat(tracker);
  try {
    const wire: WireConfig = {
      model: o.model,
      baseUrl: o.baseUrl,
      ...o.wire,
      settings: {
        ...(o.subModel !== undefined ? { subModel: o.subModel } : {}),
        ...(o.maxDepth !== undefined ? { maxDepth: o.maxDepth } : {}),
        ...(o.maxIterations !== undefined ? { maxIterations: o.maxIterations } : {}),
        ...(o.maxBudgetUsd !== undefined ? { maxBudgetUsd: o.maxBudgetUsd } : {}),
        ...(o.maxTimeoutMs !== undefined ? { maxTimeoutMs: o.maxTimeoutMs } : {}),
        ...(o.maxTokens !== undefined ? { maxTokens: o.maxTokens } : {}),
        ...(o.maxErrors !== undefined ? { maxErrors: o.maxErrors } : {}),
        ...(o.maxErrorsMode !== undefined ? { maxErrorsMode: o.maxErrorsMode } : {}),
        ...(o.maxConcurrency !== undefined ? { maxConcurrency: o.maxConcurrency } : {}),
        ...(o.maxConcurrencyLlm !== undefined ? { maxConcurrencyLlm: o.maxConcurrencyLlm } : {}),
        ...(o.maxConcurrencyRlm !== undefined ? { maxConcurrencyRlm: o.maxConcurrencyRlm } : {}),
        ...(o.childLlmModel !== undefined ? { childLlmModel: o.childLlmModel } : {}),
        ...(o.finalPatterns !== undefined ? { finalPatterns: o.finalPatterns } : {}),
        ...(o.repl !== undefined ? { repl: o.repl } : {}),
        ...(o.contextWindow !== undefined ? { contextWindow: o.contextWindow } : {}),
        ...(o.cpython !== undefined ? { cpython: o.cpython } : {}),
      },
      systemPrompt: o.systemPrompt ?? null,
      ...(o.prompts !== undefined ? { prompts: o.prompts } : {}),
      examples: o.examples ?? null,
      dataset: plan.dataset.path,
      outDir: plan.outDir,
      coordinator: `${hostname()}:${process.pid}`,
      sessions: plan.units.length,
      createdAt: new Date().toISOString(),
    };
    await redis.set(keys.config(evalId), JSON.stringify(wire));
    await redis.sadd(keys.evals, evalId);
    const enqueued = await enqueue(queue, redis, evalId, plan, o.attempts ?? 3);
    say(
      `eval: ${plan.units.length} session(s) of ${plan.dataset.path} on ${o.url.replace(/\/\/[^@/]*@/, '//…@')} (evaluation ${evalId}); ${plan.kept.length} already in results.jsonl${plan.retrying.size > 0 ? `, retrying ${plan.retrying.size} that ended in an error` : ''}; ${enqueued} queued now, ${plan.pending.length - enqueued} were queued already`,
    );
    const ran = await collect(queue, redis, evalId, plan, tracker, o);
    const interrupted = o.signal?.aborted ?? false;
    stopBeat();
    tracker.write(interrupted ? 'interrupted' : 'finished');
    await publish(redis, evalId, plan, o, tracker.snapshot(interrupted ? 'interrupted' : 'finished'));
    if (!interrupted) await forget(redis, evalId);
    const summary = writeSummary(plan, o);
    say(
      `eval: ${summary.finished}/${summary.sessions} finished, accuracy ${Number.isFinite(summary.accuracy) ? summary.accuracy.toFixed(3) : '–'}, ${summary.correct} correct${interrupted ? ' (stopped following: the workers go on; run the same command again to collect and resume)' : ''}; ${join(plan.outDir, 'summary.md')}`,
    );
    return { summary, ran, skipped: plan.kept.length, interrupted, outDir: plan.outDir, evalId, enqueued };
  } finally {
    stopBeat();
    await queue.close().catch(() => undefined);
    await redis.quit().catch(() => redis.disconnect());
  }
}

/** Adds a job per pending session whose id is not in the queue yet; returns how many were added. */
async function enqueue(queue: Queue, redis: RedisClient, evalId: string, plan: EvalPlan, attempts: number): Promise<number> {
  let added = 0;
  const contextKeys = new Map<string, string>();
  for (let i = 0; i < plan.pending.length; i += BATCH) {
    const batch = plan.pending.slice(i, i + BATCH);
    const jobs: { name: string; data: JobData; opts: { jobId: string } }[] = [];
    // The batch's new contexts and then an EXISTS per job id, in one round trip: contexts are
    // stored before any job naming them is added; jobs already queued are not read back.
    const pipeline = redis.pipeline();
    let contextsSet = 0;
    for (const unit of batch) {
      let contextKey = contextKeys.get(unit.task.id);
      if (contextKey === undefined) {
        // Loaded here, on the coordinator: the workers need no access to the dataset's files.
        // A JSON file's own text, so that a Python worker keeps the numbers JavaScript's would lose.
        const text = jsonTextOf(await loadTaskContext(unit.task, plan.dataset.dir, { flat: true }));
        contextKey = keys.context(evalId, sha(text));
        pipeline.set(contextKey, text, 'NX');
        contextsSet++;
        contextKeys.set(unit.task.id, contextKey);
      }
      const { context: _c, contextFile: _f, ...task } = unit.task;
      jobs.push({
        name: 'session',
        data: { evalId, key: unit.key, repeat: unit.repeat, task, contextKey },
        opts: { jobId: jobIdFor(evalId, unit, contextKey) },
      });
    }
    for (const j of jobs) pipeline.exists(queue.toKey(j.opts.jobId));
    const replies = (await pipeline.exec()) ?? [];
    const failed = replies.find(([err]) => err !== null);
    if (failed) throw failed[0]!;
    const fresh = jobs.filter((_, k) => replies[contextsSet + k]?.[1] !== 1);
    // BullMQ ignores an add whose job id exists, so a concurrent enqueue cannot duplicate either.
    await queue.addBulk(
      fresh.map((j) => ({
        name: j.name,
        data: j.data,
        opts: {
          jobId: j.opts.jobId,
          attempts,
          backoff: { type: 'exponential', delay: 1000 },
          removeOnComplete: false,
          removeOnFail: false,
        },
      })),
    );
    added += fresh.length;
  }
  return added;
}

/** Follows the queue until every session has its line (or the signal): collects finished and failed jobs. */
async function collect(
  queue: Queue,
  redis: RedisClient,
  evalId: string,
  plan: EvalPlan,
  tracker: ProgressTracker,
  o: QueuedEvalOptions,
): Promise<number> {
  const say = o.onProgress ?? ((): void => undefined);
  const waiting = new Map(plan.pending.map((u) => [u.key, u]));
  const total = plan.units.length;
  let finished = plan.kept.length;
  let ran = 0;
  let failing = false;
  const errorFirstSeen = firstOfEachError();
  const keep = (job: Job, result: TaskResult, logGz: string | null): void => {
    const unit = waiting.get(result.repeat ? `${result.id}#${result.repeat}` : result.id);
    if (unit === undefined) return;
    let logFile: string | null = null;
    if (logGz !== null) {
      logFile = logPathFor(plan.logsDir, logNameFor(unit), plan.retrying.has(unit.key) ? 'retried' : 'interrupted');
      const tmp = join(dirname(logFile), `.${job.id ?? 'job'}.tmp`);
      writeFileSync(tmp, gunzipSync(Buffer.from(logGz, 'base64')));
      renameSync(tmp, logFile);
    }
    const line: TaskResult = { ...result, logFile };
    plan.writer.append(line);
    waiting.delete(unit.key);
    finished++;
    ran++;
    tracker.finished(line);
    say(resultLine(line, finished, total, tracker.snapshot('running').running));
    const why = errorFirstSeen(line);
    if (why !== null) say(why);
  };
  mkdirSync(plan.logsDir, { recursive: true });
  let lastStatusAt = Number.NEGATIVE_INFINITY;
  while (waiting.size > 0 && !o.signal?.aborted) {
    let more = false;
    try {
      const page = await queue.getJobs(['completed'], 0, COLLECT_BATCH - 1, true);
      more = page.length === COLLECT_BATCH;
      const done = page.filter((j) => isOurs(j, evalId));
      for (const job of done) {
        const rv = JobReturn.safeParse(job.returnvalue);
        const data = JobData.safeParse(job.data);
        if (!data.success || !waiting.has(data.data.key)) continue;
        if (rv.success) {
          keep(job, { ...rv.data.result, ...(data.data.repeat === 0 ? {} : { repeat: data.data.repeat }) }, rv.data.log);
          o.onCollected?.({
            processedOn: job.processedOn ?? null,
            finishedOn: job.finishedOn ?? null,
            sessionMs: rv.data.result.durationMs,
          });
        } else keep(job, notRunResult(unitOf(data.data), o.model, `the worker returned no readable result: ${rv.error.message}`), null);
      }
      // Removed only once their lines are written (a coordinator killed before this finds the lines
      // when it starts again and just removes the jobs); all at once, so their commands share round trips.
      await Promise.all(done.map((job) => job.remove()));
      // Failed jobs are rare: their ids first (no job bodies), the jobs only when there are some.
      if ((await queue.getRanges(['failed'], 0, 0)).length > 0) {
        const failed = (await queue.getJobs(['failed'], 0, COLLECT_BATCH - 1, true)).filter((j) => isOurs(j, evalId));
        for (const job of failed) {
          const data = JobData.safeParse(job.data);
          if (data.success && waiting.has(data.data.key)) keep(job, notRunResult(unitOf(data.data), o.model, failedOnWorkers(job)), null);
        }
        await Promise.all(failed.map((job) => job.remove()));
      }
      // The running count and the published progress are for people: refreshed about once a second,
      // from the active jobs' ids alone, not on every poll.
      const now = performance.now();
      if (now - lastStatusAt >= STATUS_EVERY_MS || waiting.size === 0) {
        lastStatusAt = now;
        const active = (await queue.getRanges(['active'], 0, -1)).filter((id) => id.startsWith(`${evalId}-`)).length;
        tracker.setRunning(active);
        o.onBar?.(tracker.line());
        await publish(redis, evalId, plan, o, tracker.snapshot('running'));
      }
      failing = false;
    } catch (err) {
      // While Redis is down the connection has said so; anything else is told once until a poll succeeds.
      if (!failing && redis.status === 'ready') say(`eval: cannot read the queue (${(err as Error).message}); retrying`);
      failing = true;
    }
    if (waiting.size > 0 && !more) await sleep(o.pollMs ?? 200, undefined, o.signal ? { signal: o.signal } : {}).catch(() => undefined);
  }
  return ran;
}

/** The progress eval-status shows (kept an hour after the last update). */
async function publish(redis: RedisClient, evalId: string, plan: EvalPlan, o: EvalDefinition, p: EvalProgress): Promise<void> {
  await redis.set(
    keys.progress(evalId),
    JSON.stringify({ ...p, dataset: plan.dataset.path, outDir: plan.outDir, model: o.model }),
    'EX',
    3600,
  );
}

/**
 * Why a job failed on the workers, with how many times it was started: a worker that died
 * during the session (killed, out of memory) leaves the job stalled, which BullMQ counts apart
 * from a failed attempt (`attemptsMade` said "1 attempt" after two runs).
 */
function failedOnWorkers(job: Job): string {
  // Each stall is a run whose worker died (BullMQ counts it when it finds the job's lock expired).
  if (/stalled more than allowable limit/.test(job.failedReason))
    return `its worker stopped (killed or crashed) during each of its ${job.stalledCounter} run(s); not run again, so it takes no more workers with it`;
  return `failed on the workers after ${Math.max(job.attemptsMade, 1)} attempt(s): ${job.failedReason}`;
}

const isOurs = (job: Job, evalId: string): boolean => typeof job.id === 'string' && job.id.startsWith(`${evalId}-`);

function unitOf(d: JobData): WorkUnit {
  return { task: withoutUndefined<EvalTask>(d.task), repeat: d.repeat, key: d.key };
}

/** A finished evaluation's keys: its configuration and the contexts of its tasks (found by name, not by reloading every context). */
async function forget(redis: RedisClient, evalId: string): Promise<void> {
  const contexts: string[] = [];
  for await (const found of redis.scanStream({ match: keys.context(evalId, '*'), count: 1000 })) contexts.push(...(found as string[]));
  await redis.del(keys.config(evalId), ...contexts);
}
