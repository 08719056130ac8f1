// A queue worker: takes sessions from the queue (BullMQ), runs each as a local session would
// run, and returns its result line and its log (gzipped) in the job's return value, so the
// coordinator writes both into its own --out whether or not the machines share a disk.
// A worker that dies mid-session holds a lock that expires; BullMQ then marks the job stalled
// and another worker runs it again from the start.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { withoutUndefined } from '../../../src-shared/defined.ts';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants as zlibConstants, gzipSync } from 'node:zlib';
import { Worker, type Job } from 'bullmq';
import type { ConversationSettings, RlmConfig, ToolSpec } from '../../engine/index.ts';
import { loadToolsModule } from '../../engine/tools-module.ts';
import { OpenAiCompatibleClient } from '../../lm/openai-client.ts';
import { samplingArgs } from '../../lm/sampling.ts';
import { streamFor } from '../../lm/prompt-pack.ts';
import { parseJsonContext } from '../../sandbox/json-source.ts';
import type { SandboxValue } from '../../sandbox/types.ts';
import { notRunResult, runTaskSession } from '../task-session.ts';
import { logNameFor, type WorkUnit } from '../units.ts';
import type { EvalTask } from '../tasks/types.ts';
import { SharedEndpointBackoff, type BackoffOptions } from './endpoint-backoff.ts';
import { keys, QUEUE_NAME } from './keys.ts';
import { connectRedis, sayReachability, type RedisClient } from './redis.ts';
import { JobData, WireConfig, type JobReturnValue } from './wire.ts';

export interface QueueWorkerOptions {
  url: string;
  /** Sessions at once in this process. */
  concurrency: number;
  /** How long a job's lock lasts without renewal; a dead worker's job is taken again after about this long. */
  lockDurationMs?: number;
  backoff?: BackoffOptions;
  /** One line per session started and finished, and connection problems. */
  onLine?: (line: string) => void;
  /** Environment the API keys are read from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

export interface QueueWorker {
  /** `host:pid`, as results and eval-status name it. */
  name: string;
  backoff: SharedEndpointBackoff;
  /** Stops taking jobs and waits for the sessions in progress to finish (their results are sent). */
  close(): Promise<void>;
}

/** The key in `envVar` (or OPENAI_API_KEY); a named variable missing on this worker is an error naming it. */
function apiKey(env: NodeJS.ProcessEnv, envVar: string | null, worker: string): string {
  const key = env[envVar ?? 'OPENAI_API_KEY'];
  if (key) return key;
  if (envVar !== null) throw new Error(`worker ${worker}: the environment variable ${envVar} (the endpoint's API key) is not set`);
  return 'no-key';
}

interface Prepared {
  config: Omit<RlmConfig, 'client'> & { client: OpenAiCompatibleClient };
}

export async function startQueueWorker(o: QueueWorkerOptions): Promise<QueueWorker> {
  const name = `${hostname()}:${process.pid}`;
  const say = o.onLine ?? ((): void => undefined);
  const env = o.env ?? process.env;
  const redis: RedisClient = connectRedis(o.url, sayReachability(`worker ${name}`, o.url, say));
  await redis.ping();
  const backoff = new SharedEndpointBackoff(redis, o.backoff);
  const scratch = mkdtempSync(join(tmpdir(), 'rlm-worker-'));
  const prepared = new Map<string, Promise<Prepared>>();
  // The contexts of the last few jobs, by their Redis key (which names their content's hash): the
  // repeats of a task, often taken one after another, read its context from Redis once.
  const contexts = new Map<string, Promise<string>>();
  const contextText = (key: string, taskId: string): Promise<string> => {
    let text = contexts.get(key);
    if (text === undefined) {
      text = redis.get(key).then((t) => {
        if (t === null) throw new Error(`task ${taskId}: its context is not in Redis (${key})`);
        return t;
      });
      text.catch(() => contexts.delete(key));
      contexts.set(key, text);
      for (const old of contexts.keys()) {
        if (contexts.size <= o.concurrency + 1) break;
        contexts.delete(old);
      }
    } else {
      contexts.delete(key);
      contexts.set(key, text);
    }
    return text;
  };

  const prepare = async (evalId: string): Promise<Prepared> => {
    const text = await redis.get(keys.config(evalId));
    if (text === null) throw new Error(`the configuration of evaluation ${evalId} is not in Redis (was the queue flushed?)`);
    const w = WireConfig.parse(JSON.parse(text));
    const stream = streamFor(w.stream, w.prompts);
    const client = new OpenAiCompatibleClient({
      baseUrl: w.baseUrl,
      apiKey: apiKey(env, w.apiKeyEnv, name),
      sampling: samplingArgs(w.sampling),
      stream,
      fetch: backoff.fetchFor(w.baseUrl),
    });
    const subClient =
      w.sub === null
        ? undefined
        : new OpenAiCompatibleClient({
            baseUrl: w.sub.baseUrl,
            apiKey: apiKey(env, w.sub.apiKeyEnv, name),
            sampling: samplingArgs(w.sub.sampling),
            stream,
            fetch: backoff.fetchFor(w.sub.baseUrl),
          });
    let tools: Record<string, ToolSpec> | undefined;
    if (w.tools !== null) {
      const file = join(scratch, `tools-${evalId}.mjs`);
      writeFileSync(file, w.tools.source);
      tools = await loadToolsModule(file);
    }
    return {
      config: {
        ...withoutUndefined<ConversationSettings>(w.settings),
        model: w.model,
        client,
        ...(subClient ? { subClient } : {}),
        ...(w.systemPrompt === null ? {} : { systemPrompt: w.systemPrompt }),
        ...(w.prompts === undefined ? {} : { prompts: w.prompts }),
        ...(tools ? { tools } : {}),
        ...(w.examples === null ? {} : { examples: w.examples }),
      },
    };
  };

  const process_ = async (job: Job): Promise<JobReturnValue> => {
    const data = JobData.parse(job.data);
    const unit: WorkUnit = { task: withoutUndefined<EvalTask>(data.task), repeat: data.repeat, key: data.key };
    let p = prepared.get(data.evalId);
    if (!p) {
      p = prepare(data.evalId);
      prepared.set(data.evalId, p);
      p.catch(() => prepared.delete(data.evalId));
    }
    let config: Prepared['config'];
    try {
      ({ config } = await p);
    } catch (err) {
      // Every session of this evaluation would fail the same way here: report it as the result.
      return { result: notRunResult(unit, 'unknown', (err as Error).message), log: null, worker: name };
    }
    say(`worker ${name}: ${data.key} started`);
    const logPath = join(scratch, `${job.id ?? logNameFor(unit)}.rlm.jsonl`);
    const result = await runTaskSession({
      unit,
      loadContext: async (): Promise<SandboxValue> => parseJsonContext(await contextText(data.contextKey, data.task.id)),
      logPath,
      config,
    });
    if (result === null) throw new Error('the session was interrupted');
    let log: string | null = null;
    try {
      // The fastest level: a tenth of the default's CPU for a log about a third larger (bench/RESULTS.md).
      log = gzipSync(readFileSync(logPath), { level: zlibConstants.Z_BEST_SPEED }).toString('base64');
      rmSync(logPath);
    } catch {
      // No log was written (the context could not be loaded): the result says why.
    }
    say(`worker ${name}: ${data.key} ${result.stopReason} score ${result.score.toFixed(3)}`);
    return { result: { ...result, logFile: null }, log, worker: name };
  };

  const worker = new Worker(QUEUE_NAME, process_, {
    connection: redis,
    concurrency: o.concurrency,
    name,
    lockDuration: o.lockDurationMs ?? 30_000,
    // Half the lock: a dead worker's job is found soon after its lock expires.
    stalledInterval: Math.max(500, Math.round((o.lockDurationMs ?? 30_000) / 2)),
    // A session whose worker dies (killed, out of memory) is run once more, by whichever worker
    // is free: the death may have been the machine's, not the session's. If that run dies too,
    // the job fails with the reason instead of taking more workers down (2 runs in all, as
    // src-main/eval/README.md says; BullMQ's count is of recoveries, so 1).
    maxStalledCount: 1,
    autorun: true,
  });
  // Connection errors of BullMQ's own connections come here too, one per reconnection attempt:
  // the outage is told once by the connection above.
  worker.on('error', (err) => {
    if (redis.status === 'ready') say(`worker ${name}: ${err.message}`);
  });
  await worker.waitUntilReady();
  return {
    name,
    backoff,
    close: async () => {
      await worker.close();
      await redis.quit().catch(() => undefined);
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
