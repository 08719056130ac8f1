// An evaluation (the --out directory of `rlm-studio eval`) as a whole: its settings, accuracy
// by kind and size, cost and runtime distributions across tasks (the same chart as the
// cross-session one), a virtualised task table whose rows open the task's session, and a
// comparison of two evaluations: which tasks only one of them solved.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { EvalOverview, EvalTaskRow } from '../../src-shared/protocol.ts';
import { openEval, openEvalTask, refreshEval } from '../app/eval-services.ts';
import { useServices, useStudio } from '../app/context.tsx';
import { ChartFrame, drawDistribution, type Draw } from '../charts/Charts.tsx';
import { fmtMs, fmtUsd } from '../lib/format.ts';
import { pricedCosts, totalCostText } from '../../src-shared/cost-text.ts';
import { accuracyBy, compareEvals, evalTotals, sortRows, type ComparedTask, type SortKey } from '../lib/eval.ts';
import { RetriesNote } from './RetriesNote.tsx';
import { UsageByModelTable } from './UsageByModelTable.tsx';
import { HostPathForm } from './HostPathForm.tsx';
import { EvalCoverageSection } from './EvalCoverageSection.tsx';
import { EvalPolicyCompare, EvalPolicySection } from './PolicyView.tsx';
import { EvalPaired } from './PairedTable.tsx';

const ROW_H = 24;
/** How often a running evaluation is read again. */
const LIVE_REFRESH_MS = 1500;
const pct = (x: number): string => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : '–');
const usd = (x: number | null): string => (x === null ? '–' : fmtUsd(x));

export function EvaluationView() {
  const svc = useServices();
  const evals = useStudio((s) => s.evals);
  const view = useStudio((s) => s.evalView);
  const connected = useStudio((s) => s.connection === 'open');
  const active = view.active ? evals.get(view.active) : undefined;
  return (
    <div className="evaluation" data-testid="evaluation">
      <h2>Evaluation</h2>
      <OpenEvalPath disabled={!connected} />
      {evals.size > 0 ? (
        <label className="eval-pick">
          Showing{' '}
          <select
            aria-label="Evaluation"
            value={view.active ?? ''}
            onChange={(e) => svc.store.getState().setEvalView({ active: e.target.value || null })}
            data-testid="eval-select"
          >
            {[...evals.values()].map((e) => (
              <option key={e.dir} value={e.dir}>
                {e.name} — {e.dir}
              </option>
            ))}
          </select>
        </label>
      ) : (
        <p className="muted">
          Open the --out directory of `rlm-studio eval` (it holds results.jsonl), or start the app with `rlm-studio view DIR`.
        </p>
      )}
      {active ? <EvalDetail evaluation={active} /> : null}
      {evals.size > 0 ? <EvalCompare /> : null}
    </div>
  );
}

function OpenEvalPath({ disabled }: { disabled: boolean }) {
  const svc = useServices();
  return (
    <HostPathForm
      placeholder="/path/to/eval-dir on the host (holds results.jsonl)"
      label="Evaluation directory on the host"
      submitText="Open evaluation"
      onOpen={(path) => void openEval(svc, path)}
      disabled={disabled}
      inputTestId="eval-path"
      submitTestId="eval-open"
    />
  );
}

/** While the evaluation runs (its progress.json is fresh), read it again every LIVE_REFRESH_MS. */
function useLiveRefresh(e: EvalOverview): void {
  const svc = useServices();
  const live = e.progress?.live === true;
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(() => void refreshEval(svc, e.dir), LIVE_REFRESH_MS);
    return () => clearInterval(timer);
  }, [svc, e.dir, live]);
}

function EvalProgressLine({ evaluation: e }: { evaluation: EvalOverview }) {
  const p = e.progress;
  if (!p) return null;
  const state = p.live
    ? `Running${p.mode === 'queue' ? ' on the queue' : ''}`
    : p.state === 'running'
      ? 'Stopped (no update lately)'
      : p.state === 'finished'
        ? 'Finished'
        : 'Interrupted';
  return (
    <p className={p.live ? 'eval-progress live' : 'eval-progress'} data-testid="eval-progress" data-live={p.live ? 'yes' : 'no'}>
      <b>{state}</b>: {p.done}/{p.total} done · {p.running} running · {p.failed} failed · {p.perMinute.toFixed(1)}/min ·{' '}
      {p.costUsd === null ? 'cost unknown' : fmtUsd(p.costUsd)}
      {p.live ? ` · ${p.etaMs === null ? 'time left unknown' : `about ${fmtMs(p.etaMs)} left`}` : ''}
    </p>
  );
}

/** Whose scores the view shows: results.jsonl's, or a scorer of scores.jsonl (`rlm-studio score`). */
function ScorerPick({ evaluation: e }: { evaluation: EvalOverview }) {
  const svc = useServices();
  return (
    <label className="eval-pick">
      Scores from{' '}
      <select
        aria-label="Scores from"
        value={e.scorer ?? ''}
        onChange={(ev) => void openEval(svc, e.dir, ev.target.value === '' ? undefined : ev.target.value)}
        data-testid="eval-scorer"
      >
        <option value="">the evaluation (results.jsonl)</option>
        {e.scorers.map((s) => (
          <option key={s} value={s}>
            {s} (rlm-studio score)
          </option>
        ))}
      </select>
    </label>
  );
}

function EvalDetail({ evaluation: e }: { evaluation: EvalOverview }) {
  useLiveRefresh(e);
  const totals = useMemo(() => evalTotals(e), [e]);
  const acc = useMemo(() => accuracyBy(e.tasks), [e]);
  const cost = useMemo(() => pricedCosts(e.tasks), [e]);
  const time = useMemo(() => e.tasks.map((t) => t.durationMs), [e]);
  const drawCost = useCallback<Draw>((svg, w) => drawDistribution(svg, cost, fmtUsd, w), [cost]);
  const drawTime = useCallback<Draw>((svg, w) => drawDistribution(svg, time, fmtMs, w), [time]);
  const st = e.settings;
  return (
    <section data-testid="eval-detail">
      <p data-testid="eval-summary">
        <b>{e.name}</b>: model <code>{st.model ?? '?'}</code>
        {st.subModel ? (
          <>
            , sub-model <code>{st.subModel}</code>
          </>
        ) : null}
        , max depth {st.maxDepth ?? '?'}, max iterations {st.maxIterations ?? 'default'}. {totals.finished}
        {e.datasetTasks !== null ? ` of ${e.datasetTasks}` : ''} tasks finished; accuracy <b>{pct(totals.accuracy)}</b> ({totals.correct}{' '}
        fully correct); total cost {totalCostText(totals.totalCostUsd, totals.unpriced, totals.finished, fmtUsd)}
        {totals.retries > 0 ? <RetriesNote retries={totals.retries} testId="eval-retries-total" /> : null}.
      </p>
      <EvalProgressLine evaluation={e} />
      {e.scorers.length > 0 ? <ScorerPick evaluation={e} /> : null}
      <UsageByModelTable byModel={totals.byModel} testId="eval-by-model" />
      {e.problems.length > 0 ? (
        <ul className="eval-problems" data-testid="eval-problems">
          {e.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
      <table className="compare-table eval-accuracy" data-testid="eval-accuracy">
        <thead>
          <tr>
            <th>kind</th>
            <th>size (tokens)</th>
            <th>n</th>
            <th>correct</th>
            <th>mean score</th>
          </tr>
        </thead>
        <tbody>
          {acc.kinds.map((k) => [
            <tr key={k.key} className="eval-kind">
              <th>{k.kind}</th>
              <td>all</td>
              <td>{k.n}</td>
              <td>{k.correct}</td>
              <td>{pct(k.meanScore)}</td>
            </tr>,
            ...acc.kindSizes
              .filter((g) => g.kind === k.kind)
              .map((g) => (
                <tr key={g.key} data-testid={`eval-acc-${g.key}`}>
                  <td />
                  <td>{g.sizeTokens ?? '–'}</td>
                  <td>{g.n}</td>
                  <td>{g.correct}</td>
                  <td>{pct(g.meanScore)}</td>
                </tr>
              )),
          ])}
        </tbody>
      </table>
      <div className="charts">
        <ChartFrame
          title={`Cost per task${totals.unpriced > 0 && cost.length > 0 ? ', of the tasks with a price' : ''} (histogram; box = p25–p75, median, whisker to p95)`}
          testId="eval-chart-cost"
          draw={drawCost}
          empty={
            cost.length === 0
              ? e.tasks.length === 0
                ? 'No task has finished yet.'
                : 'No task recorded a price (the endpoint reported none and its model is not in the price table): the cost is unknown.'
              : null
          }
        />
        <ChartFrame
          title="Runtime per task"
          testId="eval-chart-time"
          draw={drawTime}
          empty={time.length === 0 ? 'No task has finished yet.' : null}
        />
      </div>
      <TaskTable evaluation={e} />
      <EvalPolicySection dir={e.dir} />
      <EvalCoverageSection dir={e.dir} />
    </section>
  );
}

const COLUMNS: { key: SortKey | null; label: string }[] = [
  { key: 'id', label: 'task' },
  { key: null, label: 'kind' },
  { key: null, label: 'size' },
  { key: 'score', label: 'score' },
  { key: null, label: 'stop' },
  { key: 'cost', label: 'cost' },
  { key: 'time', label: 'time' },
  { key: null, label: 'calls' },
];

function TaskTable({ evaluation: e }: { evaluation: EvalOverview }) {
  const svc = useServices();
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: 'id', desc: false });
  const rows = useMemo(() => sortRows(e.tasks, sort.key, sort.desc), [e, sort]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virt = useVirtualizer({ count: rows.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_H, overscan: 12 });
  const by = (key: SortKey): void => setSort((s) => ({ key, desc: s.key === key ? !s.desc : key !== 'id' }));
  return (
    <div className="eval-table" role="table" aria-label="Tasks" aria-rowcount={rows.length + 1} data-testid="eval-table">
      <div className="eval-row eval-head" role="row">
        {COLUMNS.map((c) => (
          <span
            key={c.label}
            role="columnheader"
            aria-sort={c.key !== null && sort.key === c.key ? (sort.desc ? 'descending' : 'ascending') : undefined}
          >
            {c.key !== null ? (
              <button type="button" className="link" onClick={() => by(c.key as SortKey)} data-testid={`eval-sort-${c.key}`}>
                {c.label}
                {sort.key === c.key ? (sort.desc ? ' ▾' : ' ▴') : ''}
              </button>
            ) : (
              c.label
            )}
          </span>
        ))}
      </div>
      <div ref={scrollRef} className="eval-scroll" role="rowgroup" style={{ height: Math.min(320, Math.max(1, rows.length) * ROW_H + 2) }}>
        <div style={{ height: virt.getTotalSize(), position: 'relative' }}>
          {virt.getVirtualItems().map((vi) => {
            const r = rows[vi.index] as EvalTaskRow;
            return (
              <div
                key={r.id}
                role="row"
                aria-rowindex={vi.index + 2}
                tabIndex={0}
                className={`eval-row ${r.correct ? 'ok' : r.score > 0 ? 'partial' : 'bad'}`}
                style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_H, transform: `translateY(${vi.start}px)` }}
                onClick={() => void openEvalTask(svc, e.dir, r.id)}
                onKeyDown={(ev) => {
                  if (ev.key === 'Enter') void openEvalTask(svc, e.dir, r.id);
                }}
                title={r.logFile ?? 'no log'}
                data-testid={`eval-row-${r.id}`}
              >
                <span role="cell">{r.id}</span>
                <span role="cell">{r.kind}</span>
                <span role="cell">{r.sizeTokens ?? '–'}</span>
                <span role="cell">
                  {r.correct ? '✓' : r.score > 0 ? '~' : '✗'} {r.score.toFixed(3)}
                </span>
                <span role="cell">{r.stopReason}</span>
                <span role="cell">{usd(r.costUsd)}</span>
                <span role="cell">{fmtMs(r.durationMs)}</span>
                <span role="cell">
                  {r.calls}
                  {r.retries ? <RetriesNote retries={r.retries} /> : null}
                </span>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

function EvalCompare() {
  const svc = useServices();
  const evals = useStudio((s) => s.evals);
  const { a, b } = useStudio((s) => s.evalView);
  const ea = a ? evals.get(a) : undefined;
  const eb = b ? evals.get(b) : undefined;
  const cmp = useMemo(() => (ea && eb ? compareEvals(ea, eb) : null), [ea, eb]);
  const ta = useMemo(() => (ea ? evalTotals(ea) : null), [ea]);
  const tb = useMemo(() => (eb ? evalTotals(eb) : null), [eb]);
  const pick = (which: 'a' | 'b', value: string) => svc.store.getState().setEvalView({ [which]: value || null });
  const rows: [string, (t: NonNullable<typeof ta>) => string][] = [
    ['tasks finished', (t) => String(t.finished)],
    ['fully correct', (t) => String(t.correct)],
    ['accuracy (mean score)', (t) => pct(t.accuracy)],
    ['total cost', (t) => totalCostText(t.totalCostUsd, t.unpriced, t.finished, fmtUsd)],
    ['cost p50 / p95', (t) => (t.unpriced >= t.finished ? 'unknown' : `${fmtUsd(t.cost.p50)} / ${fmtUsd(t.cost.p95)}`)],
    ['runtime p50 / p95', (t) => `${fmtMs(t.time.p50)} / ${fmtMs(t.time.p95)}`],
  ];
  const only = (tasks: ComparedTask[], side: 'a' | 'b', dir: string, testId: string) => (
    <ul className="eval-only" data-testid={testId}>
      {tasks.map((t) => (
        <li key={t.taskId}>
          <button type="button" className="link" onClick={() => void openEvalTask(svc, dir, t[side].first)}>
            {t.taskId}
          </button>
          {cmp?.repeated ? (
            <span className="muted" title="correct sessions / sessions, in A and in B">
              {' '}
              {t.a.correct}/{t.a.sessions} vs {t.b.correct}/{t.b.sessions}
            </span>
          ) : null}
        </li>
      ))}
      {tasks.length === 0 ? <li className="muted">none</li> : null}
    </ul>
  );
  return (
    <section className="eval-compare" data-testid="eval-compare">
      <h3>Compare two evaluations</h3>
      <div className="compare-pick">
        {(['a', 'b'] as const).map((w) => (
          <select
            key={w}
            aria-label={`Evaluation ${w.toUpperCase()}`}
            value={(w === 'a' ? a : b) ?? ''}
            onChange={(e) => pick(w, e.target.value)}
            data-testid={`eval-compare-${w}`}
          >
            <option value="">— choose —</option>
            {[...evals.values()].map((e) => (
              <option key={e.dir} value={e.dir}>
                {e.name} — {e.dir}
              </option>
            ))}
          </select>
        ))}
      </div>
      {ea && eb && cmp && ta && tb ? (
        <>
          <table className="compare-table" data-testid="eval-compare-table">
            <thead>
              <tr>
                <th />
                <th>A: {ea.name}</th>
                <th>B: {eb.name}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map(([label, f]) => (
                <tr key={label} className={f(ta) !== f(tb) ? 'differs' : ''}>
                  <th>{label}</th>
                  <td>{f(ta)}</td>
                  <td>{f(tb)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p data-testid="eval-compare-counts">
            Of {cmp.common} tasks in both: {cmp.both} solved by both, {cmp.neither} by neither, {cmp.onlyA.length} only by A,{' '}
            {cmp.onlyB.length} only by B.
            {cmp.missingInA.length + cmp.missingInB.length > 0
              ? ` ${cmp.missingInB.length} task(s) only in A and ${cmp.missingInA.length} only in B are left out.`
              : ''}
            {cmp.repeated ? ' Repeated tasks count once: solved when at least half of their sessions are correct.' : ''}
          </p>
          <EvalPaired a={ea} b={eb} />
          <EvalPolicyCompare a={ea.dir} b={eb.dir} />
          <div className="eval-only-lists">
            <div>
              <h4>Only A ({ea.name}) solved</h4>
              {only(cmp.onlyA, 'a', ea.dir, 'eval-only-a')}
            </div>
            <div>
              <h4>Only B ({eb.name}) solved</h4>
              {only(cmp.onlyB, 'b', eb.dir, 'eval-only-b')}
            </div>
          </div>
        </>
      ) : (
        <p className="muted">Open two evaluations (e.g. two configurations on the same dataset) and choose them as A and B.</p>
      )}
    </section>
  );
}
