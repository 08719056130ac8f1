// `rlm-studio stats LOG [--json]`: counts, tokens, cost and time of a log in any supported
// format (detected from content). Streams the file, so it works on logs larger than memory.
import { InvalidArgumentError, type Command } from 'commander';
import { UsageError } from '../errors.ts';
import { assertReadable, processOutput, reportProblems, type Output } from '../log-inputs.ts';
import { nonNegativeInt, positiveInt, scorerIdArg } from '../options.ts';
import { formatPaired } from '../paired-text.ts';
import { formatPolicy, formatComparison } from '../stats-text.ts';
import { readPolicySource, type PolicySource } from '../../analysis/policy-sources.ts';
import { EvalDirError } from '../../eval/open-dir.ts';
import { noLogsIn } from '../../export/log-inputs.ts';
import type { LogFormat } from '../../../src-shared/codecs/detect.ts';
import {
  aggregatePolicy,
  successIntersection,
  type PolicyAggregate,
  type SessionRow,
} from '../../../src-shared/analysis/policy-aggregate.ts';
import type { SessionMetrics } from '../../../src-shared/analysis/policy-metrics.ts';
import { pairedComparison, pairedSessionsFromFigures, type PairedSession } from '../../../src-shared/analysis/paired-comparison.ts';
import { LOG_STATS_NUMBERS, type LogStatsNumber, type LogStats } from '../../../src-shared/trajectory/log-stats.ts';

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
  cachedInputTokens: 'cached input tokens',
  reasoningTokens: 'reasoning tokens',
  costUsd: 'cost (USD)',
  wallMs: 'wall time (ms)',
  retries: 'requests retried',
  cutReplies: 'replies cut by the token cap',
};

export function formatStatsTable(stats: LogStats, format: LogFormat | null, source?: PolicySource): string {
  const width = Math.max(...LOG_STATS_NUMBERS.map((k) => LABELS[k].length));
  const lines = source && source.kind !== 'log' ? [`${source.kind}: ${source.logs.length} log(s)`] : [`format: ${format ?? 'unknown'}`];
  for (const k of LOG_STATS_NUMBERS) {
    const v = k === 'costUsd' ? costText(stats) : stats[k].toLocaleString('en-US');
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

/**
 * The total cost, saying when it leaves out models that recorded no price: an endpoint that
 * reports no cost is unknown, not free (the JSON has null then, and `byModel` its nulls).
 */
function costText(stats: LogStats): string {
  if (stats.costUsd === null) return 'unknown (no call recorded a price)';
  const unpriced = Object.entries(stats.byModel)
    .filter(([, m]) => m.costUsd === null && m.calls > 0)
    .map(([name]) => name);
  if (unpriced.length === 0) return stats.costUsd.toFixed(6);
  return `${stats.costUsd.toFixed(6)}, not counting ${unpriced.join(', ')} (no price recorded)`;
}

/** The JSON of one LOG|DIR: today's numbers first (summed over the logs), then the policy metrics. */
function statsJson(source: PolicySource, maxBins: number): StatsJson {
  return {
    ...source.stats,
    source: source.kind,
    logs: source.logs.length,
    policy: {
      sessions: source.rows.map((r) => ({
        logFile: r.logFile,
        taskId: r.taskId,
        repeat: r.repeat,
        taskKey: r.taskKey,
        correct: r.correct,
        score: r.score,
        ...r.metrics,
      })),
      aggregate: aggregatePolicy(source.rows, maxBins),
    },
  };
}

type StatsJson = LogStats & {
  source: PolicySource['kind'];
  logs: number;
  policy: { sessions: (Omit<SessionRow, 'metrics' | 'rootRunId' | 'taskLabel'> & SessionMetrics)[]; aggregate: PolicyAggregate };
};

const pairedSessionsOf = (rows: readonly SessionRow[]): PairedSession[] =>
  pairedSessionsFromFigures(
    rows.map((r) => ({ taskKey: r.taskKey, taskLabel: r.taskLabel, correct: r.correct, figures: r.metrics.figures })),
  );

async function readSource(path: string, io: Output, scorer?: string): Promise<PolicySource> {
  await assertReadable(path, { folder: true });
  let source: PolicySource;
  try {
    source = await readPolicySource(path, undefined, scorer === undefined ? {} : { scorer });
  } catch (err) {
    if (err instanceof EvalDirError) throw new UsageError(err.message);
    throw err;
  }
  const only = source.kind === 'log' ? source.logs[0] : undefined;
  // One log named on its own: unreadable is an error, as before; in a folder it is a note.
  if (only && only.format === null) reportProblems(path, only.problems, io, 'no statistics');
  if (source.kind === 'folder' && source.logs.length === 0) {
    // Table of zeros for a mistyped path, or for files that are not logs (their notes say why).
    for (const p of source.problems) io.err(`rlm-studio: ${p}\n`);
    throw new UsageError(source.problems.length > 0 ? `${path}: no log in a known format in this folder` : noLogsIn(path));
  }
  return source;
}

function reportAfter(source: PolicySource, io: Output): void {
  const only = source.kind === 'log' ? source.logs[0] : undefined;
  if (only) {
    reportProblems(source.path, only.problems, io, `statistics above cover the ${only.events} event(s) that could be read`);
    return;
  }
  for (const p of source.problems) io.err(`rlm-studio: ${p}\n`);
}

export interface StatsOptions {
  json?: boolean;
  compare?: string;
  bins?: number;
  seed?: number;
  resamples?: number;
  confidence?: number;
  /** Correctness from this scorer's lines of scores.jsonl (`rlm-studio score`), for both sides unless `compareScores`. */
  scores?: string;
  compareScores?: string;
}

/** A confidence level strictly between 0 and 1 (0.95, not 95). */
function confidenceLevel(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n <= 0 || n >= 1)
    throw new InvalidArgumentError(`--confidence must be a number between 0 and 1 (e.g. 0.95), got "${v}".`);
  return n;
}

export async function runStats(path: string, options: StatsOptions, io: Output = processOutput): Promise<StatsJson> {
  const bins = options.bins ?? 20;
  const a = await readSource(path, io, options.scores);
  const ja = statsJson(a, bins);
  if (options.compare === undefined) {
    io.out(
      options.json
        ? `${JSON.stringify(ja)}\n`
        : formatStatsTable(a.stats, a.logs[0]?.format ?? null, a) + formatPolicy(ja.policy.aggregate, a.rows),
    );
    reportAfter(a, io);
    return ja;
  }
  const b = await readSource(options.compare, io, options.compareScores ?? options.scores);
  const jb = statsJson(b, bins);
  const intersection = successIntersection(a.rows, b.rows);
  const paired = pairedComparison(pairedSessionsOf(a.rows), pairedSessionsOf(b.rows), {
    seed: options.seed ?? 1,
    resamples: options.resamples ?? 2000,
    confidence: options.confidence ?? 0.95,
  });
  if (options.json) io.out(`${JSON.stringify({ a: { path, ...ja }, b: { path: options.compare, ...jb }, intersection, paired })}\n`);
  else io.out(formatComparison(path, a, options.compare, b, intersection) + formatPaired(paired));
  reportAfter(a, io);
  reportAfter(b, io);
  return ja;
}

export function registerStats(program: Command): void {
  program
    .command('stats')
    .description(
      'Counts, tokens, cost and time of a log, a folder of logs or an evaluation folder (native or reference-library JSONL, detected from content), with policy metrics per run and their distributions across sessions.',
    )
    .argument('<path>', 'a log file, a folder of logs, or the --out folder of rlm-studio eval (correctness from its results.jsonl)')
    .option(
      '--json',
      `print one JSON object: numeric keys ${LOG_STATS_NUMBERS.join(', ')} (summed over the logs), byModel, source, logs, and policy: {sessions, aggregate}`,
    )
    .option(
      '--compare <path>',
      'a second log folder or evaluation: both summaries, which tasks each solved (success-set intersection), and the paired comparison by task (differences with bootstrap intervals, paired tests, clustered standard errors, pass@k; docs/statistics.md)',
    )
    .option('--bins <n>', 'histogram bins per figure (default 20)', positiveInt('--bins'))
    .option(
      '--scores <id>',
      "an evaluation's correctness from this scorer of its scores.jsonl (rlm-studio score) instead of results.jsonl's",
      scorerIdArg('--scores'),
    )
    .option('--compare-scores <id>', "with --compare: B's scorer, when it differs from --scores", scorerIdArg('--compare-scores'))
    .option('--seed <n>', "with --compare: the bootstrap's seed, so intervals reproduce (default 1)", nonNegativeInt('--seed'))
    .option('--resamples <n>', 'with --compare: bootstrap resamples (default 2000)', positiveInt('--resamples'))
    .option('--confidence <level>', "with --compare: the intervals' confidence level (default 0.95)", confidenceLevel)
    .action(async (log: string, options: StatsOptions) => {
      const pairedOnly = (['seed', 'resamples', 'confidence', 'compareScores'] as const).filter((k) => options[k] !== undefined);
      if (options.compare === undefined && pairedOnly.length > 0)
        throw new UsageError(
          `--${(pairedOnly[0] as string).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} applies to a comparison: add --compare PATH_B`,
        );
      await runStats(log, options);
    });
}
