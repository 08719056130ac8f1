// Loading a log into a session of the store: the parse worker reads the file (or a host
// session's `/api/log`), a native log's lines are parsed here on the page
// (lib/native-text.ts), and the events go through the store's per-frame ingest.
import type { TrajectoryEvent } from '../../src-shared/events.ts';
import type { Elision } from '../lib/elision.ts';
import { TextInterner } from '../lib/intern-texts.ts';
import { NativeTextReader, type TextBatch } from '../lib/native-text.ts';
import type { ParseIn, ParseOut } from '../lib/parse-messages.ts';
import { holdEditors } from '../lib/mount-queue.ts';
import type { StudioStore } from '../store/studio.ts';
import { parseBlob, parseUrl } from '../workers/parse-core.ts';
import type { WorkerFactory } from './text-readback.ts';

export class LogLoader {
  private readonly store: StudioStore;
  private readonly makeWorker: WorkerFactory;
  /** Told where a session's left-out texts can be read back from. */
  private readonly onSource: (sessionId: string, source: Blob | string) => void;
  /** A worker started ahead of time: its script is loaded and compiled before a file arrives (first view). */
  private spare: Worker | null = null;
  /** Loads under way, by session: how to stop one (its session was closed). */
  private readonly parsing = new Map<string, () => void>();
  /** Loads under way, by session: settled once every event is folded in and shown (or the load stopped). */
  private readonly loads = new Map<string, Promise<unknown>>();

  constructor(store: StudioStore, makeWorker: WorkerFactory, onSource: (sessionId: string, source: Blob | string) => void) {
    this.store = store;
    this.makeWorker = makeWorker;
    this.onSource = onSource;
  }

  /** Starts a parse worker now, so opening a file does not wait for the worker's script. */
  prewarm(): void {
    if (!this.spare) this.spare = this.makeWorker();
  }

  private takeWorker(): Worker | null {
    const w = this.spare ?? this.makeWorker();
    this.spare = null;
    return w;
  }

  /** Settles once session `id` has no load under way (at once if it has none): every event read is folded in. */
  async whenLoaded(id: string): Promise<void> {
    await this.loads.get(id);
  }

  /** Stops a session's load, if one is under way (its session was closed). */
  stop(sessionId: string): void {
    this.parsing.get(sessionId)?.();
    this.parsing.delete(sessionId);
  }

  /**
   * Parses a log in a worker into session `id` (events go through the per-frame ingest).
   * Resolves with the last event's seq (-1 if none) once every event is folded in, or null
   * if the session was closed first.
   */
  load(id: string, input: ParseIn, what: string): Promise<number | null> {
    const t0 = performance.now();
    let first = true;
    let lastSeq = -1;
    /** A native log's text is parsed here (see lib/native-text.ts). */
    const native = new NativeTextReader();
    /** For this load only: the texts stay shared by the events, the table goes with the load. */
    const interner = new TextInterner();
    const take = (events: TrajectoryEvent[], elided?: [number, Elision[]][]): void => {
      if (events.length === 0) return;
      interner.intern(events);
      lastSeq = (events[events.length - 1] as { seq: number }).seq;
      this.store.getState().ingestEvents(id, events, elided);
      if (elided && elided.length > 0) this.onSource(id, 'url' in input ? input.url : input.file);
      if (first) {
        first = false;
        // First view = the frame after the first batch is folded in.
        requestFrame(() => this.store.getState().setTimings(id, { firstViewMs: performance.now() - t0 }));
      }
    };
    const takeText = (b: TextBatch): void => {
      const s = this.store.getState();
      if (b.header) s.setHeader(id, b.header);
      take(b.events, b.elided);
      if (b.problems.length > 0) s.addProblems(id, b.problems);
    };
    /** The session was closed: whatever still arrives is dropped. */
    let stopped = false;
    const release = holdEditors();
    this.store.beginBulk(id);
    const loaded = new Promise<number | null>((resolve) => {
      const on = (m: ParseOut): void => {
        if (stopped) return;
        const s = this.store.getState();
        switch (m.kind) {
          case 'format':
            s.setFormat(id, m.format);
            break;
          case 'header':
            s.setHeader(id, m.header);
            break;
          case 'events':
            take(m.events);
            break;
          case 'lines':
            takeText(native.read(m.bytes, m.cuts));
            break;
          case 'problems':
            s.addProblems(id, m.list);
            break;
          case 'progress':
            // Stays set once every byte is read: the session is whole only when the load settles (below).
            s.setLoading(id, { bytes: Math.min(m.bytes, m.total), total: m.total });
            break;
          case 'done':
            this.parsing.delete(id);
            takeText(native.end());
            this.store.endBulk(id);
            // When the worker finished reading (the rest of the load is the main thread catching up).
            s.setTimings(id, { parsedMs: performance.now() - t0, spent: m.spent });
            waitIngested(this.store, () => {
              this.store.getState().setTimings(id, { fullMs: performance.now() - t0 });
              resolve(lastSeq);
            });
            worker?.terminate();
            break;
          case 'error':
            this.parsing.delete(id);
            s.notify('error', `could not read ${what}: ${m.message}`);
            worker?.terminate();
            this.store.endBulk(id);
            // What was read before the error is the session: it, too, is folded in first.
            waitIngested(this.store, () => resolve(lastSeq));
            break;
          case 'texts':
            break;
        }
      };
      const worker = this.takeWorker();
      this.parsing.set(id, () => {
        stopped = true;
        worker?.terminate();
        resolve(null);
      });
      if (worker) {
        worker.onmessage = (ev: MessageEvent<ParseOut>) => on(ev.data);
        worker.onerror = (ev) => on({ kind: 'error', message: ev.message || 'the parse worker failed' });
        worker.postMessage(input);
      } else if ('url' in input) {
        void parseUrl(input, on);
      } else {
        void parseBlob(input, on);
      }
    }).finally(() => {
      release();
      this.store.endBulk(id);
      // The next load's worker starts once this one is done: started now, its script's
      // compile and evaluation (~60 ms of CPU) would compete with the parse on two cores.
      this.prewarm();
      if (this.loads.get(id) === loaded) {
        this.loads.delete(id);
        // Cleared only now (not when the last byte is read): views that compute over the whole
        // session go by it (`loading` in the store, Services.whenLoaded).
        this.store.getState().setLoading(id, null);
      }
    });
    this.loads.set(id, loaded);
    return loaded;
  }
}

function requestFrame(cb: () => void): void {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => cb());
  else setTimeout(cb, 0);
}

/** Calls `cb` once the store has folded in, and committed for the views, every queued event. */
function waitIngested(store: StudioStore, cb: () => void): void {
  const check = (): void => {
    if (store.settled()) cb();
    else requestFrame(check);
  };
  requestFrame(check);
}
