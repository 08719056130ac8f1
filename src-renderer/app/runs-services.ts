// The runs browser for the views: asks the host to list and watch the runs folder (and the
// folders the person added), folds the rows it pushes as runs start, end and evaluations
// progress, watches again after a reconnect, and opens a row (a log as a session, an
// evaluation in the Evaluation view).
import type { RunListing } from '../../src-shared/protocol.ts';
import { useRuns } from '../store/runs.ts';
import { openEval } from './eval-services.ts';
import type { Services } from './services.ts';

const hooked = new WeakSet<Services>();

/** Lists and watches the runs folder and the added folders; idempotent, and again after each reconnect. */
export async function watchRuns(svc: Services): Promise<void> {
  const host = svc.host;
  if (!host) return;
  if (!hooked.has(svc)) {
    hooked.add(svc);
    host.onPush((m) => {
      if (m.kind === 'runs') useRuns.getState().apply(m.changed, m.removed, m.problems);
    });
    host.onState((st) => {
      if (st === 'open') void watchRuns(svc);
    });
  }
  if (host.state !== 'open') return;
  try {
    const { listing } = await host.call('runs.watch', { folders: useRuns.getState().extraFolders });
    useRuns.getState().replace(listing);
  } catch (err) {
    svc.store.getState().notify('error', `could not list the runs: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export async function addRunsFolder(svc: Services, folder: string): Promise<void> {
  const st = useRuns.getState();
  if (!st.extraFolders.includes(folder)) st.setExtraFolders([...st.extraFolders, folder]);
  await watchRuns(svc);
}

export async function removeRunsFolder(svc: Services, folder: string): Promise<void> {
  const st = useRuns.getState();
  st.setExtraFolders(st.extraFolders.filter((f) => f !== folder));
  await watchRuns(svc);
}

/** A run opens as a session (live ones stream on), an evaluation in the Evaluation view. */
export async function openListing(svc: Services, r: RunListing): Promise<void> {
  if (r.kind === 'evaluation') {
    await openEval(svc, r.path);
    return;
  }
  // A session of this host with that log (a live run, one opened before) is shown as it is.
  const st = svc.store.getState();
  const known = [...st.sessions.entries()].find(([, e]) => e.summary?.logFile === r.path);
  if (known) {
    await svc.openSession(known[0]);
    st.setPanel('run');
    return;
  }
  await svc.openPath(r.path);
}
