// `rlm-studio query 'EXPR' LOG|DIR… [--json]`: a JSONata expression over each session's
// document (runs with their parent, children, iterations, sub-calls and labels; see
// docs/queries.md), listing what matched: file, target id, and what it is.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { ReadProblem } from '../../../src-shared/codecs/lines.ts';
import { compileQuery, QueryError, type CompiledQuery } from '../../../src-shared/analysis/query.ts';
import { queryLogs, type QueryLogsResult } from '../../analysis/query-logs.ts';
import { UsageError } from '../errors.ts';
import { logInputs, assertReadable, describeProblems, reportProblems, type Output, processOutput } from '../log-inputs.ts';
import { querySummary } from '../../../src-shared/analysis/query-summary.ts';

export interface QueryOptions {
  json?: boolean;
  context?: string;
}

export async function runQuery(expr: string, paths: string[], o: QueryOptions, io: Output = processOutput): Promise<QueryLogsResult> {
  let query: CompiledQuery;
  try {
    query = compileQuery(expr);
  } catch (err) {
    if (err instanceof QueryError) throw new UsageError(err.message);
    throw err;
  }
  const inputs = await logInputs(paths);
  let rootContext: string | null = null;
  if (o.context !== undefined) {
    await assertReadable(o.context);
    rootContext = await readFile(o.context, 'utf8');
  }
  let result: QueryLogsResult;
  const damaged = new Map<string, ReadProblem[]>();
  try {
    result = await queryLogs(query, inputs, {
      rootContext,
      onNote: (n) => io.err(`rlm-studio: ${n}\n`),
      onDamaged: (path, problems) => damaged.set(path, problems),
    });
  } catch (err) {
    if (err instanceof QueryError) throw new UsageError(err.message);
    throw err;
  }
  if (o.json) {
    io.out(`${JSON.stringify(result, null, 2)}\n`);
  } else {
    for (const m of result.matches) io.out(`${m.file}\t${m.target}\t${m.what}\n`);
    io.err(`${querySummary(result)}\n`);
  }
  // As stats and convert: what could be read is printed, and damaged input still fails, naming the line.
  const what = 'the matches above cover the lines that could be read';
  const [first, ...rest] = [...damaged].sort(([a], [b]) => a.localeCompare(b));
  // Every damaged log is named; the first one's problem is the failure.
  for (const [path, problems] of rest) {
    const { lines, failure } = describeProblems(path, problems, what);
    for (const line of lines) io.err(line);
    if (failure !== null) io.err(`rlm-studio: ${failure}\n`);
  }
  if (first) reportProblems(first[0], first[1], io, what);
  return result;
}

export function registerQuery(program: Command): void {
  program
    .command('query')
    .description(
      'Run a JSONata expression over each session of logs of either format (runs, parents, children, iterations, sub-calls, labels; see docs/queries.md) and list what matched.',
    )
    .argument('<expr>', "e.g. 'runs[depth = 2 and stopReason = \"max_iterations\"]' or 'calls[promptChars > 100000]'")
    .argument('<logs...>', "log files, or folders searched for logs (an evaluation's --out folder works)")
    .option('--context <file>', "the root runs' context, so printedContext is known for them too")
    .option('--json', 'print {logs, sessions, matches: [{file, sessionId, target, kind, what}]}')
    .action(async (expr: string, paths: string[], options: QueryOptions) => {
      await runQuery(expr, paths, options);
    });
}
