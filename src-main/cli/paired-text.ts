// The paired comparison as `stats A --compare B` prints it: one line per metric (A, B, A − B
// with its interval, the clustered standard error, the paired test), then pass@k / pass^k
// when tasks repeat. The numbers are those of `--json`'s `paired`.
import type { MetricComparison, PairedComparison, PassK } from '../../src-shared/analysis/paired-comparison.ts';

/** Four significant digits, without exponent for the usual magnitudes. */
function num(x: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? '–' : x > 0 ? '∞' : '−∞';
  if (x === 0) return '0';
  const a = Math.abs(x);
  if (a >= 1e4) return Math.round(x).toLocaleString('en-US');
  return Number(x.toPrecision(4)).toString();
}

const signed = (x: number): string => (x > 0 ? `+${num(x)}` : num(x));

/** `p=0.0312`, `p<0.0001`. */
function pText(p: number): string {
  if (Number.isNaN(p)) return 'p –';
  return p < 0.0001 ? 'p<0.0001' : `p=${p.toFixed(4)}`;
}

function testText(m: MetricComparison): string {
  const t = m.test;
  if (t.name === 'Wilcoxon signed-rank') return `Wilcoxon${t.exact ? ' (exact)' : ''} ${pText(t.pValue)}`;
  return `${t.name} ${t.aBetter} vs ${t.bBetter} ${pText(t.pValue)}`;
}

function passLine(side: string, ks: readonly PassK[]): string {
  return `  ${side}: ${ks.map((k) => `pass@${k.k} ${num(k.passAtK)}, pass^${k.k} ${num(k.passHatK)}${k.tasks < (ks[0]?.tasks ?? 0) ? ` (${k.tasks} tasks)` : ''}`).join('; ')}`;
}

export function formatPaired(p: PairedComparison): string {
  const pct = `${Math.round(p.confidence * 1000) / 10}%`;
  if (p.tasks.paired === 0) return 'paired comparison: no task is in both\n';
  const lines = [
    `paired by task: ${p.tasks.paired} task(s) in both (${pct} BCa bootstrap intervals over tasks, ${p.resamples} resamples, seed ${p.seed}${p.repeated ? '; repeats averaged per task, standard errors clustered by task' : ''}):`,
  ];
  const rows = p.metrics.map((m) => [
    m.label,
    num(m.meanA),
    num(m.meanB),
    signed(m.diff),
    `[${signed(m.ci.low)}, ${signed(m.ci.high)}]`,
    `se ${num(m.se)}${p.repeated ? ` (naive ${num(m.seNaive)})` : ''}`,
    pText(m.tTest.pValue),
    testText(m),
    m.tasks < p.tasks.paired ? `(${m.tasks} tasks)` : '',
  ]);
  const header = ['metric', 'A', 'B', 'A − B', `${pct} CI`, 'std. error', 'paired t', 'test', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]): string => `  ${cells.map((c, i) => c.padEnd(widths[i] as number)).join('  ')}`.trimEnd();
  lines.push(line(header), ...rows.map(line));
  if (p.repeated)
    lines.push(
      'pass@k (some of k sessions correct) and pass^k (all k correct), unbiased:',
      passLine('A', p.passK.a),
      passLine('B', p.passK.b),
    );
  return `${lines.join('\n')}\n`;
}
