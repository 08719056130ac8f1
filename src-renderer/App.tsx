import { useEffect, useLayoutEffect, useRef, useState, type DragEvent, type ReactNode } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { ChartsView } from './charts/Charts.tsx';
import { usePrefs } from './store/prefs.ts';
import { CompareView } from './views/CompareView.tsx';
import { CoveragePanel, CoverageStrips } from './views/CoverageView.tsx';
import { EvaluationView } from './views/EvaluationView.tsx';
import { FindingsView } from './views/findings/FindingsView.tsx';
import { PolicyView } from './views/PolicyView.tsx';
import { Controls } from './views/Controls.tsx';
import { NewRunForm } from './views/new-run/NewRunForm.tsx';
import { ReplayBar } from './views/ReplayBar.tsx';
import { RunView } from './views/run/RunView.tsx';
import { RunsView } from './views/RunsView.tsx';
import { SearchView } from './views/SearchView.tsx';
import { SweepView } from './views/sweep/SweepView.tsx';
import { TreePanel } from './views/TreePanel.tsx';
import { ViewBoundary } from './views/ViewBoundary.tsx';
import { OpenFileButton, Welcome } from './views/Welcome.tsx';
import { useServices, useStudio } from './app/context.tsx';
import { evalFromHash, openEval } from './app/eval-services.ts';
import { useShortcuts } from './shortcuts.ts';
import { useSharedReader } from './app/shared-reader.tsx';
import type { Panel } from './store/studio.ts';

const PANELS: { id: Panel; label: string; key: string }[] = [
  { id: 'run', label: 'Run', key: '1' },
  { id: 'charts', label: 'Charts', key: '2' },
  { id: 'compare', label: 'Compare', key: '3' },
  { id: 'search', label: 'Search', key: '4' },
  { id: 'eval', label: 'Evaluation', key: '5' },
  { id: 'policy', label: 'Policy', key: '6' },
  { id: 'runs', label: 'Runs', key: '7' },
  { id: 'findings', label: 'Findings', key: '8' },
  { id: 'sweep', label: 'Sweep', key: '9' },
];
/** What a shared trajectory's reader can use: one session, no host. */
const READER_PANELS = PANELS.filter((p) => p.id === 'run' || p.id === 'charts' || p.id === 'search');
const PANEL_IDS = PANELS.map((p) => p.id);
const READER_PANEL_IDS = READER_PANELS.map((p) => p.id);

export function App() {
  const svc = useServices();
  const theme = usePrefs((p) => p.theme);
  const setPrefs = usePrefs((p) => p.set);
  const activeId = useStudio((s) => s.activeId);
  const panel = useStudio((s) => s.panel);
  const order = useStudio((s) => s.order);
  // Narrow selectors: a load commits a new `sessions` Map several times a second, and the
  // shell only needs whether the active session exists and the sessions' titles.
  const active = useStudio((s) => (s.activeId !== null && s.sessions.has(s.activeId) ? s.activeId : null));
  const titles = useStudio(useShallow((s) => s.order.map((id) => s.sessions.get(id)?.title ?? id)));
  const connection = useStudio((s) => s.connection);
  const notices = useStudio((s) => s.notices);
  const [dragging, setDragging] = useState(false);
  const [query, setQuery] = useState('');
  const [help, setHelp] = useState(false);
  const reader = useSharedReader();
  const panels = reader ? READER_PANELS : PANELS;
  useShortcuts(setHelp, reader ? READER_PANEL_IDS : PANEL_IDS);

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);

  // `rlm-studio view DIR` names an evaluation in the URL fragment.
  useEffect(() => {
    const dir = typeof window === 'undefined' ? null : evalFromHash(window.location.hash);
    if (dir && !svc.store.getState().evals.has(dir)) void openEval(svc, dir);
  }, [svc]);

  // Follow mode: select where the newest event of the active session happened.
  useEffect(() => {
    svc.store.setFollowHook((sessionId, runId, iteration) => {
      const st = svc.store.getState();
      if (!usePrefs.getState().follow || st.activeId !== sessionId || st.replay.has(sessionId)) return;
      const e = st.sessions.get(sessionId);
      if (!e || e.source !== 'host' || e.summary?.readOnly) return;
      const cur = st.selection.get(sessionId);
      if (cur?.runId === runId && cur.iteration === iteration) return;
      st.select(sessionId, { runId, iteration });
    });
    return () => svc.store.setFollowHook(null);
  }, [svc]);

  const onDrop = (e: DragEvent): void => {
    e.preventDefault();
    setDragging(false);
    if (reader) return;
    const files = [...e.dataTransfer.files];
    for (const f of files) void svc.openFile(f);
  };

  const closeActive = (): void => {
    if (active) void svc.closeSession(active);
  };
  const showWelcome =
    !active &&
    panel !== 'new' &&
    panel !== 'compare' &&
    panel !== 'eval' &&
    panel !== 'policy' &&
    panel !== 'runs' &&
    panel !== 'findings' &&
    panel !== 'sweep';
  return (
    <div
      className="app"
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={(e) => {
        if (e.currentTarget === e.target) setDragging(false);
      }}
      onDrop={onDrop}
    >
      <header className="topbar">
        <button type="button" className="brand link" onClick={() => svc.store.getState().setActive(null)}>
          RLM Studio
        </button>
        {reader ? null : <OpenFileButton />}
        {connection === 'open' ? (
          <>
            <OpenFileButton viaHost />
            <button type="button" onClick={() => svc.store.getState().setPanel('new')} data-testid="topbar-new-run">
              New run
            </button>
          </>
        ) : null}
        {reader ? null : (
          <>
            <select
              aria-label="Session"
              value={activeId ?? ''}
              onChange={(e) => void svc.openSession(e.target.value)}
              data-testid="session-select"
            >
              <option value="">— sessions ({order.length}) —</option>
              {order.map((id, i) => (
                <option key={id} value={id}>
                  {titles[i] ?? id}
                </option>
              ))}
            </select>
            <button
              type="button"
              onClick={() => activeId && void svc.closeSession(activeId)}
              disabled={!activeId}
              aria-label="Close this session"
              title="Close this session (frees its memory; nothing on disk is touched)"
              data-testid="session-close"
            >
              ×
            </button>
          </>
        )}
        <nav className="tabs" role="tablist">
          {panels.map((p) => (
            <button
              key={p.id}
              type="button"
              role="tab"
              aria-selected={panel === p.id}
              onClick={() => svc.store.getState().setPanel(p.id)}
              title={`Alt+${p.key}`}
              data-testid={`tab-${p.id}`}
            >
              {p.label}
            </button>
          ))}
        </nav>
        <span className="spacer" />
        {reader ? null : (
          <span className={`conn conn-${connection}`} title="Host connection" data-testid="connection">
            {connection === 'none' ? 'local only' : connection}
          </span>
        )}
        <button
          type="button"
          onClick={() => setPrefs({ theme: theme === 'dark' ? 'light' : 'dark' })}
          aria-label="Toggle theme"
          data-testid="theme"
        >
          {theme === 'dark' ? '☀' : '☾'}
        </button>
        <button type="button" onClick={() => setHelp((h) => !h)} aria-label="Keyboard shortcuts">
          ?
        </button>
      </header>
      <div className="notices" role="status" aria-live="polite">
        {notices.map((n) => (
          <div key={n.id} className={`notice ${n.kind}`}>
            {n.text}
            <button type="button" className="link" onClick={() => svc.store.getState().dismiss(n.id)} aria-label="Dismiss">
              ×
            </button>
          </div>
        ))}
      </div>
      {help ? <Shortcuts onClose={() => setHelp(false)} panels={panels} /> : null}
      <main className="main">
        {showWelcome ? (
          <Welcome needs={panel === 'charts' || panel === 'search' ? (PANELS.find((p) => p.id === panel)?.label ?? null) : null} />
        ) : panel === 'new' ? (
          <ViewBoundary key="new" what="the new-run form">
            <NewRunForm />
          </ViewBoundary>
        ) : panel === 'compare' ? (
          <ViewBoundary key="compare" what="the comparison">
            <CompareView />
          </ViewBoundary>
        ) : panel === 'eval' ? (
          <ViewBoundary key="eval" what="the Evaluation view">
            <EvaluationView />
          </ViewBoundary>
        ) : panel === 'policy' ? (
          <ViewBoundary key="policy" what="the Policy view">
            <PolicyView />
          </ViewBoundary>
        ) : panel === 'runs' ? (
          <ViewBoundary key="runs" what="the runs browser">
            <RunsView />
          </ViewBoundary>
        ) : panel === 'findings' ? (
          <ViewBoundary key="findings" what="the Findings view">
            <FindingsView />
          </ViewBoundary>
        ) : panel === 'sweep' ? (
          <ViewBoundary key="sweep" what="the Sweep view">
            <SweepView />
          </ViewBoundary>
        ) : active ? (
          <>
            <aside className="left">
              {/* A fault in one session's views stays with it: another session shown gets a fresh try. */}
              <ViewBoundary what="this session's tree and controls" resetKey={active} onClose={closeActive} closeText="Close this session">
                {/* Keyed: what is unfolded in one session's controls (problems, variables, re-execute) is not another's. */}
                <Controls key={active} sessionId={active} />
                <div className="tree-with-coverage">
                  <TreePanel sessionId={active} />
                  <CoverageStrips sessionId={active} />
                </div>
                <CoveragePanel sessionId={active} />
              </ViewBoundary>
            </aside>
            <CenterPane sessionId={active} panel={panel}>
              <ViewBoundary
                what={`this session's ${panel === 'charts' ? 'charts' : panel === 'search' ? 'search' : 'run view'}`}
                resetKey={`${active} ${panel}`}
                onClose={closeActive}
                closeText="Close this session"
              >
                {panel === 'charts' ? (
                  <ChartsView sessionId={active} />
                ) : panel === 'search' ? (
                  <SearchView sessionId={active} query={query} setQuery={setQuery} />
                ) : (
                  <RunView sessionId={active} />
                )}
              </ViewBoundary>
            </CenterPane>
          </>
        ) : null}
      </main>
      {active ? (
        <ViewBoundary what="the replay bar" resetKey={active}>
          <ReplayBar sessionId={active} />
        </ViewBoundary>
      ) : null}
      {dragging && !reader ? <div className="drop-overlay">Drop a log to open it</div> : null}
    </div>
  );
}

/**
 * The scrolling pane of the Run, Charts and Search panels. One scroll container serves them
 * all, so each panel, session and run starts at its top rather than where the last one was
 * left. (A view that scrolls to what the user picked does so in a later, passive effect.)
 */
function CenterPane({ sessionId, panel, children }: { sessionId: string; panel: Panel; children: ReactNode }) {
  const ref = useRef<HTMLElement>(null);
  const runId = useStudio((s) => s.selection.get(sessionId)?.runId ?? null);
  useLayoutEffect(() => {
    if (ref.current) ref.current.scrollTop = 0;
  }, [sessionId, panel, runId]);
  return (
    <section className="center" ref={ref} data-testid="center-pane">
      {children}
    </section>
  );
}

function Shortcuts({ onClose, panels }: { onClose(): void; panels: typeof PANELS }) {
  const reader = useSharedReader();
  const rows: [string, string][] = [
    ...(reader ? [] : [['Ctrl+O', 'open a log file'] as [string, string]]),
    ['Ctrl+F or /', 'search the session'],
    [`Alt+1…${panels.length}`, panels.map((p) => p.label).join(', ')],
    ['j / k', 'next / previous iteration'],
    ['u', 'parent run'],
    ['[ / ]', 'previous / next turn'],
    ...(reader ? [] : [['F6 / F8 / F10', 'pause / continue / step'] as [string, string]]),
    ['r', 'replay'],
    ['t', 'toggle theme'],
    ['?', 'this help'],
  ];
  return (
    <div className="help" role="dialog" aria-label="Keyboard shortcuts">
      <table>
        <tbody>
          {rows.map(([k, v]) => (
            <tr key={k}>
              <th>
                <kbd>{k}</kbd>
              </th>
              <td>{v}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" onClick={onClose}>
        Close
      </button>
    </div>
  );
}
