// The paired comparison of two evaluations (issue 42): per metric, A, B, the difference by
// task with its bootstrap interval, the clustered standard error and the paired tests; pass@k
// and pass^k when tasks repeat. Computed in the page from what it holds, with the CLI's
// defaults (seed 1, 2000 resamples, 95%), so the same data gives `stats --compare --json`'s numbers.
import { useMemo } from 'react';
import { usePolicy } from '../app/context.tsx';
import {
  pairedComparison,
  pairedSessionsFromFigures,
  type MetricComparison,
  type PairedSession,
  type PassK,
} from '../../src-shared/analysis/paired-comparison.ts';
import type { EvalOverview } from '../../src-shared/protocol.ts';
import { fmtMs, fmtUsd } from '../lib/format.ts';
import { pairedSessionsFromTaskRows } from '../lib/eval.ts';

function fmtValue(m: MetricComparison['metric'], v: number): string {
  if (!Number.isFinite(v)) return '–';
  if (m === 'cost') return v < 0 ? `−${fmtUsd(-v)}` : fmtUsd(v);
  if (m === 'time') return v < 0 ? `−${fmtMs(-v)}` : fmtMs(v);
  if (m === 'accuracy') return `${(v * 100).toFixed(1)}%`;
  return Number(v.toPrecision(4)).toLocaleString('en-US');
}

const signed = (m: MetricComparison['metric'], v: number): string => (v > 0 ? `+${fmtValue(m, v)}` : fmtValue(m, v));
const pText = (p: number): string => (Number.isNaN(p) ? '–' : p < 0.0001 ? '<0.0001' : p.toFixed(4));

function testText(m: MetricComparison): string {
  const t = m.test;
  if (t.name === 'Wilcoxon signed-rank') return `Wilcoxon p ${pText(t.pValue)}`;
  return `${t.name} ${t.aBetter} vs ${t.bBetter}, p ${pText(t.pValue)}`;
}

const passText = (ks: readonly PassK[]): string =>
  ks.map((k) => `pass@${k.k} ${(k.passAtK * 100).toFixed(1)}%, pass^${k.k} ${(k.passHatK * 100).toFixed(1)}%`).join('; ');

export function PairedTable({ a, b, source }: { a: readonly PairedSession[]; b: readonly PairedSession[]; source: string }) {
  const p = useMemo(() => pairedComparison(a, b), [a, b]);
  if (p.tasks.paired === 0) return <p className="muted">No task is in both evaluations: nothing to pair.</p>;
  const pct = `${Math.round(p.confidence * 100)}%`;
  return (
    <section data-testid="paired-comparison">
      <h4>Paired by task</h4>
      <p className="muted">
        {p.tasks.paired} task(s) in both; A − B is the mean of the per-task differences{p.repeated ? ' (repeats averaged per task)' : ''},
        with a {pct} BCa bootstrap interval over tasks ({p.resamples} resamples, seed {p.seed}) and the standard error clustered by task.{' '}
        {source}
      </p>
      <table className="compare-table" data-testid="paired-table">
        <thead>
          <tr>
            <th>metric</th>
            <th>A</th>
            <th>B</th>
            <th>A − B</th>
            <th>{pct} interval</th>
            <th>std. error</th>
            <th>paired t</th>
            <th>paired test</th>
          </tr>
        </thead>
        <tbody>
          {p.metrics.map((m) => {
            const clear = m.ci.low > 0 || m.ci.high < 0;
            return (
              <tr key={m.metric} data-testid={`paired-${m.metric}`} className={clear ? 'differs' : ''}>
                <th>
                  {m.label}
                  {m.tasks < p.tasks.paired ? <span className="muted"> ({m.tasks} tasks)</span> : null}
                </th>
                <td>{fmtValue(m.metric, m.meanA)}</td>
                <td>{fmtValue(m.metric, m.meanB)}</td>
                <td>{signed(m.metric, m.diff)}</td>
                <td>
                  [{signed(m.metric, m.ci.low)}, {signed(m.metric, m.ci.high)}]
                </td>
                <td title={p.repeated ? `if sessions were independent: ${fmtValue(m.metric, m.seNaive)}` : undefined}>
                  {fmtValue(m.metric, m.se)}
                </td>
                <td>p {pText(m.tTest.pValue)}</td>
                <td>{testText(m)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {p.repeated ? (
        <p data-testid="paired-passk">
          A: {passText(p.passK.a)}
          <br />
          B: {passText(p.passK.b)}
        </p>
      ) : null}
    </section>
  );
}

/**
 * The comparison of two evaluations: from their policy metrics once both are computed (sub-calls,
 * whole-tree tokens and time, as `stats --compare`), else from their results (model calls).
 */
export function EvalPaired({ a, b }: { a: EvalOverview; b: EvalOverview }) {
  const pa = usePolicy((s) => s.sources.get(a.dir));
  const pb = usePolicy((s) => s.sources.get(b.dir));
  const fromLogs = pa !== undefined && pb !== undefined;
  const sa = useMemo(() => (pa && pb ? pairedSessionsFromFigures(pa.rows) : pairedSessionsFromTaskRows(a.tasks)), [pa, pb, a]);
  const sb = useMemo(() => (pa && pb ? pairedSessionsFromFigures(pb.rows) : pairedSessionsFromTaskRows(b.tasks)), [pa, pb, b]);
  return (
    <PairedTable
      a={sa}
      b={sb}
      source={
        fromLogs
          ? 'From the logs (policy metrics): the same numbers as rlm-studio stats A --compare B --json.'
          : 'From the results; compute both policy metrics (below) for sub-calls and the same numbers as rlm-studio stats A --compare B.'
      }
    />
  );
}
