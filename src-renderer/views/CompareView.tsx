// Two sessions side by side: outcome, cost, time, depth, sub-calls, first divergence.
import { useMemo } from 'react';
import { logTotals, type TrajectoryState } from '../../src-shared/trajectory/index.ts';
import { useServices, useStudio } from '../app/context.tsx';
import { firstDivergence } from '../lib/divergence.ts';
import { fmtCost, fmtMs, fmtTokens } from '../lib/format.ts';
import { DivergenceSides } from './DivergenceSides.tsx';

function outcome(t: TrajectoryState): string {
  const root = t.roots[0] ? t.runs.get(t.roots[0]) : undefined;
  if (!root) return '—';
  if (!root.end) return 'running';
  return `${root.end.stopReason}${root.end.answer ? `: ${root.end.answer.slice(0, 80)}` : ''}`;
}

/** Until two sessions are chosen: the active one and the first other one open. */
function defaultPair(order: readonly string[], activeId: string | null): { a: string | null; b: string | null } {
  if (order.length < 2) return { a: null, b: null };
  const a = activeId !== null && order.includes(activeId) ? activeId : (order[0] as string);
  return { a, b: order.find((id) => id !== a) ?? null };
}

export function CompareView() {
  const svc = useServices();
  const sessions = useStudio((s) => s.sessions);
  const order = useStudio((s) => s.order);
  const activeId = useStudio((s) => s.activeId);
  const chosen = useStudio((s) => s.compare);
  const { a, b } = chosen.a === null && chosen.b === null ? defaultPair(order, activeId) : chosen;
  const ea = a ? sessions.get(a) : undefined;
  const eb = b ? sessions.get(b) : undefined;
  const rows = useMemo(() => {
    if (!ea || !eb) return null;
    // One walk of each session: its counts, and what is and is not known of its usage.
    const sa = logTotals(ea.traj);
    const sb = logTotals(eb.traj);
    const r = (label: string, x: string, y: string) => ({ label, a: x, b: y, differs: x !== y });
    return [
      r('outcome', outcome(ea.traj), outcome(eb.traj)),
      r('cost', fmtCost(sa, { none: 'unknown' }), fmtCost(sb, { none: 'unknown' })),
      r('time', fmtMs(Math.round(sa.wallMs)), fmtMs(Math.round(sb.wallMs))),
      r('max depth', String(sa.maxDepth), String(sb.maxDepth)),
      r('runs', String(sa.runs), String(sb.runs)),
      r('iterations', String(sa.iterations), String(sb.iterations)),
      r('llm sub-calls', String(sa.llmCalls), String(sb.llmCalls)),
      r('rlm sub-calls (child runs)', String(sa.rlmCalls), String(sb.rlmCalls)),
      r('code errors', String(sa.errors), String(sb.errors)),
      r(
        'tokens in / out',
        `${fmtTokens(sa.inputTokens, sa)} / ${fmtTokens(sa.outputTokens, sa)}`,
        `${fmtTokens(sb.inputTokens, sb)} / ${fmtTokens(sb.outputTokens, sb)}`,
      ),
    ];
  }, [ea, eb]);
  const div = useMemo(() => (ea && eb ? firstDivergence(ea.traj, eb.traj) : null), [ea, eb]);
  // The table re-derives at every commit; while a side loads it says so, as its figures will still change.
  const loadingSides = [ea, eb].filter((e) => e?.loading != null).map((e) => e?.title ?? '');
  // The other side stays what is shown, chosen or not.
  const pick = (which: 'a' | 'b', value: string) => svc.store.getState().setCompare({ a, b, [which]: value || null });
  return (
    <div className="compare" data-testid="compare">
      <h2>Compare sessions</h2>
      <div className="compare-pick">
        {(['a', 'b'] as const).map((w) => (
          <select
            key={w}
            aria-label={`Session ${w.toUpperCase()}`}
            value={(w === 'a' ? a : b) ?? ''}
            onChange={(e) => pick(w, e.target.value)}
            data-testid={`compare-${w}`}
          >
            <option value="">— choose —</option>
            {order.map((id) => (
              <option key={id} value={id}>
                {sessions.get(id)?.title ?? id}
              </option>
            ))}
          </select>
        ))}
      </div>
      {rows ? (
        <>
          <table className="compare-table">
            <thead>
              <tr>
                <th />
                <th>{ea?.title}</th>
                <th>{eb?.title}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.label} className={r.differs ? 'differs' : ''}>
                  <th>{r.label}</th>
                  <td>{r.a}</td>
                  <td>{r.b}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {loadingSides.length > 0 ? (
            <p className="muted" data-testid="compare-loading">
              Still loading: {loadingSides.join(', ')}. The figures and the divergence are of what is read so far.
            </p>
          ) : null}
          <p data-testid="divergence">
            {div ? (
              <>
                First divergence at root iteration <b>{div.iteration}</b> ({div.why}).
              </>
            ) : (
              'The root runs do not diverge (same replies, code and output).'
            )}
          </p>
          {div && ea && eb ? (
            <DivergenceSides
              div={div}
              titles={[ea.title, eb.title]}
              onOpen={(side) => {
                const st = svc.store.getState();
                const e = side === 'a' ? ea : eb;
                st.select(e.id, { runId: e.traj.roots[0] ?? null, iteration: div.iteration });
                st.setActive(e.id);
                st.setPanel('run');
              }}
            />
          ) : null}
        </>
      ) : (
        <p className="muted" data-testid="compare-empty">
          {order.length < 2
            ? 'Compare needs two sessions: open another log (Open file…, Open in host…) or start a new run.'
            : 'Choose two loaded sessions.'}
        </p>
      )}
    </div>
  );
}
