// `rlm-studio eval-status --queue URL`: the queue's counts, the workers connected, and each
// evaluation's progress as its coordinator last published it.
import { Queue } from 'bullmq';
import type { EvalProgress } from '../../../src-shared/protocol.ts';
import { keys, QUEUE_NAME } from './keys.ts';
import { connectRedis } from './redis.ts';
import { WireConfig } from './wire.ts';

export interface QueueStatus {
  url: string;
  counts: Record<string, number>;
  workers: string[];
  evaluations: {
    evalId: string;
    dataset: string | null;
    outDir: string | null;
    model: string | null;
    coordinator: string | null;
    progress: EvalProgress | null;
  }[];
}

export async function queueStatus(url: string): Promise<QueueStatus> {
  const redis = connectRedis(url);
  // A status query should fail fast when Redis is down, not wait for it.
  const down = setTimeout(() => redis.disconnect(), 5000);
  const queue = new Queue(QUEUE_NAME, { connection: redis });
  try {
    await redis.ping();
    const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed');
    const workers = (await queue.getWorkers()).map((w) =>
      String(w['rawname'] ?? w['name'] ?? w['addr'] ?? '?').replace(/^bull:[^:]*:(w:)?/, ''),
    );
    const evaluations: QueueStatus['evaluations'] = [];
    for (const evalId of (await redis.smembers(keys.evals)).sort()) {
      const [configText, progressText] = [await redis.get(keys.config(evalId)), await redis.get(keys.progress(evalId))];
      const config = configText === null ? null : WireConfig.safeParse(JSON.parse(configText));
      const w = config?.success ? config.data : null;
      const p =
        progressText === null ? null : (JSON.parse(progressText) as EvalProgress & { dataset?: string; outDir?: string; model?: string });
      evaluations.push({
        evalId,
        dataset: w?.dataset ?? p?.dataset ?? null,
        outDir: w?.outDir ?? p?.outDir ?? null,
        model: w?.model ?? p?.model ?? null,
        coordinator: w?.coordinator ?? (p ? `${p.host}:${p.pid}` : null),
        progress: p,
      });
    }
    return { url, counts, workers, evaluations: evaluations.filter((e) => e.dataset !== null || e.progress !== null) };
  } finally {
    clearTimeout(down);
    await queue.close().catch(() => undefined);
    await redis.quit().catch(() => redis.disconnect());
  }
}
