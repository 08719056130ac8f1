// `metrics.open`: policy metrics of a log, a folder of logs or an evaluation, read on the host
// (the page cannot read the host's files). Computed in a worker thread (policy-thread.ts):
// reading 1,000 logs takes seconds and its garbage collection pauses the thread it runs on,
// so the host's own event loop stays free for other clients' commands meanwhile.
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { z } from 'zod';
import { aggregatePolicy } from '../../src-shared/analysis/policy-aggregate.ts';
import type { ErrorCode, Replies } from '../../src-shared/protocol.ts';
import { readPolicySource, type PolicySource } from '../analysis/policy-sources.ts';
import { EvalDirError } from '../eval/open-dir.ts';
import { CommandError } from './command-error.ts';

// Beside this module: policy-thread.ts in the sources, policy-thread.mjs in a bundle (dist/cli, dist/electron).
const THREAD_ENTRY = resolve(import.meta.dirname, import.meta.url.endsWith('.ts') ? 'policy-thread.ts' : 'policy-thread.mjs');

/** What the thread posts back: the reply, or the refusal to pass on. */
export type ThreadOutcome = { ok: true; reply: Replies['metrics.open'] } | { ok: false; code: ErrorCode | null; message: string };

const Refusal = z.object({ ok: z.literal(false), code: z.string().nullable(), message: z.string() });

export function openMetrics(path: string, bins: number): Promise<Replies['metrics.open']> {
  return new Promise((done, fail) => {
    const thread = new Worker(THREAD_ENTRY, { workerData: { path, bins } });
    let settled = false;
    thread.once('message', (msg: ThreadOutcome) => {
      settled = true;
      void thread.terminate();
      if (msg.ok) return done(msg.reply);
      const r = Refusal.parse(msg);
      fail(r.code ? new CommandError(r.code as ErrorCode, r.message) : new Error(r.message));
    });
    thread.once('error', (err) => {
      settled = true;
      fail(err);
    });
    thread.once('exit', (code) => {
      if (!settled) fail(new Error(`computing the metrics of ${path} stopped (thread exit code ${code})`));
    });
  });
}

/** The reply to `metrics.open`, computed where it is called (the thread). */
export async function metricsReply(path: string, bins: number): Promise<Replies['metrics.open']> {
  let source: PolicySource;
  try {
    source = await readPolicySource(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new CommandError('not_found', `cannot compute metrics of ${path}: no such file or folder`);
    if (code === 'EACCES' || err instanceof EvalDirError)
      throw new CommandError('bad_request', `cannot compute metrics of ${path}: ${(err as Error).message}`);
    throw err;
  }
  const tokens = { root: 0, subcalls: 0, children: 0 };
  for (const r of source.rows) {
    const s = r.metrics.runs[0]?.tokens;
    if (!s) continue;
    tokens.root += s.root.inputTokens + s.root.outputTokens;
    tokens.subcalls += s.subcalls.inputTokens + s.subcalls.outputTokens;
    tokens.children += s.children.inputTokens + s.children.outputTokens;
  }
  return {
    metrics: {
      path: resolve(path),
      kind: source.kind,
      logs: source.logs.length,
      // The views chart the aggregate and list tasks; per-run figures stay on the host, so the
      // page parses a small reply (1,000 sessions' full metrics made a 100+ ms parse and render).
      rows: source.rows.map(({ metrics, ...r }) => ({ ...r, figures: metrics.figures })),
      tokens,
      aggregate: aggregatePolicy(source.rows, bins),
      problems: source.problems,
    },
  };
}
