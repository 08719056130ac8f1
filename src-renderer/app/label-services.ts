// Labels and tree queries for the views, through the host (`labels.get`, `labels.change`,
// `query.run`): the sidecar and the logs are files on the host, and a query's work runs there,
// never on this page's main thread.
import { asRunId } from '../../src-shared/events.ts';
import type { LabelChangeInput, QueryResult } from '../../src-shared/protocol.ts';
import type { Services } from './services.ts';

const NO_HOST_REASON =
  'labels are kept beside a log file on the host: open the log with `rlm-studio view LOG` (or from the runs list) to label it';

/** Reads a session's labels from the host (once, unless `force`). */
export async function loadLabels(svc: Services, sessionId: string, force = false): Promise<void> {
  const store = svc.store.labels.getState();
  if (!force && store.bySession.has(sessionId)) return;
  const entry = svc.store.getState().sessions.get(sessionId);
  if (!svc.host || !entry || entry.source !== 'host') {
    store.set(sessionId, { kind: 'unavailable', reason: NO_HOST_REASON });
    return;
  }
  store.set(sessionId, { kind: 'loading' });
  try {
    const { labels } = await svc.host.call('labels.get', { sessionId });
    store.set(sessionId, { kind: 'loaded', labels });
  } catch (err) {
    store.set(sessionId, { kind: 'unavailable', reason: err instanceof Error ? err.message : String(err) });
  }
}

/** Appends one change through the host; the error, if any, becomes a notice. */
export async function changeLabels(svc: Services, sessionId: string, change: LabelChangeInput): Promise<boolean> {
  try {
    if (!svc.host) throw new Error(NO_HOST_REASON);
    const { labels } = await svc.host.call('labels.change', { sessionId, change });
    svc.store.labels.getState().set(sessionId, { kind: 'loaded', labels });
    return true;
  } catch (err) {
    svc.store.getState().notify('error', `could not change the labels: ${err instanceof Error ? err.message : String(err)}`);
    return false;
  }
}

export async function runTreeQuery(svc: Services, expression: string, paths: string[]): Promise<QueryResult> {
  if (!svc.host) throw new Error('queries run on the host: open the app through `rlm-studio serve` or `rlm-studio view`');
  return svc.host.call('query.run', { expression, paths });
}

/** Opens a query match: its session (opening the log on the host when needed), then its run and iteration. */
export async function openMatch(svc: Services, file: string, at: { runId: string; iteration: number | null } | null): Promise<void> {
  try {
    const st = svc.store.getState();
    let sessionId = [...st.sessions.values()].find((s) => s.summary?.logFile === file)?.id ?? null;
    if (sessionId === null) {
      if (!svc.host) throw new Error('no host connected');
      const { session } = await svc.host.call('session.open', { path: file });
      st.upsertSummary(session);
      sessionId = session.sessionId;
    }
    await svc.openSession(sessionId);
    const now = svc.store.getState();
    if (at) now.select(sessionId, { runId: asRunId(at.runId), iteration: at.iteration });
    now.setPanel('run');
  } catch (err) {
    svc.store.getState().notify('error', `could not open ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
