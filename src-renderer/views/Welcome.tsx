// The start page: open a log, recent runs from the runs directory, start a run.
import { useServices, useStudio } from '../app/context.tsx';
import { HostPathForm } from './HostPathForm.tsx';

/** `needs`: the panel the user picked, which shows a session (none is open yet). */
export function Welcome({ needs = null }: { needs?: string | null }) {
  const svc = useServices();
  const recent = useStudio((s) => s.recent);
  const connected = useStudio((s) => s.connection === 'open');
  const sessions = useStudio((s) => s.sessions);
  const order = useStudio((s) => s.order);
  return (
    <div className="welcome">
      <h1>RLM Studio</h1>
      {needs ? (
        <p className="notice info" data-testid="welcome-needs">
          {needs} shows the open session: open a log or start a run first.
        </p>
      ) : null}
      <p>Drop a log file (native .rlm.jsonl or the reference library's JSONL) anywhere on this window, or:</p>
      <div className="buttons">
        <OpenFileButton testId="open-file-welcome" />
        {connected ? (
          <>
            <button type="button" className="primary" onClick={() => svc.store.getState().setPanel('new')} data-testid="new-run">
              New run…
            </button>
            <button type="button" onClick={() => svc.store.getState().setPanel('runs')} data-testid="welcome-runs">
              Runs and evaluations…
            </button>
          </>
        ) : null}
      </div>
      {connected ? (
        <OpenPath />
      ) : (
        <p className="muted">Not connected to a host: logs open locally; running, fork and recent runs need `rlm-studio serve`.</p>
      )}
      {order.length > 0 ? (
        <>
          <h2>Sessions</h2>
          <ul className="recent">
            {order.map((id) => {
              const e = sessions.get(id);
              return e ? (
                <li key={id}>
                  <button type="button" className="link" onClick={() => void svc.openSession(id)}>
                    {e.title}
                  </button>{' '}
                  <span className="muted">{e.summary?.status ?? e.source}</span>
                </li>
              ) : null;
            })}
          </ul>
        </>
      ) : null}
      {recent.length > 0 ? (
        <>
          <h2>Recent runs</h2>
          <ul className="recent" data-testid="recent-runs">
            {recent.map((r) => (
              <li key={r.path}>
                <button type="button" className="link" onClick={() => void svc.openPath(r.path)}>
                  {r.name}
                </button>{' '}
                <span className="muted">
                  {(r.sizeBytes / 1024).toFixed(1)} KB · {r.modifiedAt}
                </span>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}

export function OpenFileButton({ viaHost = false, testId }: { viaHost?: boolean; testId?: string }) {
  const svc = useServices();
  return (
    <label className="button">
      {viaHost ? 'Open in host…' : 'Open file…'}
      <input
        type="file"
        accept=".jsonl,.json,.ndjson,application/x-ndjson"
        data-testid={testId ?? (viaHost ? 'open-file-host' : 'open-file')}
        style={{ display: 'none' }}
        onChange={(e) => {
          const f = e.target.files?.[0];
          e.target.value = '';
          if (!f) return;
          if (viaHost) void f.text().then((t) => svc.openTextViaHost(f.name, t));
          else void svc.openFile(f);
        }}
      />
    </label>
  );
}

function OpenPath() {
  const svc = useServices();
  return (
    <HostPathForm
      placeholder="/path/to/log.jsonl on the host"
      label="Log path on the host"
      submitText="Open path"
      onOpen={(path) => void svc.openPath(path)}
    />
  );
}
