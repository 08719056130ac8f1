// `rlm-studio stats LOG [--json]`: counts, tokens, cost and time of a log in any supported
// format (detected from content). Streams the file, so it works on logs larger than memory.
import { access } from 'node:fs/promises';
import type { Command } from 'commander';
import { UsageError } from '../errors.ts';
import { readLogBatches } from '../../logs/read-log.ts';
import { formatProblem, type ReadProblem } from '../../../src-shared/codecs/lines.ts';
import type { LogFormat } from '../../../src-shared/codecs/detect.ts';
import { LOG_STATS_NUMBERS, type LogStatsNumber, StatsAccumulator, type LogStats } from '../../../src-shared/trajectory/analytics.ts';

export interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
}

const processOutput: Output = {
  out: (t) => void process.stdout.write(t),
  err: (t) => void process.stderr.write(t),
};

export async function assertReadable(path: string): Promise<void> {
  try {
    await access(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(code === 'ENOENT' ? `${path}: no such file` : `${path}: cannot read it (${code ?? String(err)})`);
  }
}

/** Warnings go to stderr; errors become one UsageError naming the first bad line. */
export function reportProblems(path: string, problems: ReadProblem[], io: Output, what: string): void {
  for (const p of problems) if (p.severity === 'warning') io.err(`rlm-studio: ${path}: warning: ${formatProblem(p)}\n`);
  const errors = problems.filter((p) => p.severity === 'error');
  const first = errors[0];
  if (!first) return;
  for (const p of errors.slice(1, 10)) io.err(`rlm-studio: ${path}: ${formatProblem(p)}\n`);
  const more = errors.length > 1 ? ` (${errors.length - 1} more problem(s) listed above)` : '';
  throw new UsageError(`${path}: ${formatProblem(first)}${more}; ${what}`);
}

const LABELS: Record<LogStatsNumber, string> = {
  sessions: 'sessions (root completions)',
  runs: 'runs (root + child RLMs)',
  maxDepth: 'max depth',
  iterations: 'iterations',
  codeBlocks: 'code blocks',
  llmCalls: 'plain sub-LM calls',
  rlmCalls: 'child RLM runs',
  errors: 'code blocks that raised',
  inputTokens: 'input tokens',
  outputTokens: 'output tokens',
  costUsd: 'cost (USD)',
  wallMs: 'wall time (ms)',
};

export function formatStatsTable(stats: LogStats, format: LogFormat | null): string {
  const width = Math.max(...LOG_STATS_NUMBERS.map((k) => LABELS[k].length));
  const lines = [`format: ${format ?? 'unknown'}`];
  for (const k of LOG_STATS_NUMBERS) {
    const v = k === 'costUsd' ? stats[k].toFixed(6) : stats[k].toLocaleString('en-US');
    lines.push(`${LABELS[k].padEnd(width)}  ${v}`);
  }
  const models = Object.entries(stats.byModel);
  if (models.length > 0) {
    lines.push('per model (calls, input tokens, output tokens, cost USD):');
    for (const [name, m] of models) {
      lines.push(
        `  ${name}  ${m.calls.toLocaleString('en-US')}  ${m.inputTokens.toLocaleString('en-US')}  ${m.outputTokens.toLocaleString('en-US')}  ${m.costUsd === null ? 'unknown' : m.costUsd.toFixed(6)}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

export async function runStats(path: string, options: { json?: boolean }, io: Output = processOutput): Promise<LogStats> {
  await assertReadable(path);
  const acc = new StatsAccumulator();
  const problems: ReadProblem[] = [];
  let format: LogFormat | null = null;
  let events = 0;
  for await (const batch of readLogBatches(path))
    for (const item of batch) {
      if (item.kind === 'event') {
        events++;
        acc.push(item.event);
      } else if (item.kind === 'problem') problems.push(item.problem);
      else if (item.kind === 'format') format = item.format;
    }
  if (format === null) reportProblems(path, problems, io, 'no statistics');
  const stats = acc.result();
  io.out(options.json ? `${JSON.stringify(stats)}\n` : formatStatsTable(stats, format));
  reportProblems(path, problems, io, `statistics above cover the ${events} event(s) that could be read`);
  return stats;
}

export function registerStats(program: Command): void {
  program
    .command('stats')
    .description('Counts, tokens, cost and time of a log (native or reference-library JSONL, detected from content).')
    .argument('<log>', 'log file')
    .option(
      '--json',
      `print one JSON object with numeric keys ${LOG_STATS_NUMBERS.join(', ')}, and byModel: {model: {inputTokens, outputTokens, calls, costUsd}}`,
    )
    .action(async (log: string, options: { json?: boolean }) => {
      await runStats(log, options);
    });
}
