// Live controls of a host session: pause/step/continue/cancel, breakpoints, follow,
// variables, export.
import { memo, useState } from 'react';
import type { Breakpoint, BreakpointKind, SessionStatus } from '../../src-shared/protocol.ts';
import { useServices, useStudio } from '../app/context.tsx';
import { useSharedReader } from '../app/shared-reader.tsx';
import { usePrefs } from '../store/prefs.ts';
import { hostIdOf } from '../store/studio.ts';
import { contextNeedOf } from './ContextFields.tsx';
import { ProblemList, problemCount } from './ProblemList.tsx';
import { RerunForm } from './RerunForm.tsx';
import { STILL_LOADING } from './still-loading.ts';

const KINDS: { kind: BreakpointKind; label: string }[] = [
  { kind: 'before_model_call', label: 'before model call' },
  { kind: 'after_reply', label: 'after reply' },
  { kind: 'after_block', label: 'after block' },
  { kind: 'on_error', label: 'on error' },
  { kind: 'on_subcall_start', label: 'on sub-call' },
];

const NOTHING_TO_EXPORT = 'Nothing to export: this session has no events yet';

/** A failed session's message says why; a saved log's, which lines could not be read; others' are notes (a fork's replay counts). */
const MESSAGE_CLASS: Partial<Record<SessionStatus, string>> = { failed: 'error', saved: 'warn' };

// memo: this view reads its own slices; App re-renders only when the panel, the active session or a title changes.

export const Controls = memo(function Controls({ sessionId }: { sessionId: string }) {
  const svc = useServices();
  const entry = useStudio((s) => s.sessions.get(sessionId));
  const bps = useStudio((s) => s.breakpoints.get(sessionId)) ?? [];
  const connected = useStudio((s) => s.connection === 'open');
  const selRun = useStudio((s) => s.selection.get(sessionId)?.runId ?? null);
  const vars = useStudio((s) => s.variables);
  const follow = usePrefs((p) => p.follow);
  const setPrefs = usePrefs((p) => p.set);
  const [showVars, setShowVars] = useState(false);
  const [rerunning, setRerunning] = useState(false);
  // A shared trajectory's reader is not told how this page loaded it, nor that it is "local".
  const reader = useSharedReader();
  if (!entry) return null;
  const summary = entry.summary;
  const live =
    entry.source === 'host' &&
    summary !== null &&
    !summary.readOnly &&
    (summary.status === 'running' || summary.status === 'paused' || summary.status === 'starting');
  const paused = summary?.status === 'paused';
  const hostId = hostIdOf(entry);
  // Exports are of the whole session: none of a log half read, none of a session with no events.
  const loading = entry.loading !== null;
  const empty = entry.events.length === 0;
  const cannotExport = loading ? STILL_LOADING : empty ? NOTHING_TO_EXPORT : null;
  const toggleBp = (kind: BreakpointKind): void => {
    const next: Breakpoint[] = bps.some((b) => b.kind === kind) ? bps.filter((b) => b.kind !== kind) : [...bps, { kind }];
    if (hostId) void svc.setBreakpoints(hostId, next);
  };
  return (
    <div className="controls" aria-label="Session controls">
      <div className="status-line">
        {reader && !summary && !entry.loading ? null : (
          <span className={`badge status-${summary?.status ?? 'saved'}`} data-testid="session-status">
            {summary?.status ?? (entry.loading ? 'loading' : 'local')}
          </span>
        )}
        {summary?.pause ? (
          <span className="pause-info" data-testid="pause-info">
            paused: {summary.pause.kind} · {summary.pause.runId} it {summary.pause.iteration}
          </span>
        ) : null}
        {entry.loading ? <progress max={entry.loading.total} value={entry.loading.bytes} aria-label="Loading" /> : null}
      </div>
      {/* The host's word on the session: why it failed or stopped, or lines it could not read in a saved log. */}
      {summary?.message ? (
        <div className={MESSAGE_CLASS[summary.status] ?? 'muted'} data-testid="session-message">
          {summary.message}
        </div>
      ) : null}
      {live ? (
        <div className="buttons">
          <button
            type="button"
            disabled={paused}
            onClick={() => void svc.control(sessionId, 'pause')}
            data-testid="pause"
            title="Pause (F6)"
          >
            ⏸ Pause
          </button>
          <button
            type="button"
            disabled={!paused}
            onClick={() => void svc.control(sessionId, 'step')}
            data-testid="step"
            title="Step (F10)"
          >
            ⤼ Step
          </button>
          <button
            type="button"
            disabled={!paused}
            onClick={() => void svc.control(sessionId, 'continue')}
            data-testid="continue"
            title="Continue (F8)"
          >
            ▶ Continue
          </button>
          <button type="button" onClick={() => void svc.control(sessionId, 'cancel')} data-testid="cancel">
            ■ Cancel
          </button>
        </div>
      ) : null}
      {live ? (
        <fieldset className="bps">
          <legend>Breakpoints</legend>
          {KINDS.map((k) => (
            <label key={k.kind}>
              <input
                type="checkbox"
                checked={bps.some((b) => b.kind === k.kind)}
                onChange={() => toggleBp(k.kind)}
                data-testid={`bp-${k.kind}`}
              />{' '}
              {k.label}
            </label>
          ))}
        </fieldset>
      ) : null}
      {live ? (
        <label className="follow">
          <input type="checkbox" checked={follow} onChange={(e) => setPrefs({ follow: e.target.checked })} data-testid="follow" /> follow
          the live run
        </label>
      ) : null}
      <div className="buttons">
        <button
          type="button"
          onClick={() => void svc.exportSession(sessionId, 'native')}
          disabled={cannotExport !== null}
          title={cannotExport ?? 'This session as a log in our format'}
          data-testid="export-native"
        >
          Export native
        </button>
        <button
          type="button"
          onClick={() => void svc.exportSession(sessionId, 'rlm-python')}
          disabled={cannotExport !== null}
          title={cannotExport ?? "This session as a log in the reference library's format"}
          data-testid="export-rlm-python"
        >
          Export rlm-python
        </button>
        {svc.canShareHtml ? (
          <button
            type="button"
            onClick={() => void svc.exportShareableHtml(sessionId)}
            disabled={cannotExport !== null}
            title={cannotExport ?? 'One HTML file with a read-only viewer and this log: opens in any browser, offline'}
            data-testid="export-html"
          >
            Export shareable HTML
          </button>
        ) : null}
        {hostId && connected && selRun ? (
          <button
            type="button"
            onClick={() => {
              setShowVars(true);
              void svc.loadVariables(hostId, selRun);
            }}
            data-testid="load-vars"
          >
            Variables
          </button>
        ) : null}
        {connected && !live && entry.events.length > 0 && !loading ? (
          <button
            type="button"
            aria-expanded={rerunning}
            onClick={() => setRerunning((r) => !r)}
            title="Run every recorded code block again and compare the outputs"
            data-testid="rerun"
          >
            Re-execute…
          </button>
        ) : null}
      </div>
      {rerunning ? <RerunForm sessionId={sessionId} context={contextNeedOf(entry)} onDone={() => setRerunning(false)} /> : null}
      {showVars && vars && vars.sessionId === hostId ? (
        <div className="vars" data-testid="variables">
          <table>
            <thead>
              <tr>
                <th scope="col">name</th>
                <th scope="col">type</th>
                <th scope="col" title="len() in Python; length or key count in JavaScript">
                  size
                </th>
                <th scope="col">value</th>
              </tr>
            </thead>
            <tbody>
              {vars.list.length === 0 ? (
                <tr>
                  <td colSpan={4} className="muted">
                    no variables yet
                  </td>
                </tr>
              ) : null}
              {vars.list.map((v) => (
                <tr key={v.name} data-testid={`var-${v.name}`}>
                  <td>
                    <code>{v.name}</code>
                  </td>
                  <td>{v.type}</td>
                  <td>{v.size ?? ''}</td>
                  <td className="clip">{v.preview}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {entry.problems.length > 0 ? (
        <details className="problems">
          <summary>{problemCount(entry.problems)} reading the log</summary>
          <ProblemList problems={entry.problems} />
        </details>
      ) : null}
      {entry.timings?.fullMs != null && !reader ? (
        <div className="timings" data-testid="timings">
          first view {Math.round(entry.timings.firstViewMs ?? 0)} ms · loaded {Math.round(entry.timings.fullMs)} ms ·{' '}
          {entry.events.length.toLocaleString('en-US')} events
          {entry.timings.parsedMs != null ? ` · worker done at ${Math.round(entry.timings.parsedMs)} ms` : ''}
          {entry.timings.spent
            ? ` (read ${Math.round(entry.timings.spent.read)} · decode ${Math.round(entry.timings.spent.decode)} · parse ${Math.round(entry.timings.spent.parse)} · post ${Math.round(entry.timings.spent.post)} ms)`
            : ''}
        </div>
      ) : null}
    </div>
  );
});
