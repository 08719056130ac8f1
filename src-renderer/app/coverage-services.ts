// Computing a session's context coverage map in a worker (never on the page's thread): the
// texts that may carry context (shown outputs, sub-call prompts, child contexts) go to the
// worker in batches of a few MB, each its own task, with the context file the user picked or
// the one the host says the session ran on (`/api/context`).
import { coverageRuns, coverageSources, type CoverageSource } from '../../src-shared/analysis/coverage.ts';
import { viewTraj } from '../store/studio.ts';
import type { CoverageIn, CoverageOut } from '../lib/coverage-messages.ts';
import type { Services } from './services.ts';

type CoverageWorkerFactory = () => Worker;
let makeWorker: CoverageWorkerFactory | null = null;

/** The page's entry point says how to start the worker (a module URL, or an inlined one in the shareable file). */
export function setCoverageWorkerFactory(f: CoverageWorkerFactory): void {
  makeWorker = f;
}

/** Characters of texts per message to the worker: cloning them is one task of a few milliseconds. */
const BATCH_CHARS = 4 << 20;
const nextTask = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

const running = new Map<string, Worker>();

export async function computeCoverage(svc: Services, sessionId: string, context: Blob & { name?: string }): Promise<void> {
  const fileName = context.name ?? 'context';
  const cov = svc.store.coverage.getState();
  running.get(sessionId)?.terminate();
  if (!makeWorker) {
    cov.set(sessionId, { status: 'error', fileName, message: 'this page cannot start the coverage worker' });
    return;
  }
  cov.set(sessionId, { status: 'working', fileName });
  const t0 = performance.now();
  const worker = makeWorker();
  running.set(sessionId, worker);
  const send = (m: CoverageIn): void => worker.postMessage(m);
  const done = new Promise<void>((resolve) => {
    worker.onmessage = (ev: MessageEvent<CoverageOut>) => {
      const m = ev.data;
      if (m.kind === 'report')
        cov.set(sessionId, { status: 'done', fileName, report: m.report, largestUnseen: m.largestUnseen, ms: performance.now() - t0 });
      else cov.set(sessionId, { status: 'error', fileName, message: m.message });
      resolve();
    };
    worker.onerror = (ev) => {
      cov.set(sessionId, { status: 'error', fileName, message: ev.message || 'the coverage worker failed' });
      resolve();
    };
  });
  send({ kind: 'start', context });
  // A log still loading counts whole: the map is of the session, not of what arrived so far.
  await svc.whenLoaded(sessionId);
  // Long prompts of a big log were left out when it was read: they count.
  await svc.texts.allTexts(sessionId);
  const traj = viewTraj(svc.store.getState(), sessionId);
  if (!traj) {
    cov.set(sessionId, { status: 'error', fileName, message: 'the session is not open' });
    worker.terminate();
    return;
  }
  let batch: CoverageSource[] = [];
  let chars = 0;
  for (const s of coverageSources(traj)) {
    batch.push(s);
    chars += s.text.length;
    if (chars >= BATCH_CHARS) {
      send({ kind: 'sources', list: batch });
      batch = [];
      chars = 0;
      await nextTask();
    }
  }
  send({ kind: 'sources', list: batch });
  send({ kind: 'finish', runs: coverageRuns(traj) });
  await done;
  worker.terminate();
  if (running.get(sessionId) === worker) running.delete(sessionId);
}

/** The context the host knows a session ran on. */
export interface HostContext {
  name: string;
  /** Its size as the host reported it, or null when it did not say. */
  bytes: number | null;
}

/** The context the host knows a session ran on, or null when the host has none to give. */
export async function hostContextOf(svc: Services, sessionId: string): Promise<HostContext | null> {
  const url = svc.contextUrl(sessionId);
  if (!url) return null;
  try {
    const res = await fetch(url, { method: 'HEAD' });
    // 204: the host knows no context for this session.
    if (res.status !== 200) return null;
    const length = Number(res.headers.get('Content-Length') ?? NaN);
    return {
      name: decodeURIComponent(res.headers.get('X-Context-Name') ?? 'context'),
      bytes: Number.isFinite(length) ? length : null,
    };
  } catch {
    return null;
  }
}

/** The coverage map from the context the host serves for the session, without the user picking its file. */
export async function computeCoverageFromHost(svc: Services, sessionId: string, name: string): Promise<void> {
  const url = svc.contextUrl(sessionId);
  const cov = svc.store.coverage.getState();
  // At once, not after the download: the panel starts this by itself when there is no map yet.
  cov.set(sessionId, { status: 'working', fileName: name });
  let blob: Blob;
  try {
    if (!url) throw new Error('this page cannot ask the host for it');
    const res = await fetch(url);
    if (!res.ok) throw new Error(`the host answered ${res.status}`);
    blob = await res.blob();
  } catch (err) {
    cov.set(sessionId, {
      status: 'error',
      fileName: name,
      message: `could not read the session's context: ${err instanceof Error ? err.message : String(err)}`,
    });
    return;
  }
  await computeCoverage(svc, sessionId, Object.assign(blob, { name }));
}
