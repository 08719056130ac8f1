// Policy metrics of the session a run belongs to, in the run view: every run of the tree
// with its iterations, code blocks, sub-calls per iteration, fan-out, batch sizes, where its
// tokens went, REPL vs model time, errors, resets and compactions, and the depth profile.
// Folded from the run tree the view already holds (no texts are read) and only while open.
import { useCallback, useState } from 'react';
import { runCostUsd, sessionMetrics, type MaxMean } from '../../src-shared/analysis/policy-metrics.ts';
import type { RunNode, TrajectoryState } from '../../src-shared/trajectory/index.ts';
import { useServices } from '../app/context.tsx';
import { ChartFrame, type Draw } from '../charts/Charts.tsx';
import { drawSplitBar, splitBarHeight } from '../charts/policy-charts.ts';
import { fmtInt, fmtMs, fmtUsd } from '../lib/format.ts';
import { useTrajectoryMemo } from '../lib/use-trajectory-memo.ts';

const RUN_PAGE = 100;

const mm = (m: MaxMean): string => (m.n === 0 ? '–' : `${m.max} / ${m.mean.toFixed(2)}`);
const tokensOf = (s: { inputTokens: number; outputTokens: number }): number => s.inputTokens + s.outputTokens;
/** No call recorded a price: unknown, not $0. */
const costText = (v: number | null): string => (v === null ? 'unknown' : fmtUsd(v));

export function RunPolicy({ sessionId, traj, run, rev }: { sessionId: string; traj: TrajectoryState; run: RunNode; rev: number }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="run-policy" open={open} onToggle={(e) => setOpen(e.currentTarget.open)} data-testid="run-policy">
      <summary>Policy metrics of this session</summary>
      {open ? <RunPolicyBody sessionId={sessionId} traj={traj} run={run} rev={rev} /> : null}
    </details>
  );
}

function RunPolicyBody({ sessionId, traj, run, rev }: { sessionId: string; traj: TrajectoryState; run: RunNode; rev: number }) {
  const svc = useServices();
  const m = useTrajectoryMemo(traj, rev, (t) => sessionMetrics(t, run.rootRunId), [run.rootRunId]);
  // The session's metrics hold every run of it, this one too.
  const sel = m.runs.find((r) => r.runId === run.id) ?? m.runs[0]!;
  const f = m.figures;
  // The first runs, more on request: hundreds of 16-cell rows at once are a long task on a big tree.
  const [shown, setShown] = useState(RUN_PAGE);
  const drawTokens = useCallback<Draw>(
    (svg, w) =>
      drawSplitBar(
        svg,
        [
          { label: 'root', cls: 'bar-a', value: tokensOf(sel.tokens.root) },
          { label: 'sub-calls', cls: 'bar-b', value: tokensOf(sel.tokens.subcalls) },
          { label: 'child runs', cls: 'bar-c', value: tokensOf(sel.tokens.children) },
        ],
        fmtInt,
        w,
      ),
    [sel],
  );
  return (
    <div data-testid="run-policy-body">
      <p className="run-meta" data-testid="run-policy-summary">
        session: {f.runs} run(s), depth {f.maxDepth}, {f.iterations} iterations, {f.codeBlocks} code blocks, {f.subcalls} sub-calls (
        {f.llmCalls} plain, {f.childRuns} child runs), largest fan-out {f.fanOutMax}, largest batch {f.batchSizeMax || '–'}; model{' '}
        {fmtMs(f.modelMs)} vs REPL {fmtMs(f.replMs)} (CPU {fmtMs(f.replCpuMs)}); {f.blockErrors} block error(s), {f.replResets} REPL
        reset(s), {f.compactions} compaction(s)
      </p>
      <ChartFrame
        title={`Tokens of run ${sel.runId}: its own turns / its plain sub-calls / its child runs`}
        testId="run-policy-tokens"
        height={splitBarHeight(3)}
        draw={drawTokens}
      />
      <table className="compare-table run-policy-runs" data-testid="run-policy-runs">
        <thead>
          <tr>
            <th>run</th>
            <th>depth</th>
            <th>iterations</th>
            <th>blocks</th>
            <th>sub-calls</th>
            <th title="max / mean over iterations">per iteration</th>
            <th title="max / mean over blocks that made calls">fan-out</th>
            <th title="max / mean over batched calls">batch</th>
            <th>tokens own / sub / child</th>
            <th>cost</th>
            <th>model</th>
            <th>REPL</th>
            <th>errors</th>
            <th>resets</th>
            <th>compactions</th>
            <th>stop</th>
          </tr>
        </thead>
        <tbody>
          {m.runs.slice(0, shown).map((r) => (
            <tr
              key={r.runId}
              className={r.runId === run.id ? 'selected' : ''}
              data-testid="run-policy-row"
              onClick={() => svc.store.getState().select(sessionId, { runId: r.runId, iteration: null })}
            >
              <th style={{ paddingLeft: `${r.depth * 12 + 4}px` }}>
                <code>{r.runId}</code>
              </th>
              <td>{r.depth}</td>
              <td>{r.iterations}</td>
              <td>{r.codeBlocks}</td>
              <td>
                {r.subcalls} ({r.llmCalls}+{r.childRuns})
              </td>
              <td>{mm(r.subcallsPerIteration)}</td>
              <td>{mm(r.fanOut)}</td>
              <td>{mm(r.batchSize)}</td>
              <td>
                {fmtInt(tokensOf(r.tokens.root))} / {fmtInt(tokensOf(r.tokens.subcalls))} / {fmtInt(tokensOf(r.tokens.children))}
              </td>
              <td>{costText(runCostUsd(r))}</td>
              <td>{fmtMs(r.modelMs)}</td>
              <td>{fmtMs(r.replMs)}</td>
              <td>{r.blockErrors + r.modelErrors + r.subcallErrors}</td>
              <td>{r.replResets}</td>
              <td>{r.compactions}</td>
              <td>{r.stopReason ?? '…'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {m.runs.length > shown ? (
        <p className="muted">
          The first {shown} of {m.runs.length} runs.{' '}
          <button type="button" className="link" onClick={() => setShown((n) => n + RUN_PAGE * 5)} data-testid="run-policy-more">
            Show {Math.min(RUN_PAGE * 5, m.runs.length - shown)} more
          </button>
        </p>
      ) : null}
      <table className="compare-table" data-testid="run-policy-depths">
        <thead>
          <tr>
            <th>depth</th>
            <th>runs</th>
            <th>iterations</th>
            <th>code blocks</th>
            <th>sub-calls</th>
            <th>tokens</th>
            <th>cost</th>
          </tr>
        </thead>
        <tbody>
          {m.depthProfile.map((d) => (
            <tr key={d.depth}>
              <th>{d.depth}</th>
              <td>{d.runs}</td>
              <td>{d.iterations}</td>
              <td>{d.codeBlocks}</td>
              <td>{d.subcalls}</td>
              <td>{fmtInt(d.inputTokens + d.outputTokens)}</td>
              <td>{costText(d.costUsd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
