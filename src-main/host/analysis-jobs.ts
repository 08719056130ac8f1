// The analyses that read many logs (policy metrics of a folder or an evaluation, an
// evaluation's context coverage) run in a worker thread (analysis-thread.ts): reading 1,000
// logs takes seconds, its garbage collection pauses the thread it runs on, and mapping a
// 1 MB context takes ~0.4 s, so the host's own event loop stays free for other clients'
// commands meanwhile.
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import type { ErrorCode, Replies } from '../../src-shared/protocol.ts';
import { evaluationCoverage } from '../analysis/log-coverage.ts';
import { EvalDirError } from '../eval/open-dir.ts';
import { CommandError } from './command-error.ts';
import { metricsReply } from './policy-metrics.ts';

export const AnalysisJob = z.discriminatedUnion('job', [
  z.object({ job: z.literal('metrics'), path: z.string(), bins: z.number().int().positive() }),
  z.object({ job: z.literal('coverage'), path: z.string() }),
]);
export type AnalysisJob = z.infer<typeof AnalysisJob>;

interface JobReplies {
  metrics: Replies['metrics.open'];
  coverage: Replies['eval.coverage'];
}

/** What the thread posts back: the reply, or the refusal to pass on. */
export type JobOutcome = { ok: true; reply: JobReplies[AnalysisJob['job']] } | { ok: false; code: ErrorCode | null; message: string };

const Refusal = z.object({ ok: z.literal(false), code: z.string().nullable(), message: z.string() });

// Beside this module: analysis-thread.ts in the sources, analysis-thread.mjs in a bundle (dist/cli, dist/electron).
const THREAD_ENTRY = resolve(import.meta.dirname, import.meta.url.endsWith('.ts') ? 'analysis-thread.ts' : 'analysis-thread.mjs');

/** Runs a job in a thread of its own. */
export function runJob<J extends AnalysisJob>(job: J): Promise<JobReplies[J['job']]> {
  return new Promise((done, fail) => {
    const thread = new Worker(THREAD_ENTRY, { workerData: job });
    let settled = false;
    thread.once('message', (msg: JobOutcome) => {
      settled = true;
      void thread.terminate();
      if (msg.ok) return done(msg.reply as JobReplies[J['job']]);
      const r = Refusal.parse(msg);
      fail(r.code ? new CommandError(r.code as ErrorCode, r.message) : new Error(r.message));
    });
    thread.once('error', (err) => {
      settled = true;
      fail(err);
    });
    thread.once('exit', (code) => {
      if (!settled) fail(new Error(`the ${job.job} of ${job.path} stopped (thread exit code ${code})`));
    });
  });
}

/** The reply to a job, computed where it is called (the thread). */
export async function jobReply(job: AnalysisJob): Promise<JobReplies[AnalysisJob['job']]> {
  if (job.job === 'metrics') return metricsReply(job.path, job.bins);
  try {
    return { coverage: await evaluationCoverage(job.path) };
  } catch (err) {
    if (err instanceof EvalDirError) throw new CommandError(err.code, err.message);
    throw err;
  }
}
