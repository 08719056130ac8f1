// Policy metrics for the views: computed by the host over a log, a folder of logs or an
// evaluation (the page cannot read the host's files), and a session's log opened on a click.
import type { PolicyOverview } from '../../src-shared/protocol.ts';
import type { Services } from './services.ts';

function fail(svc: Services, what: string, err: unknown): void {
  svc.store.getState().notify('error', `${what}: ${err instanceof Error ? err.message : String(err)}`);
}

export async function openPolicy(svc: Services, path: string): Promise<PolicyOverview | null> {
  const st = svc.store.policy.getState();
  st.setLoading(path, true);
  try {
    if (!svc.host) throw new Error('no host connected (open the app through `rlm-studio serve` or `rlm-studio view DIR`)');
    const { metrics } = await svc.host.call('metrics.open', { path, bins: 20 });
    svc.store.policy.getState().put(metrics);
    if (metrics.problems.length > 0) svc.store.getState().notify('info', `${metrics.path}: ${metrics.problems.slice(0, 3).join('; ')}`);
    return metrics;
  } catch (err) {
    fail(svc, `could not compute the metrics of ${path}`, err);
    return null;
  } finally {
    svc.store.policy.getState().setLoading(path, false);
  }
}

/** Opens a session's log (a cell of the intersection, a row of a table) in the run view. */
export async function openPolicyLog(svc: Services, logFile: string): Promise<void> {
  try {
    if (!svc.host) throw new Error('no host connected');
    const { session } = await svc.host.call('session.open', { path: logFile });
    svc.store.getState().upsertSummary(session);
    await svc.openSession(session.sessionId);
    svc.store.getState().setPanel('run');
  } catch (err) {
    fail(svc, `could not open ${logFile}`, err);
  }
}
