// Evaluations (`eval.open`) for the views: open a directory on the host, open a task's log
// as a session on demand, map its tasks' context coverage (`eval.coverage`). Kept beside Services (it only uses its public host and store).
import type { EvalCoverage } from '../../src-shared/protocol.ts';
import type { Services } from './services.ts';

function fail(svc: Services, what: string, err: unknown): void {
  svc.store.getState().notify('error', `${what}: ${err instanceof Error ? err.message : String(err)}`);
}

/** Opens an evaluation directory on the host and shows it; the first two opened are compared. */
export async function openEval(svc: Services, path: string, scorer?: string): Promise<string | null> {
  try {
    if (!svc.host) throw new Error('no host connected (open the app through `rlm-studio serve` or `rlm-studio view DIR`)');
    const { evaluation, sessions } = await svc.host.call('eval.open', { path, openLogs: 50, ...(scorer === undefined ? {} : { scorer }) });
    const st = svc.store.getState();
    for (const s of sessions) st.upsertSummary(s);
    st.upsertEval(evaluation);
    const v = svc.store.getState().evalView;
    const dir = evaluation.dir;
    st.setEvalView({
      active: dir,
      a: v.a ?? dir,
      b: v.b === null && v.a !== null && v.a !== dir ? dir : v.b,
    });
    st.setPanel('eval');
    if (evaluation.problems.length > 0) st.notify('info', `${evaluation.name}: ${evaluation.problems.join('; ')}`);
    return dir;
  } catch (err) {
    fail(svc, `could not open the evaluation ${path}`, err);
    return null;
  }
}

/** The scorer the evaluation is shown with, so a refresh keeps it. */
function scorerOf(svc: Services, dir: string): { scorer?: string } {
  const scorer = svc.store.getState().evals.get(dir)?.scorer ?? null;
  return scorer === null ? {} : { scorer };
}

/**
 * Reads a running evaluation again (the view calls it every few seconds while its progress is
 * live): new rows and progress, nothing else changed (no logs opened, no panel switched).
 */
export async function refreshEval(svc: Services, dir: string): Promise<void> {
  if (!svc.host) return;
  try {
    const { evaluation, sessions } = await svc.host.call('eval.open', { path: dir, openLogs: 0, ...scorerOf(svc, dir) });
    const st = svc.store.getState();
    for (const s of sessions) st.upsertSummary(s);
    // Rows whose log the user opened since keep their session.
    const before = new Map((st.evals.get(dir)?.tasks ?? []).map((t) => [t.id, t.sessionId]));
    st.upsertEval({ ...evaluation, tasks: evaluation.tasks.map((t) => ({ ...t, sessionId: t.sessionId ?? before.get(t.id) ?? null })) });
  } catch {
    // The next tick tries again; a directory that went away shows what was last read.
  }
}

/** Shows a task's log: its session when the host opened one, else opens the log now. */
export async function openEvalTask(svc: Services, dir: string, taskId: string): Promise<void> {
  const e = svc.store.getState().evals.get(dir);
  const row = e?.tasks.find((t) => t.id === taskId);
  if (!e || !row) return;
  try {
    let sessionId = row.sessionId;
    if (sessionId === null) {
      if (row.logFile === null) throw new Error('no log was written for this task');
      if (!svc.host) throw new Error('no host connected');
      const { session } = await svc.host.call('session.open', { path: row.logFile });
      svc.store.getState().upsertSummary(session);
      sessionId = session.sessionId;
      // Remember it, so a second click does not open the log again.
      svc.store.getState().upsertEval({ ...e, tasks: e.tasks.map((t) => (t.id === taskId ? { ...t, sessionId } : t)) });
    }
    await svc.openSession(sessionId);
  } catch (err) {
    fail(svc, `could not open the log of ${taskId}`, err);
  }
}

/** Every task log of the evaluation against its task's context, read on the host; null (and a notice) when that failed. */
export async function evalCoverage(svc: Services, dir: string): Promise<EvalCoverage | null> {
  try {
    if (!svc.host) throw new Error('no host connected');
    const { coverage } = await svc.host.call('eval.coverage', { path: dir });
    if (coverage.problems.length > 0) svc.store.getState().notify('info', `context coverage: ${coverage.problems.slice(0, 3).join('; ')}`);
    return coverage;
  } catch (err) {
    fail(svc, `could not map the context coverage of ${dir}`, err);
    return null;
  }
}

/** `rlm-studio view DIR` names the evaluation in the URL fragment (`#eval=<dir>`). */
export function evalFromHash(hash: string): string | null {
  return new URLSearchParams(hash.replace(/^#/, '')).get('eval');
}
