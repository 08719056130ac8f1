// `metrics.open`: policy metrics of a log, a folder of logs or an evaluation, read on the host
// (the page cannot read the host's files). Computed in a worker thread (analysis-jobs.ts).
import { resolve } from 'node:path';
import { aggregatePolicy } from '../../src-shared/analysis/policy-aggregate.ts';
import type { Replies } from '../../src-shared/protocol.ts';
import { readPolicySource, type PolicySource } from '../analysis/policy-sources.ts';
import { EvalDirError } from '../eval/open-dir.ts';
import { CommandError } from './command-error.ts';

/** The reply to `metrics.open`, computed where it is called (the analysis thread). */
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
