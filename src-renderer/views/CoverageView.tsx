// The context coverage map: strips beside the tree showing the whole context top to bottom,
// coloured by who saw each part (the session; the selected run; the selected iteration), and
// a panel under the tree to pick the context file (or, once the session has ended, to use the
// one the host knows it ran on without asking), with the figures and the largest spans no model saw. Clicking a span opens the iteration or sub-call that saw it.
import { useEffect, useMemo, useRef, useState, type MouseEvent } from 'react';
import type { CoverageFigures, CoverageReport, CoverageRole, CoverageSpan } from '../../src-shared/analysis/coverage.ts';
import { useCoverage, useServices, useStudio } from '../app/context.tsx';
import { computeCoverage, computeCoverageFromHost, hostContextOf, type HostContext } from '../app/coverage-services.ts';
import { fmtInt } from '../lib/format.ts';
import type { CoverageScope } from '../store/coverage.ts';
import { viewRev, viewTraj } from '../store/studio.ts';
import type { Services } from '../app/services.ts';

const ROLE_COLOUR: Record<CoverageRole, string> = { root: '#2e9d4a', subcall: '#2f6fd0', child: '#e08a1e' };
const ROLE_LABEL: Record<CoverageRole, string> = {
  root: 'seen by the model',
  subcall: 'sent to a sub-call',
  child: 'given to a child run',
};
const UNSEEN_COLOUR = 'rgba(128, 128, 128, 0.25)';
/** Painted last so that what a model saw shows over what it only passed on. */
const PAINT_ORDER: CoverageRole[] = ['child', 'subcall', 'root'];
const PRIORITY: Record<CoverageRole, number> = { root: 0, subcall: 1, child: 2 };

/** The run and iteration the run view shows: the selection, else the first root and the run's last iteration. */
function useShown(sessionId: string): { runId: string | null; iteration: number | null } {
  const sel = useStudio((s) => s.selection.get(sessionId));
  const traj = useStudio((s) => viewTraj(s, sessionId));
  useStudio((s) => viewRev(s, sessionId));
  const runId = sel?.runId ?? traj?.roots[0] ?? null;
  const its = runId ? (traj?.runs.get(runId)?.iterations ?? []) : [];
  return { runId, iteration: sel?.iteration ?? its[its.length - 1]?.iteration ?? null };
}

function spansIn(report: CoverageReport, scope: CoverageScope, runId: string | null, iteration: number | null): CoverageSpan[] {
  if (scope === 'session') return report.spans;
  if (scope === 'run') return report.spans.filter((s) => s.runId === runId);
  return report.spans.filter((s) => s.runId === runId && s.iteration === iteration);
}

/** Opens where a span was seen: the iteration, the sub-call (opened in its list), or the child run. */
function openSpan(svc: Services, sessionId: string, s: CoverageSpan): void {
  const st = svc.store.getState();
  if (s.role === 'child' && s.childRunId) st.select(sessionId, { runId: s.childRunId, iteration: null });
  else st.select(sessionId, { runId: s.runId, iteration: s.iteration });
  svc.store.coverage.getState().focus(s.role === 'subcall' ? s.callId : null);
  st.setPanel('run');
}

/**
 * Who got a span, naming the run: a `root` span is one its run's own model saw, which for a
 * span of a child run is not the session's root (whose figure may be 0 beside it).
 */
function whoGot(s: CoverageSpan): string {
  if (s.role === 'root') return `model of ${s.runId} · #${s.iteration}`;
  if (s.role === 'child') return `child ${s.childRunId ?? '?'} · from ${s.runId} #${s.iteration}`;
  return `sub-call · ${s.runId} #${s.iteration} · ${s.callId ?? '?'}`;
}

function describe(s: CoverageSpan): string {
  const where = s.callId !== null ? `call ${s.callId}` : s.block === null ? 'direct call' : `block ${s.block}`;
  return `${ROLE_LABEL[s.role]}: characters ${fmtInt(s.start)}–${fmtInt(s.end)} (${fmtInt(s.end - s.start)}), run ${s.runId}, iteration ${s.iteration}, ${where}`;
}

function Strip({ sessionId, report, scope }: { sessionId: string; report: CoverageReport; scope: CoverageScope }) {
  const svc = useServices();
  const { runId, iteration } = useShown(sessionId);
  const spans = useMemo(() => spansIn(report, scope, runId, iteration), [report, scope, runId, iteration]);
  const ref = useRef<HTMLCanvasElement>(null);
  const [height, setHeight] = useState(0);
  const total = report.session.contextChars;

  useEffect(() => {
    const el = ref.current?.parentElement;
    if (!el) return;
    const ro = new ResizeObserver(() => setHeight(el.clientHeight));
    ro.observe(el);
    setHeight(el.clientHeight);
    return () => ro.disconnect();
  }, []);

  useEffect(() => {
    const c = ref.current;
    const g = c?.getContext('2d');
    if (!c || !g || height === 0) return;
    const ratio = window.devicePixelRatio || 1;
    c.width = Math.round(c.clientWidth * ratio);
    c.height = Math.round(height * ratio);
    g.fillStyle = UNSEEN_COLOUR;
    g.fillRect(0, 0, c.width, c.height);
    if (total === 0) return;
    const scale = c.height / total;
    for (const role of PAINT_ORDER) {
      g.fillStyle = ROLE_COLOUR[role];
      for (const s of spans)
        if (s.role === role) g.fillRect(0, Math.floor(s.start * scale), c.width, Math.max(1, Math.ceil((s.end - s.start) * scale)));
    }
  }, [spans, height, total]);

  /** The span under the pointer (within a pixel's worth of characters), what a model saw first. */
  const spanAt = (e: MouseEvent<HTMLCanvasElement>): CoverageSpan | null => {
    const box = e.currentTarget.getBoundingClientRect();
    if (box.height === 0 || total === 0) return null;
    const at = ((e.clientY - box.top) / box.height) * total;
    const slack = total / box.height;
    let best: CoverageSpan | null = null;
    for (const s of spans) {
      if (s.start - slack <= at && at <= s.end + slack && (!best || PRIORITY[s.role] < PRIORITY[best.role])) best = s;
    }
    return best;
  };

  return (
    <div
      className="coverage-strip"
      title={scope === 'session' ? 'the whole session' : scope === 'run' ? 'the selected run' : 'the selected iteration'}
    >
      <span className="coverage-strip-label" aria-hidden="true">
        {scope === 'session' ? 'S' : scope === 'run' ? 'R' : 'I'}
      </span>
      <div className="coverage-strip-body">
        <canvas
          ref={ref}
          role="img"
          aria-label={`Context coverage of the ${scope}: ${spans.length} spans`}
          data-testid={`coverage-strip-${scope}`}
          onMouseMove={(e) => {
            const s = spanAt(e);
            e.currentTarget.title = s ? describe(s) : `${scope}: nothing here was seen (${fmtInt(total)} characters in all)`;
          }}
          onClick={(e) => {
            const s = spanAt(e);
            if (s) openSpan(svc, sessionId, s);
          }}
        />
      </div>
    </div>
  );
}

/** Three strips beside the tree once a map is computed: session, selected run, selected iteration. */
export function CoverageStrips({ sessionId }: { sessionId: string }) {
  const entry = useCoverage((s) => s.bySession.get(sessionId));
  if (entry?.status !== 'done') return null;
  return (
    <div className="coverage-strips" data-testid="coverage-strips">
      {(['session', 'run', 'iteration'] as const).map((scope) => (
        <Strip key={scope} sessionId={sessionId} report={entry.report} scope={scope} />
      ))}
    </div>
  );
}

/** A count with its share of the context under it: side by side, five columns overflowed a narrow sidebar. */
function Figure({ x, of }: { x: number; of: number }) {
  return (
    <td>
      {fmtInt(x)}
      {of === 0 ? null : <span className="coverage-pct">{((100 * x) / of).toFixed(1)}%</span>}
    </td>
  );
}

function FiguresRow({ label, f }: { label: string; f: CoverageFigures }) {
  return (
    <tr>
      <th>{label}</th>
      <Figure x={f.seenByRootChars} of={f.contextChars} />
      <Figure x={f.sentToSubcallsChars} of={f.contextChars} />
      <Figure x={f.sentToChildrenChars} of={f.contextChars} />
      <Figure x={f.unseenChars} of={f.contextChars} />
    </tr>
  );
}

/**
 * The largest context the panel maps by itself when the host has it: reading and indexing one
 * takes seconds from about 100 MB, too much for every saved session opened.
 */
const AUTO_MAX_BYTES = 32 << 20;

/** Under the tree: the context file picker, the legend and figures, the largest spans seen and unseen. */
export function CoveragePanel({ sessionId }: { sessionId: string }) {
  const svc = useServices();
  const entry = useCoverage((s) => s.bySession.get(sessionId));
  const loading = useStudio((s) => s.sessions.get(sessionId)?.loading != null);
  const status = useStudio((s) => s.sessions.get(sessionId)?.summary?.status ?? null);
  const running = status === 'running' || status === 'paused' || status === 'starting';
  const { runId } = useShown(sessionId);
  const report = entry?.status === 'done' ? entry.report : null;
  // The context the host says this session ran on (a live session's file or demo, a saved log's recipe).
  // Kept with the session it is of: on a switch of session the panel first renders with the
  // last one's answer, which the auto-map below took for the new session's context.
  const [asked, setAsked] = useState<{ sessionId: string; context: HostContext | null } | null>(null);
  const hostContext = asked?.sessionId === sessionId ? asked.context : null;
  useEffect(() => {
    let current = true;
    void hostContextOf(svc, sessionId).then((context) => {
      if (current) setAsked({ sessionId, context });
    });
    return () => {
      current = false;
    };
  }, [svc, sessionId]);
  // Used without asking once the session has ended; a running one's map would be of what ran so far, so that waits for a click.
  const hasEntry = entry !== undefined;
  useEffect(() => {
    if (!hostContext || hasEntry || running) return;
    if (hostContext.bytes !== null && hostContext.bytes > AUTO_MAX_BYTES) return;
    void computeCoverageFromHost(svc, sessionId, hostContext.name);
  }, [svc, sessionId, hostContext, hasEntry, running]);
  const runRow = report?.runs.find((r) => r.runId === runId) ?? null;
  const largestSeen = useMemo(
    () => (report ? [...report.spans].sort((a, b) => b.end - b.start - (a.end - a.start)).slice(0, 8) : []),
    [report],
  );
  return (
    <details className="coverage-panel" open data-testid="coverage-panel">
      <summary>Context coverage</summary>
      {hostContext !== null ? (
        <button
          type="button"
          className="link"
          data-testid="coverage-host-context"
          title="The context this session was started with, read from the host"
          onClick={() => void computeCoverageFromHost(svc, sessionId, hostContext.name)}
        >
          {running ? 'Map what ran so far on' : entry ? 'Map again from' : 'Use'} the session’s context: {hostContext.name}
        </button>
      ) : null}
      <label className="coverage-pick">
        <span>
          {entry
            ? `Context: ${entry.fileName}`
            : hostContext
              ? 'Or pick another context file:'
              : 'Pick the context file this session ran on:'}
        </span>
        <input
          type="file"
          aria-label="Context file for the coverage map"
          data-testid="coverage-file"
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (f) void computeCoverage(svc, sessionId, f);
            e.target.value = '';
          }}
        />
      </label>
      {entry?.status === 'working' ? (
        <div className="muted" data-testid="coverage-working">
          {loading ? 'Waiting for the log to finish loading (the map is of the whole session)…' : 'Matching the context in a worker…'}
        </div>
      ) : null}
      {entry?.status === 'error' ? <div className="warn">{entry.message}</div> : null}
      {entry?.status === 'done' && report ? (
        <>
          <div className="coverage-legend">
            {(['root', 'subcall', 'child'] as const).map((r) => (
              <span key={r}>
                <i style={{ background: ROLE_COLOUR[r] }} /> {ROLE_LABEL[r]}
              </span>
            ))}
            <span>
              <i style={{ background: UNSEEN_COLOUR }} /> no model
            </span>
          </div>
          <div className="coverage-strip-legend muted" data-testid="coverage-strip-legend">
            Strips beside the tree, the whole context from top to bottom: <b>S</b> the session · <b>R</b> the selected run · <b>I</b> the
            selected iteration.
          </div>
          <table className="coverage-figures" data-testid="coverage-figures">
            <thead>
              <tr>
                <th>{fmtInt(report.session.contextChars)} chars</th>
                <th title="Seen by the model of a root run (session) or of this run">root saw</th>
                <th>sub-calls</th>
                <th>children</th>
                <th>unseen</th>
              </tr>
            </thead>
            <tbody>
              <FiguresRow label="session" f={report.session} />
              {runRow ? <FiguresRow label="this run" f={runRow} /> : null}
            </tbody>
          </table>
          <div className="muted">
            Copies of at least {report.minSpanChars} characters count · {fmtInt(report.spans.length)} spans · {Math.round(entry.ms)} ms
          </div>
          {largestSeen.length > 0 ? (
            <>
              <h5>Largest spans seen</h5>
              <ul className="coverage-list">
                {largestSeen.map((s, i) => (
                  <li key={i}>
                    <button
                      type="button"
                      className="link"
                      onClick={() => openSpan(svc, sessionId, s)}
                      title={describe(s)}
                      data-testid="coverage-seen"
                    >
                      <i style={{ background: ROLE_COLOUR[s.role] }} /> {fmtInt(s.start)}–{fmtInt(s.end)} · {whoGot(s)}
                    </button>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          <h5>Largest spans no model saw</h5>
          <ul className="coverage-list" data-testid="coverage-unseen">
            {entry.largestUnseen.slice(0, 8).map((u) => (
              <li key={u.start} title={u.preview}>
                {fmtInt(u.start)}–{fmtInt(u.end)} · {fmtInt(u.end - u.start)} chars ·{' '}
                <span className="muted">{u.preview.slice(0, 60).replace(/\s+/g, ' ')}</span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </details>
  );
}
