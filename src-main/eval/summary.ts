// The results table: accuracy by kind and size, cost and runtime quartiles, stop reasons.
import { quartiles, type Quartiles } from '../../src-shared/trajectory/distributions.ts';
import { pricedCosts, totalCostText } from '../../src-shared/cost-text.ts';
import { addByModel, roundedByModel, type UsageByModel } from '../../src-shared/trajectory/by-model.ts';
import type { TaskResult } from './results.ts';

interface GroupSummary {
  n: number;
  meanScore: number;
  correct: number;
  durationMs: Quartiles;
  /** Over the tasks that recorded a price (none: every figure is NaN, shown as –). */
  costUsd: Quartiles;
}

export interface EvalSummary {
  dataset: string;
  model: string;
  subModel: string | null;
  maxDepth: number;
  tasks: number;
  /** Sessions per task (`--repeat`); every count below is over sessions. */
  repeats: number;
  /** Sessions in the evaluation: tasks × repeats. */
  sessions: number;
  finished: number;
  /** Mean score over finished tasks (partial credit included). */
  accuracy: number;
  correct: number;
  totalCostUsd: number;
  unpricedTasks: number;
  totalCalls: number;
  /** Requests retried by the client over the finished tasks (rate limits, server errors). */
  totalRetries: number;
  /** Tokens, calls and cost per model name over the finished tasks (tasks recorded without it are left out). */
  byModel: UsageByModel;
  durationMs: Quartiles;
  /** Over the tasks that recorded a price: an unpriced task's cost is unknown, not $0. */
  costUsd: Quartiles;
  calls: Quartiles;
  stopReasons: Record<string, number>;
  byKind: Record<string, GroupSummary>;
  /** With repeats: the accuracy of each repeat (from 0) and their standard deviation, the run-to-run variance. */
  byRepeat: { accuracy: number[]; std: number } | null;
  /** Keyed `kind@sizeTokens`. */
  byKindSize: Record<string, GroupSummary & { kind: string; sizeTokens: number | null }>;
}

function group(rs: TaskResult[]): GroupSummary {
  return {
    n: rs.length,
    meanScore: rs.length === 0 ? Number.NaN : rs.reduce((a, r) => a + r.score, 0) / rs.length,
    correct: rs.filter((r) => r.correct).length,
    durationMs: quartiles(rs.map((r) => r.durationMs)),
    costUsd: quartiles(pricedCosts(rs.map((r) => r.usage))),
  };
}

export function summarize(
  results: TaskResult[],
  meta: { dataset: string; model: string; subModel: string | null; maxDepth: number; tasks: number; repeats?: number },
): EvalSummary {
  const repeats = meta.repeats ?? 1;
  const byKind: EvalSummary['byKind'] = {};
  const byKindSize: EvalSummary['byKindSize'] = {};
  const kinds = [...new Set(results.map((r) => r.kind))].sort();
  for (const k of kinds) {
    const rs = results.filter((r) => r.kind === k);
    byKind[k] = group(rs);
    const sizes = [...new Set(rs.map((r) => r.sizeTokens))].sort((a, b) => (a ?? 0) - (b ?? 0));
    for (const s of sizes) byKindSize[`${k}@${s ?? '-'}`] = { kind: k, sizeTokens: s, ...group(rs.filter((r) => r.sizeTokens === s)) };
  }
  const stopReasons: Record<string, number> = {};
  for (const r of results) stopReasons[r.stopReason] = (stopReasons[r.stopReason] ?? 0) + 1;
  const all = group(results);
  const models: UsageByModel = {};
  for (const r of results) if (r.usage.byModel) addByModel(models, r.usage.byModel);
  let byRepeat: EvalSummary['byRepeat'] = null;
  if (repeats > 1) {
    const accuracy = Array.from({ length: repeats }, (_, k) => group(results.filter((r) => (r.repeat ?? 0) === k)).meanScore);
    const seen = accuracy.filter(Number.isFinite);
    const mean = seen.reduce((a, x) => a + x, 0) / seen.length;
    const std = seen.length > 1 ? Math.sqrt(seen.reduce((a, x) => a + (x - mean) ** 2, 0) / (seen.length - 1)) : Number.NaN;
    byRepeat = { accuracy, std };
  }
  return {
    ...meta,
    repeats,
    sessions: meta.tasks * repeats,
    finished: results.length,
    byRepeat,
    accuracy: all.meanScore,
    correct: all.correct,
    totalCostUsd: Math.round(results.reduce((a, r) => a + (r.usage.costUsd ?? 0), 0) * 1e6) / 1e6,
    unpricedTasks: results.filter((r) => r.usage.costUsd === null).length,
    totalCalls: results.reduce((a, r) => a + r.usage.calls, 0),
    totalRetries: results.reduce((a, r) => a + (r.retries ?? 0), 0),
    byModel: roundedByModel(models, 6),
    durationMs: all.durationMs,
    costUsd: all.costUsd,
    calls: quartiles(results.map((r) => r.usage.calls)),
    stopReasons,
    byKind,
    byKindSize,
  };
}

const f = (n: number, digits = 3): string => (Number.isFinite(n) ? n.toFixed(digits) : '–');
const sec = (ms: number): string => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : '–');
const usd = (x: number): string => (Number.isFinite(x) ? `$${x.toFixed(6)}` : '–');

export function summaryMarkdown(s: EvalSummary): string {
  const lines = [
    `# Evaluation: ${s.dataset}`,
    '',
    `Model \`${s.model}\`${s.subModel ? `, sub-model \`${s.subModel}\`` : ''}, max depth ${s.maxDepth}. ${s.repeats > 1 ? `${s.finished} of ${s.sessions} sessions (${s.tasks} tasks × ${s.repeats}) finished.` : `${s.finished} of ${s.tasks} tasks finished.`}`,
    '',
    `**Accuracy (mean score) ${f(s.accuracy)}**, ${s.correct}/${s.finished} fully correct. Total cost ${totalCostText(s.totalCostUsd, s.unpricedTasks, s.finished, usd)}, ${s.totalCalls} model calls${s.totalRetries > 0 ? ` (${s.totalRetries} ${s.totalRetries === 1 ? 'request' : 'requests'} retried)` : ''}.`,
    '',
    ...(s.byRepeat === null
      ? []
      : [`Accuracy by repeat: ${s.byRepeat.accuracy.map((a) => f(a)).join(', ')} (standard deviation ${f(s.byRepeat.std)}).`, '']),
    '| kind | size (tokens) | n | mean score | correct | runtime p25 / p50 / p75 | cost p50 |',
    '| --- | ---: | ---: | ---: | ---: | --- | ---: |',
    ...Object.values(s.byKindSize).map(
      (g) =>
        `| ${g.kind} | ${g.sizeTokens ?? '–'} | ${g.n} | ${f(g.meanScore)} | ${g.correct} | ${sec(g.durationMs.p25)} / ${sec(g.durationMs.p50)} / ${sec(g.durationMs.p75)} | ${usd(g.costUsd.p50)} |`,
    ),
    '',
    '| over all tasks | min | p25 | p50 | p75 | p95 | max |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| runtime | ${sec(s.durationMs.min)} | ${sec(s.durationMs.p25)} | ${sec(s.durationMs.p50)} | ${sec(s.durationMs.p75)} | ${sec(s.durationMs.p95)} | ${sec(s.durationMs.max)} |`,
    `| cost${s.unpricedTasks > 0 && s.unpricedTasks < s.finished ? ' (tasks with a price)' : ''} | ${usd(s.costUsd.min)} | ${usd(s.costUsd.p25)} | ${usd(s.costUsd.p50)} | ${usd(s.costUsd.p75)} | ${usd(s.costUsd.p95)} | ${usd(s.costUsd.max)} |`,
    `| model calls | ${f(s.calls.min, 0)} | ${f(s.calls.p25, 1)} | ${f(s.calls.p50, 1)} | ${f(s.calls.p75, 1)} | ${f(s.calls.p95, 1)} | ${f(s.calls.max, 0)} |`,
    '',
    `Stop reasons: ${
      Object.entries(s.stopReasons)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ') || 'none'
    }.`,
    '',
    ...(Object.keys(s.byModel).length === 0 ? [] : [...modelTable(s.byModel, usd), '']),
  ];
  return lines.join('\n');
}

/**
 * Usage per model as a Markdown table; columns for cached input and reasoning tokens only when
 * some model reported them (the cached share of its input in brackets).
 */
function modelTable(byModel: UsageByModel, usd: (x: number) => string): string[] {
  const rows = Object.entries(byModel);
  const cached = rows.some(([, u]) => (u.cachedInputTokens ?? 0) > 0);
  const reasoning = rows.some(([, u]) => (u.reasoningTokens ?? 0) > 0);
  const head = [
    'model',
    'calls',
    'input tokens',
    ...(cached ? ['cached input'] : []),
    'output tokens',
    ...(reasoning ? ['reasoning'] : []),
    'cost',
  ];
  const share = (u: { inputTokens: number; cachedInputTokens?: number | undefined }): string =>
    `${u.cachedInputTokens ?? 0}${u.inputTokens > 0 ? ` (${Math.round((100 * (u.cachedInputTokens ?? 0)) / u.inputTokens)}%)` : ''}`;
  return [
    `| ${head.join(' | ')} |`,
    `| --- |${' ---: |'.repeat(head.length - 1)}`,
    ...rows.map(([m, u]) =>
      [
        '',
        m,
        u.calls,
        u.inputTokens,
        ...(cached ? [share(u)] : []),
        u.outputTokens,
        ...(reasoning ? [u.reasoningTokens ?? 0] : []),
        u.costUsd === null ? '–' : usd(u.costUsd),
        '',
      ]
        .join(' | ')
        .trim(),
    ),
  ];
}
