// Worker-thread entry of `metrics.open` (see policy-metrics.ts): computes the reply off the
// host's event loop and posts it, or the refusal, back once.
import { parentPort, workerData } from 'node:worker_threads';
import { z } from 'zod';
import { CommandError } from './command-error.ts';
import { metricsReply, type ThreadOutcome } from './policy-metrics.ts';

const { path, bins } = z.object({ path: z.string(), bins: z.number().int().positive() }).parse(workerData);
let outcome: ThreadOutcome;
try {
  outcome = { ok: true, reply: await metricsReply(path, bins) };
} catch (err) {
  outcome = { ok: false, code: err instanceof CommandError ? err.code : null, message: err instanceof Error ? err.message : String(err) };
}
parentPort?.postMessage(outcome);
