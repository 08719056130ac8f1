// A sweep folder (`rlm-studio sweep -o DIR`): the cost–accuracy frontier of its configurations
// (the Pareto front marked), their figures, each axis's effect, and the paired comparison of
// any two configurations. Every figure is the host's reading of the folder with the same code
// as `rlm-studio sweep-summary DIR --json` (and `--compare A B` for the comparison).
import { useCallback, useMemo } from 'react';
import { sweepPairedSessions, type SweepOverview, type AxisValue } from '../../../src-shared/analysis/sweep.ts';
import { useServices, useStudio } from '../../app/context.tsx';
import { ChartFrame, type Draw } from '../../charts/Charts.tsx';
import { fmtInt, fmtMs, fmtUsd } from '../../lib/format.ts';
import { HostPathForm } from '../HostPathForm.tsx';
import { PairedTable } from '../PairedTable.tsx';
import { drawFrontier, FRONTIER_H } from './frontier-plot.ts';
import { useSweeps } from './sweep-store.ts';

const pct = (x: number | null): string => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);
const usd = (x: number | null): string => (x === null ? 'unknown' : fmtUsd(x));
const int = (x: number | null): string => (x === null ? '–' : fmtInt(Math.round(x)));
const ms = (x: number | null): string => (x === null ? '–' : fmtMs(x));

/** Opens a sweep folder on the host (again: reads it afresh, for a sweep still running). */
async function openSweep(svc: ReturnType<typeof useServices>, path: string): Promise<void> {
  try {
    if (!svc.host) throw new Error('no host connected (open the app through `rlm-studio serve`)');
    const { sweep } = await svc.host.call('sweep.open', { path });
    useSweeps.getState().show(sweep);
    if (sweep.problems.length > 0) svc.store.getState().notify('info', `${sweep.name}: ${sweep.problems.join('; ')}`);
  } catch (err) {
    svc.store.getState().notify('error', `could not open the sweep ${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export function SweepView() {
  const svc = useServices();
  const connected = useStudio((s) => s.connection === 'open');
  const sweeps = useSweeps((s) => s.sweeps);
  const activeDir = useSweeps((s) => s.active);
  const active = activeDir === null ? undefined : sweeps.get(activeDir);
  return (
    <div className="evaluation sweep" data-testid="sweep">
      <h2>Sweep</h2>
      <HostPathForm
        placeholder="/path/to/sweep-dir on the host (holds sweep.json)"
        label="Sweep directory on the host"
        submitText="Open sweep"
        onOpen={(path) => void openSweep(svc, path)}
        disabled={!connected}
        inputTestId="sweep-path"
        submitTestId="sweep-open"
      />
      {sweeps.size > 1 ? (
        <label className="eval-pick">
          Showing{' '}
          <select aria-label="Sweep" value={activeDir ?? ''} onChange={(e) => useSweeps.getState().pick({ active: e.target.value })}>
            {[...sweeps.values()].map((s) => (
              <option key={s.dir} value={s.dir}>
                {s.name} — {s.dir}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {active ? (
        <SweepDetail sweep={active} onReload={() => void openSweep(svc, active.dir)} />
      ) : (
        <p className="muted">Open the -o directory of `rlm-studio sweep` (it holds sweep.json).</p>
      )}
    </div>
  );
}

function SweepDetail({ sweep, onReload }: { sweep: SweepOverview; onReload: () => void }) {
  const s = sweep.summary;
  const finished = s.configs.filter((c) => c.state === 'finished').length;
  const plotted = s.configs.filter((c) => c.costPerTask !== null && c.accuracy !== null).length;
  const draw = useCallback<Draw>((svg, width) => drawFrontier(svg, s.configs, width), [s]);
  return (
    <>
      <p data-testid="sweep-summary">
        <strong>{sweep.name}</strong> — {sweep.dataset}: {s.configs.length} configurations over{' '}
        {s.axes.map((a) => `${a.name} (${a.values.length})`).join(' × ')}, {finished} finished.{' '}
        <button type="button" className="link" onClick={onReload} data-testid="sweep-reload">
          Read again
        </button>
      </p>
      <p className="muted">The same figures as `rlm-studio sweep-summary {sweep.dir} --json`.</p>
      <ChartFrame
        title="Cost–accuracy frontier (filled: the Pareto front)"
        testId="sweep-frontier"
        height={FRONTIER_H}
        draw={draw}
        empty={plotted === 0 ? 'No configuration has both an accuracy and a known cost yet.' : null}
      />
      <ConfigTable sweep={sweep} />
      <EffectsTable sweep={sweep} />
      <SweepCompare sweep={sweep} />
    </>
  );
}

function ConfigTable({ sweep }: { sweep: SweepOverview }) {
  const { a, b } = useSweeps();
  return (
    <section>
      <h3>Configurations</h3>
      <table className="compare-table" data-testid="sweep-configs">
        <thead>
          <tr>
            <th>#</th>
            <th>configuration</th>
            <th>state</th>
            <th>sessions</th>
            <th>accuracy</th>
            <th>cost / task</th>
            <th>cost</th>
            <th>tokens / task</th>
            <th>time / task</th>
            <th>Pareto</th>
            <th>compare</th>
          </tr>
        </thead>
        <tbody>
          {sweep.summary.configs.map((c, i) => (
            <tr key={c.id} data-testid={`sweep-config-${c.id}`} className={c.pareto ? 'differs' : ''}>
              <td>#{i + 1}</td>
              <th title={c.id}>{c.name}</th>
              <td>{c.state}</td>
              <td>
                {c.sessions}
                {c.sessionsPlanned === null ? '' : ` / ${c.sessionsPlanned}`}
              </td>
              <td>{pct(c.accuracy)}</td>
              <td>{usd(c.costPerTask)}</td>
              <td>
                {usd(c.costUsd)}
                {c.unpriced > 0 ? <span className="muted"> ({c.unpriced} unpriced)</span> : null}
              </td>
              <td>{int(c.tokensPerTask)}</td>
              <td>{ms(c.timePerTaskMs)}</td>
              <td>{c.pareto ? '◆' : ''}</td>
              <td>
                <button
                  type="button"
                  className="link"
                  aria-pressed={a === c.id}
                  onClick={() => useSweeps.getState().pick({ a: c.id })}
                  data-testid={`sweep-pick-a-${c.id}`}
                >
                  A
                </button>{' '}
                <button
                  type="button"
                  className="link"
                  aria-pressed={b === c.id}
                  onClick={() => useSweeps.getState().pick({ b: c.id })}
                  data-testid={`sweep-pick-b-${c.id}`}
                >
                  B
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

const valueText = (v: AxisValue): string => String(v);

function EffectsTable({ sweep }: { sweep: SweepOverview }) {
  return (
    <section data-testid="sweep-effects">
      <h3>Per-axis effects</h3>
      <p className="muted">For each value of an axis, the mean over the configurations that have it: the other axes averaged out.</p>
      <table className="compare-table">
        <thead>
          <tr>
            <th>axis</th>
            <th>value</th>
            <th>configurations</th>
            <th>accuracy</th>
            <th>cost / task</th>
            <th>tokens / task</th>
            <th>time / task</th>
          </tr>
        </thead>
        <tbody>
          {sweep.summary.effects.flatMap((e) =>
            e.values.map((v, i) => (
              <tr key={`${e.axis}=${valueText(v.value)}`} data-testid={`sweep-effect-${e.axis}-${valueText(v.value)}`}>
                {i === 0 ? (
                  <th rowSpan={e.values.length}>
                    {e.axis}
                    {e.accuracyRange === null ? null : <div className="muted">accuracy range {pct(e.accuracyRange)}</div>}
                  </th>
                ) : null}
                <td>{valueText(v.value)}</td>
                <td>{v.configs}</td>
                <td>{pct(v.accuracy)}</td>
                <td>{usd(v.costPerTask)}</td>
                <td>{int(v.tokensPerTask)}</td>
                <td>{ms(v.timePerTaskMs)}</td>
              </tr>
            )),
          )}
        </tbody>
      </table>
    </section>
  );
}

function SweepCompare({ sweep }: { sweep: SweepOverview }) {
  const { a, b } = useSweeps();
  const configs = sweep.summary.configs;
  const ca = configs.find((c) => c.id === a);
  const cb = configs.find((c) => c.id === b);
  const sa = useMemo(() => sweepPairedSessions(a === null ? [] : (sweep.sessions[a] ?? [])), [sweep, a]);
  const sb = useMemo(() => sweepPairedSessions(b === null ? [] : (sweep.sessions[b] ?? [])), [sweep, b]);
  const pick = (side: 'a' | 'b', id: string) => useSweeps.getState().pick({ [side]: id });
  return (
    <section data-testid="sweep-compare">
      <h3>Compare two configurations</h3>
      <p>
        {(['a', 'b'] as const).map((side) => (
          <label key={side} className="eval-pick">
            {side.toUpperCase()}{' '}
            <select
              aria-label={`Configuration ${side.toUpperCase()}`}
              value={(side === 'a' ? a : b) ?? ''}
              onChange={(e) => pick(side, e.target.value)}
              data-testid={`sweep-compare-${side}`}
            >
              {configs.map((c, i) => (
                <option key={c.id} value={c.id}>
                  #{i + 1} {c.name}
                </option>
              ))}
            </select>{' '}
          </label>
        ))}
      </p>
      {ca && cb ? (
        <PairedTable
          a={sa}
          b={sb}
          source={`The same numbers as rlm-studio sweep-summary ${sweep.dir} --compare ${ca.id} ${cb.id} --json.`}
        />
      ) : (
        <p className="muted">Pick two configurations.</p>
      )}
    </section>
  );
}
