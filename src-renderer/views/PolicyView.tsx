// Policy metrics across sessions (issue 13 part 2): for a folder of logs or an evaluation on
// the host, every figure as a histogram with its quartile box, correct vs incorrect sessions
// on one axis (the paper's Figure 10), where the tokens went, repeats of a task with their
// spread, and between two sources the success-set intersection (Figure 9) whose cells list
// the tasks, each opening its log on a click. The host reads the logs and aggregates; this
// view only draws.
import { useCallback, useMemo, useState } from 'react';
import { successIntersection, type TaskRef } from '../../src-shared/analysis/policy-aggregate.ts';
import { SESSION_FIGURES, type SessionFigure } from '../../src-shared/analysis/policy-metrics.ts';
import type { PolicyOverview } from '../../src-shared/protocol.ts';
import type { Quartiles } from '../../src-shared/trajectory/index.ts';
import { usePolicy, useServices, useStudio } from '../app/context.tsx';
import { openPolicy, openPolicyLog } from '../app/policy-services.ts';
import { ChartFrame, type Draw } from '../charts/Charts.tsx';
import { drawHistograms, drawSplitBar, splitBarHeight } from '../charts/policy-charts.ts';
import { fmtMs, fmtUsd } from '../lib/format.ts';
import { HostPathForm } from './HostPathForm.tsx';
import { ViewBoundary } from './ViewBoundary.tsx';

const FIGURE_LABELS: Record<SessionFigure, string> = {
  iterations: 'iterations (all runs)',
  rootIterations: 'root iterations',
  codeBlocks: 'code blocks',
  subcalls: 'sub-calls',
  llmCalls: 'plain sub-calls',
  childRuns: 'child runs',
  subcallsPerIterationMean: 'sub-calls per iteration (mean)',
  subcallsPerIterationMax: 'sub-calls per iteration (max)',
  fanOutMax: 'fan-out (max per block)',
  fanOutMean: 'fan-out (mean per block)',
  batchSizeMax: 'batch size (max)',
  batchSizeMean: 'batch size (mean)',
  runs: 'runs',
  maxDepth: 'depth',
  inputTokens: 'input tokens',
  outputTokens: 'output tokens',
  costUsd: 'cost',
  rootTokenShare: 'token share: root',
  subcallTokenShare: 'token share: sub-calls',
  childTokenShare: 'token share: child runs',
  rootCostShare: 'cost share: root',
  subcallCostShare: 'cost share: sub-calls',
  childCostShare: 'cost share: child runs',
  modelMs: 'model time',
  replMs: 'REPL time',
  replCpuMs: 'REPL CPU time',
  subcallMs: 'sub-call time',
  blockErrors: 'blocks that raised',
  modelErrors: 'model errors',
  subcallErrors: 'sub-call errors',
  replResets: 'REPL resets',
  compactions: 'compactions',
  wallMs: 'wall time',
};

/** How a figure's values read. */
function fmtFigure(f: SessionFigure): (v: number) => string {
  if (f === 'costUsd') return fmtUsd;
  if (f.endsWith('Ms')) return fmtMs;
  if (f.endsWith('Share')) return (v) => `${(v * 100).toFixed(0)}%`;
  return (v) => (Number.isInteger(v) ? String(v) : v.toFixed(2));
}

const TABLE_FIGURES: SessionFigure[] = [
  'rootIterations',
  'codeBlocks',
  'subcalls',
  'subcallsPerIterationMean',
  'fanOutMax',
  'batchSizeMax',
  'maxDepth',
  'modelMs',
  'replMs',
  'blockErrors',
  'replResets',
  'compactions',
  'costUsd',
];

export function PolicyView() {
  const svc = useServices();
  const connected = useStudio((s) => s.connection === 'open');
  const sources = usePolicy((s) => s.sources);
  const loading = usePolicy((s) => s.loading);
  const shown = usePolicy((s) => s.shown);
  const a = usePolicy((s) => s.a);
  const b = usePolicy((s) => s.b);
  const pick = usePolicy((s) => s.pick);
  const os = shown ? sources.get(shown) : undefined;
  const oa = a ? sources.get(a) : undefined;
  const ob = b ? sources.get(b) : undefined;
  const value = { shown, a, b };
  const choose = (which: 'shown' | 'a' | 'b', testId: string) => (
    <select
      aria-label={which === 'shown' ? 'Source shown' : `Source ${which.toUpperCase()}`}
      value={value[which] ?? ''}
      onChange={(e) => pick({ [which]: e.target.value || null })}
      data-testid={testId}
    >
      <option value="">— choose —</option>
      {[...sources.values()].map((o) => (
        <option key={o.path} value={o.path}>
          {o.kind}: {o.path}
        </option>
      ))}
    </select>
  );
  return (
    <div className="evaluation policy" data-testid="policy">
      <h2>Policy metrics</h2>
      <HostPathForm
        placeholder="/path on the host: a folder of logs, an evaluation's --out folder, or one log"
        label="Folder, evaluation or log on the host"
        submitText="Compute metrics"
        onOpen={(path) => void openPolicy(svc, path)}
        disabled={!connected}
        inputTestId="policy-path"
        submitTestId="policy-open"
      />
      {loading.size > 0 ? <p className="muted">Reading {[...loading].join(', ')} on the host…</p> : null}
      {sources.size > 0 ? (
        <>
          <label className="eval-pick">Showing {choose('shown', 'policy-select')}</label>
          {os ? <PolicyDetailShown o={os} /> : null}
          <section className="eval-compare">
            <h3>Which tasks each solved</h3>
            <div className="compare-pick">
              A {choose('a', 'policy-compare-a')} B {choose('b', 'policy-compare-b')}
            </div>
            {oa && ob ? (
              <ViewBoundary what="the success sets" resetKey={`${oa.path} ${ob.path}`}>
                <SuccessGrid a={oa} b={ob} />
              </ViewBoundary>
            ) : (
              <p className="muted">Compute the metrics of two evaluations and choose them as A and B.</p>
            )}
          </section>
        </>
      ) : (
        <p className="muted">
          Per-session figures and their distributions need the logs: name a folder on the host (the same as `rlm-studio stats DIR --json`).
        </p>
      )}
    </div>
  );
}

/** A source's figures behind their own boundary: a fault in them leaves the view's form and other sources usable. */
function PolicyDetailShown({ o }: { o: PolicyOverview }) {
  const drop = usePolicy((s) => s.drop);
  return (
    <ViewBoundary what={`the policy metrics of ${o.path}`} resetKey={o} onClose={() => drop(o.path)} closeText="Close these metrics">
      <PolicyDetail o={o} />
    </ViewBoundary>
  );
}

/** The figures of one source: histogram and quartiles, correct vs incorrect, tokens, repeats. */
function PolicyDetail({ o }: { o: PolicyOverview }) {
  const figure = usePolicy((s) => s.figure);
  const pick = usePolicy((s) => s.pick);
  const agg = o.aggregate;
  const split = agg.byCorrectness;
  const tokens = o.tokens;
  const drawAll = useCallback<Draw>(
    (svg, w) => drawHistograms(svg, [{ label: 'all', cls: 'bar-a', dist: agg.distributions[figure] }], 240, fmtFigure(figure), w),
    [agg, figure],
  );
  const drawSplit = useCallback<Draw>(
    (svg, w) => {
      if (!split) return;
      drawHistograms(
        svg,
        [
          { label: 'correct', cls: 'bar-ok', dist: split.correctDist[figure] },
          { label: 'incorrect', cls: 'bar-bad', dist: split.incorrectDist[figure] },
        ],
        260,
        fmtFigure(figure),
        w,
      );
    },
    [split, figure],
  );
  const drawTokens = useCallback<Draw>(
    (svg, w) =>
      drawSplitBar(
        svg,
        [
          { label: 'root', cls: 'bar-a', value: tokens.root },
          { label: 'sub-calls', cls: 'bar-b', value: tokens.subcalls },
          { label: 'child runs', cls: 'bar-c', value: tokens.children },
        ],
        (v) => v.toLocaleString('en-US'),
        w,
      ),
    [tokens],
  );
  return (
    <section data-testid="policy-detail">
      <p data-testid="policy-summary">
        <b>{o.kind}</b> {o.path}: {o.logs} log(s), {agg.sessions} session(s)
        {split ? `; ${split.correct} correct, ${split.incorrect} incorrect${split.unknown ? `, ${split.unknown} unknown` : ''}` : ''}.
      </p>
      <label>
        Figure{' '}
        <select
          aria-label="Figure"
          value={figure}
          onChange={(e) => pick({ figure: e.target.value as SessionFigure })}
          data-testid="policy-figure"
        >
          {SESSION_FIGURES.map((f) => (
            <option key={f} value={f}>
              {FIGURE_LABELS[f]}
            </option>
          ))}
        </select>
      </label>
      <div className="charts">
        <ChartFrame
          title={`${FIGURE_LABELS[figure]} per session (histogram; box = p25–p75, median, whisker min–max)`}
          testId="policy-chart-all"
          height={240}
          draw={drawAll}
        />
        {split ? (
          <ChartFrame
            title={`${FIGURE_LABELS[figure]}: correct vs incorrect sessions`}
            testId="policy-chart-split"
            height={260}
            draw={drawSplit}
          />
        ) : null}
        <ChartFrame
          title="Tokens of all sessions: root turns / sub-calls / child runs"
          testId="policy-chart-tokens"
          height={splitBarHeight(3)}
          draw={drawTokens}
        />
      </div>
      <table className="compare-table" data-testid="policy-quartiles">
        <thead>
          <tr>
            <th>per session</th>
            <th>p25</th>
            <th>median</th>
            <th>p75</th>
            <th>max</th>
            {split ? <th>median if correct</th> : null}
            {split ? <th>median if incorrect</th> : null}
          </tr>
        </thead>
        <tbody>
          {TABLE_FIGURES.map((f) => {
            const q = agg.distributions[f].quartiles;
            // No session recorded a price: its cost is unknown, not $0 (the quartiles are over none).
            const ff = f === 'costUsd' ? (v: number) => (Number.isNaN(v) ? 'unknown' : fmtUsd(v)) : fmtFigure(f);
            // A group without sessions has no figures: a dash, its reason in the tooltip (cost: unknown).
            const cell = (v: Quartiles | null, key: 'p25' | 'p50' | 'p75' | 'max', none: string) =>
              v ? (
                <td>{ff(v[key])}</td>
              ) : f === 'costUsd' ? (
                <td title={`${none} with a recorded price`}>unknown</td>
              ) : (
                <td title={none}>–</td>
              );
            return (
              <tr key={f} data-testid={`policy-q-${f}`}>
                <th>{FIGURE_LABELS[f]}</th>
                {cell(q, 'p25', 'no sessions')}
                {cell(q, 'p50', 'no sessions')}
                {cell(q, 'p75', 'no sessions')}
                {cell(q, 'max', 'no sessions')}
                {split ? cell(split.correctDist[f].quartiles, 'p50', 'no correct sessions') : null}
                {split ? cell(split.incorrectDist[f].quartiles, 'p50', 'no incorrect sessions') : null}
              </tr>
            );
          })}
        </tbody>
      </table>
      {agg.repeats.length > 0 ? <Repeats o={o} /> : null}
    </section>
  );
}

function Repeats({ o }: { o: PolicyOverview }) {
  const svc = useServices();
  const figure = usePolicy((s) => s.figure);
  const fmt = fmtFigure(figure);
  return (
    <>
      <h3>Repeats of a task ({FIGURE_LABELS[figure]})</h3>
      <table className="compare-table" data-testid="policy-repeats">
        <thead>
          <tr>
            <th>task</th>
            <th>sessions</th>
            <th>correct</th>
            <th>mean</th>
            <th>sd</th>
            <th>min–max</th>
            <th>logs</th>
          </tr>
        </thead>
        <tbody>
          {o.aggregate.repeats.slice(0, 200).map((g) => {
            const s = g.spread[figure];
            return (
              <tr key={g.taskKey}>
                <th title={g.taskKey}>{g.taskLabel}</th>
                <td>{g.sessions}</td>
                <td>{g.correct ?? '–'}</td>
                <td>{fmt(s.mean)}</td>
                <td>{fmt(s.stddev)}</td>
                <td>
                  {fmt(s.min)}–{fmt(s.max)}
                </td>
                <td>
                  {g.logFiles.map((f, i) => (
                    <button key={f} type="button" className="link" title={f} onClick={() => void openPolicyLog(svc, f)}>
                      {i + 1}
                    </button>
                  ))}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}

const CELL_PAGE = 100;

const CELLS: { key: 'both' | 'onlyA' | 'onlyB' | 'neither'; label: string }[] = [
  { key: 'both', label: 'solved by both' },
  { key: 'onlyA', label: 'only A solved' },
  { key: 'onlyB', label: 'only B solved' },
  { key: 'neither', label: 'solved by neither' },
];

/** The success sets of two sources as a 2 × 2 grid; each task opens its log in A or in B. */
function SuccessGrid({ a, b }: { a: PolicyOverview; b: PolicyOverview }) {
  const svc = useServices();
  const x = useMemo(() => successIntersection(a.rows, b.rows), [a, b]);
  // A cell lists its first tasks; more on request (thousands of list items at once block the page).
  const [shown, setShown] = useState(CELL_PAGE);
  const task = (t: TaskRef) => (
    <li key={t.taskKey}>
      <span title={t.taskKey}>{t.taskLabel}</span>{' '}
      {t.logsA[0] ? (
        <button type="button" className="link" onClick={() => void openPolicyLog(svc, t.logsA[0] as string)} data-testid="policy-open-a">
          A
        </button>
      ) : null}{' '}
      {t.logsB[0] ? (
        <button type="button" className="link" onClick={() => void openPolicyLog(svc, t.logsB[0] as string)} data-testid="policy-open-b">
          B
        </button>
      ) : null}
    </li>
  );
  return (
    <>
      <div className="success-grid" data-testid="policy-intersection">
        {CELLS.map((c) => (
          <div key={c.key} className={`success-cell ${c.key}`} data-testid={`policy-cell-${c.key}`}>
            <h4>
              {c.label}: <span className="count">{x[c.key].length}</span>
            </h4>
            <ul>
              {x[c.key].slice(0, shown).map(task)}
              {x[c.key].length > shown ? (
                <li>
                  <button type="button" className="link" onClick={() => setShown((n) => n + CELL_PAGE * 5)}>
                    … {x[c.key].length - shown} more
                  </button>
                </li>
              ) : null}
            </ul>
          </div>
        ))}
      </div>
      {x.notCompared.length > 0 ? (
        <p className="muted">{x.notCompared.length} task(s) are in only one source or have no result there, and are left out.</p>
      ) : null}
    </>
  );
}

/** In the Evaluation view: the policy metrics of the evaluation shown, computed on request. */
export function EvalPolicySection({ dir }: { dir: string }) {
  const svc = useServices();
  const o = usePolicy((s) => s.sources.get(dir));
  const busy = usePolicy((s) => s.loading.has(dir));
  return (
    <section className="eval-policy" data-testid="eval-policy">
      <h3>Policy metrics</h3>
      {o ? (
        <PolicyDetailShown o={o} />
      ) : (
        <button type="button" disabled={busy} onClick={() => void openPolicy(svc, dir)} data-testid="eval-policy-open">
          {busy ? 'Reading the logs…' : 'Compute policy metrics of this evaluation'}
        </button>
      )}
    </section>
  );
}

/** In the Evaluation view's comparison: the intersection once both sides' metrics are known. */
export function EvalPolicyCompare({ a, b }: { a: string; b: string }) {
  const svc = useServices();
  const oa = usePolicy((s) => s.sources.get(a));
  const ob = usePolicy((s) => s.sources.get(b));
  if (oa && ob)
    return (
      <ViewBoundary what="the success sets" resetKey={`${oa.path} ${ob.path}`}>
        <SuccessGrid a={oa} b={ob} />
      </ViewBoundary>
    );
  return (
    <button
      type="button"
      onClick={() => {
        if (!oa) void openPolicy(svc, a);
        if (!ob) void openPolicy(svc, b);
      }}
      data-testid="eval-policy-compare"
    >
      Success sets with every task one click away (computes both evaluations' policy metrics)
    </button>
  );
}
