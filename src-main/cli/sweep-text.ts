// The text of `sweep` and `sweep-summary`: a table of the configurations (the Pareto front
// marked), the per-axis effects, and a paired comparison when asked for.
import type { PairedComparison } from '../../src-shared/analysis/paired-comparison.ts';
import type { SweepSummary } from '../../src-shared/analysis/sweep.ts';
import { formatPaired } from './paired-text.ts';

const pct = (x: number | null): string => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);
const usd = (x: number | null): string => (x === null ? 'unknown' : `$${x.toFixed(6)}`);
const num = (x: number | null): string => (x === null ? '–' : Math.round(x).toLocaleString('en-US'));
const secs = (x: number | null): string => (x === null ? '–' : `${(x / 1000).toFixed(2)} s`);

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  );
}

export function formatSweep(s: SweepSummary, compare?: { a: string; b: string; paired: PairedComparison }): string {
  const lines = [
    `${s.configs.length} configuration(s) over ${s.axes.map((a) => `${a.name} (${a.values.length})`).join(' × ')}; * = on the cost–accuracy Pareto front`,
    ...table([
      ['#', 'id', 'configuration', 'state', 'sessions', 'accuracy', 'cost/task', 'cost', 'tokens/task', 'time/task', ''],
      ...s.configs.map((c, i) => [
        String(i + 1),
        c.id,
        c.name,
        c.state,
        `${c.sessions}${c.sessionsPlanned === null ? '' : `/${c.sessionsPlanned}`}`,
        pct(c.accuracy),
        usd(c.costPerTask),
        usd(c.costUsd),
        num(c.tokensPerTask),
        secs(c.timePerTaskMs),
        c.pareto ? '*' : '',
      ]),
    ]),
    '',
    'per-axis effects (mean over the configurations with each value):',
  ];
  for (const e of s.effects) {
    lines.push(`  ${e.axis}${e.accuracyRange === null ? '' : `  (accuracy range ${pct(e.accuracyRange)})`}`);
    lines.push(
      ...table([
        ['value', 'configs', 'accuracy', 'cost/task', 'tokens/task', 'time/task'],
        ...e.values.map((v) => [
          String(v.value),
          String(v.configs),
          pct(v.accuracy),
          usd(v.costPerTask),
          num(v.tokensPerTask),
          secs(v.timePerTaskMs),
        ]),
      ]).map((l) => `    ${l}`),
    );
  }
  let out = `${lines.join('\n')}\n`;
  if (compare) out += `\nA = ${compare.a}, B = ${compare.b}\n${formatPaired(compare.paired)}`;
  return out;
}
