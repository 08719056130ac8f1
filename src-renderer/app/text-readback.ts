// Reading back the long texts a big log's first read left out (lib/elision.ts): the parse
// worker's second job, one worker for all sessions. Views ask for the texts of what they
// show (`fullTexts`); a search, an export or a fork asks for all of them (`allTexts`).
import type { TrajectoryEvent } from '../../src-shared/events.ts';
import { getAt, type Elision } from '../lib/elision.ts';
import type { ParseOut, TextsIn } from '../lib/parse-messages.ts';
import type { StudioStore } from '../store/studio.ts';
import { readTexts } from '../workers/parse-core.ts';

export type WorkerFactory = () => Worker | null;

type TextsOut = Extract<ParseOut, { kind: 'texts' }>;

export class TextReadback {
  private readonly store: StudioStore;
  private readonly makeWorker: WorkerFactory;
  private readonly fail: (what: string, err: unknown) => void;
  /** What each session was read from, while it has left-out texts to read back. */
  private readonly sources = new Map<string, Blob | string>();
  /** The worker that reads texts back, and its open requests. */
  private worker: Worker | null = null;
  private requests = new Map<number, (m: TextsOut) => void>();
  private requestId = 0;
  /** Texts already asked for, per session (an event shown twice is read once). */
  private readonly inFlight = new Map<string, Map<TrajectoryEvent, Promise<void>>>();

  constructor(store: StudioStore, makeWorker: WorkerFactory, fail: (what: string, err: unknown) => void) {
    this.store = store;
    this.makeWorker = makeWorker;
    this.fail = fail;
  }

  /** Where a session's left-out texts are (the file it was read from, or its `/api/log` URL). */
  setSource(sessionId: string, source: Blob | string): void {
    this.sources.set(sessionId, source);
  }

  /** The session was closed: its file and pending reads are let go. */
  forget(sessionId: string): void {
    this.sources.delete(sessionId);
    this.inFlight.delete(sessionId);
  }

  /**
   * Reads back the whole texts that were left out of these events of a big log (they
   * hold previews until then); resolves once they are in the store. Events with nothing
   * left out cost nothing.
   */
  fullTexts(sessionId: string, events: readonly (TrajectoryEvent | null | undefined)[]): Promise<void> {
    const entry = this.store.getState().sessions.get(sessionId);
    const source = this.sources.get(sessionId);
    if (!entry || entry.elided.size === 0 || source === undefined) return Promise.resolve();
    let flying = this.inFlight.get(sessionId);
    if (!flying) this.inFlight.set(sessionId, (flying = new Map()));
    const waits: Promise<void>[] = [];
    const wanted: { event: TrajectoryEvent; list: Elision[] }[] = [];
    for (const ev of events) {
      if (!ev) continue;
      const pending = flying.get(ev);
      if (pending) waits.push(pending);
      else {
        const list = entry.elided.get(ev);
        if (list) wanted.push({ event: ev, list });
      }
    }
    if (wanted.length > 0) {
      const cuts = wanted.flatMap((w) => w.list.map((x) => ({ start: x.start, end: x.end })));
      const done = this.read(source, cuts).then((r) => {
        // A text that could not be read back (null) keeps its preview and is not asked again;
        // nor is one that does not begin with its preview (the file changed since it was read).
        const filled: { event: TrajectoryEvent; path: (string | number)[]; text: string | null }[] = [];
        const problems = [...r.problems];
        let k = 0;
        for (const w of wanted) {
          for (const x of w.list) {
            let text = r.texts[k++] ?? null;
            const preview = getAt(w.event, x.path);
            if (text !== null && typeof preview === 'string' && !text.startsWith(preview)) {
              problems.push(`bytes ${x.start}–${x.end}: the text read back does not begin with what was read first; was the file changed?`);
              text = null;
            }
            filled.push({ event: w.event, path: x.path, text });
          }
        }
        const st = this.store.getState();
        st.fillTexts(sessionId, filled);
        if (problems.length > 0) st.addProblems(sessionId, problems);
      });
      const settled = done
        .catch((err: unknown) => this.fail('could not read the full texts', err))
        .finally(() => {
          for (const w of wanted) flying.delete(w.event);
        });
      for (const w of wanted) flying.set(w.event, settled);
      waits.push(settled);
    }
    return Promise.all(waits).then(() => undefined);
  }

  /** Reads back every left-out text of a session (before a search over all texts, an export or a fork). */
  allTexts(sessionId: string): Promise<void> {
    const entry = this.store.getState().sessions.get(sessionId);
    if (!entry || entry.elided.size === 0) return Promise.resolve();
    return this.fullTexts(sessionId, [...entry.elided.keys()]);
  }

  /** Every text read back before it leaves the page (an export, a fork); says so if some could not be. */
  async wholeTexts(sessionId: string): Promise<void> {
    await this.allTexts(sessionId);
    const lost = this.store.getState().sessions.get(sessionId)?.textsLost ?? 0;
    if (lost > 0)
      this.store
        .getState()
        .notify(
          'error',
          `${lost} long prompt${lost === 1 ? '' : 's'} could not be read back from the file (see the problems); they are only previews in what is exported or sent`,
        );
  }

  private read(source: Blob | string, cuts: TextsIn['cuts']): Promise<TextsOut> {
    if (!this.worker) {
      const w = this.makeWorker();
      if (!w) return readTexts(source, cuts).then((r) => ({ kind: 'texts' as const, id: 0, ...r }));
      w.onmessage = (ev: MessageEvent<ParseOut>) => {
        const m = ev.data;
        if (m.kind !== 'texts') return;
        this.requests.get(m.id)?.(m);
        this.requests.delete(m.id);
      };
      // A worker that died answers every open request with nothing (and the next gets a new one).
      w.onerror = (ev) => {
        const problem = `the worker reading texts back failed: ${ev.message || 'no message'}`;
        for (const [id, answer] of this.requests) answer({ kind: 'texts', id, texts: [], problems: [problem] });
        this.requests.clear();
        w.terminate();
        this.worker = null;
      };
      this.worker = w;
    }
    const id = ++this.requestId;
    const worker = this.worker;
    return new Promise((resolve) => {
      this.requests.set(id, resolve);
      const msg: TextsIn = { texts: id, source, cuts };
      worker.postMessage(msg);
    });
  }
}
