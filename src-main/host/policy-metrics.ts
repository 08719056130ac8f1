// `metrics.open`: policy metrics of a log, a folder of logs or an evaluation, read on the host
// (the page cannot read the host's files).
import { resolve } from 'node:path';
import { aggregatePolicy } from '../../src-shared/analysis/policy-aggregate.ts';
import type { Replies } from '../../src-shared/protocol.ts';
import { readPolicySource, type PolicySource } from '../analysis/policy-sources.ts';
import { EvalDirError } from '../eval/open-dir.ts';
import { CommandError } from './command-error.ts';

export async function openMetrics(path: string, bins: number): Promise<Replies['metrics.open']> {
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
  return {
    metrics: {
      path: resolve(path),
      kind: source.kind,
      logs: source.logs.length,
      // The views read each session's figures and its root run; the other runs stay on the host (a smaller reply).
      rows: source.rows.map((r) => ({ ...r, metrics: { ...r.metrics, runs: r.metrics.runs.slice(0, 1) } })),
      aggregate: aggregatePolicy(source.rows, bins),
      problems: source.problems,
    },
  };
}
