// Whole-session work on a log still loading: the parse worker's answers are held here and
// let through when the test says (a real parse of a real native log, paced), so each check
// runs while part of the session is in the store. Exports, the shareable file and a dropped
// file handed to the host for a fork wait for the whole log and say so while it loads; the
// search reads back the long texts of events that arrived after it first asked; the
// comparison says which side is still loading.
import { Blob as NodeBlob } from 'node:buffer';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { encodeNative, readNativeText } from '../../../src-shared/codecs/native.ts';
import { coverageSources } from '../../../src-shared/analysis/coverage.ts';
import { App } from '../../../src-renderer/App.tsx';
import { computeCoverage, setCoverageWorkerFactory } from '../../../src-renderer/app/coverage-services.ts';
import type { CoverageIn } from '../../../src-renderer/lib/coverage-messages.ts';
import { ServicesProvider } from '../../../src-renderer/app/context.tsx';
import { Services } from '../../../src-renderer/app/services.ts';
import type { ParseIn, ParseOut } from '../../../src-renderer/lib/parse-messages.ts';
import { createStudioStore } from '../../../src-renderer/store/studio.ts';
import { STILL_LOADING } from '../../../src-renderer/views/still-loading.ts';
import { parseBlob } from '../../../src-renderer/workers/parse-core.ts';
import { policySession } from '../../support/policy-sessions.ts';
import { makeHeader } from '../../../src-shared/codecs/native-lines.ts';
import { asSessionId } from '../../../src-shared/events.ts';
import type { MemoryCarrier } from '../../support/memory-carrier.ts';
import { ScriptedHost, type HostCommand, hostSummary } from './helpers.ts';

// ~1.5 MB: several `lines` messages of the parse (it posts a few hundred KB at a time).
const EVENTS = policySession({ query: 'q', calls: Array.from({ length: 80 }, () => 4), children: 2, pad: 1500 });
const LOG = [...encodeNative(makeHeader(asSessionId('t'), new Date(0)), EVENTS)].join('');

/** The parse worker's part, run for real in the page, with its messages held until `release`. */
class PacedWorker {
  onmessage: ((ev: MessageEvent<ParseOut>) => void) | null = null;
  onerror: ((ev: ErrorEvent) => void) | null = null;
  readonly held: ParseOut[] = [];
  private parsed: Promise<void> = Promise.resolve();
  private readonly elideOver: number | null;
  constructor(elideOver: number | null) {
    this.elideOver = elideOver;
  }
  postMessage(input: ParseIn): void {
    if (!('file' in input)) throw new Error('the test opens files only');
    this.parsed = parseBlob({ file: input.file, elideOver: this.elideOver }, (m) => void this.held.push(m));
  }
  terminate(): void {}
  /** Lets through the held messages up to (not including) the first for which `stop` is true. */
  async release(stop: (m: ParseOut, i: number) => boolean = () => false): Promise<void> {
    await this.parsed;
    for (let i = 0; this.held.length > 0; i++) {
      const m = this.held[0] as ParseOut;
      if (stop(m, i)) return;
      this.held.shift();
      this.onmessage?.({ data: m } as MessageEvent<ParseOut>);
    }
  }
  /** How many `lines`/`events` messages the parse made. */
  async batches(): Promise<number> {
    await this.parsed;
    return this.held.filter((m) => m.kind === 'lines' || m.kind === 'events').length;
  }
}

const SUMMARY = hostSummary('uploaded');

/** A host that takes a dropped file (`session.openText`) and forks it; it records what it was sent. */
class UploadHost extends ScriptedHost {
  protected override answer(c: HostCommand, id: number): boolean {
    if (c.type === 'session.openText') this.replyTo(id, { session: SUMMARY });
    else if (c.type === 'session.fork')
      this.replyTo(id, { session: { ...SUMMARY, sessionId: 'forked', status: 'running', readOnly: false } });
    else if (c.type === 'subscribe') this.replyTo(id, { session: { ...SUMMARY, sessionId: 'forked' }, header: null });
    else return false;
    return true;
  }
}

function mount(opts: { elideOver?: number | null; carrier?: MemoryCarrier | null } = {}) {
  const store = createStudioStore();
  const worker = new PacedWorker(opts.elideOver ?? null);
  let made = 0;
  // The load's worker; later ones (the spare, reading texts back) run in the page.
  const makeWorker = (): Worker | null => (made++ === 0 ? (worker as unknown as Worker) : null);
  const shareable = async (_name: string, log: string): Promise<Blob> => new NodeBlob([log]) as unknown as Blob;
  const svc = new Services(store, opts.carrier ?? null, makeWorker, () => null, shareable);
  render(
    <ServicesProvider services={svc}>
      <App />
    </ServicesProvider>,
  );
  const file = Object.assign(new NodeBlob([LOG]) as unknown as Blob, { name: 'big.rlm.jsonl' });
  const opened = act(async () => {
    await svc.openFile(file);
  });
  return { store, svc, worker, opened, sessionId: () => [...store.getState().sessions.keys()][0] as string };
}

/** The held messages up to the last batch of events: part of the session is in, not all. */
async function releasePart(worker: PacedWorker): Promise<void> {
  const total = await worker.batches();
  expect(total).toBeGreaterThan(2);
  let seen = 0;
  await act(async () => worker.release((m) => (m.kind === 'lines' || m.kind === 'events') && ++seen === total));
}

/** Lets the page fold in what it has (the store commits on frames). */
const frames = (): Promise<void> =>
  act(async () => {
    await new Promise<void>((r) => setTimeout(r, 60));
  });

const settled = (p: Promise<unknown>): Promise<boolean> =>
  Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 100))]);

const eventLines = (log: string): number => readNativeText(log).events.length;

describe('whole-session work while a log is still loading', () => {
  it('keeps the session marked loading after every byte is read, until every event is folded in', async () => {
    const { store, worker, opened, sessionId } = mount();
    await releasePart(worker);
    await frames();
    const part = store.getState().sessions.get(sessionId());
    expect(part?.events.length).toBeGreaterThan(0);
    expect(part?.events.length).toBeLessThan(EVENTS.length);
    expect(part?.loading).not.toBeNull();
    // Everything but the worker's `done`: its last progress says every byte is read.
    await act(async () => worker.release((m) => m.kind === 'done'));
    const loading = store.getState().sessions.get(sessionId())?.loading;
    expect(loading).not.toBeNull();
    expect(loading?.bytes).toBe(loading?.total);
    await act(async () => worker.release());
    await opened;
    expect(store.getState().sessions.get(sessionId())?.events.length).toBe(EVENTS.length);
    expect(store.getState().sessions.get(sessionId())?.loading).toBeNull();
  });

  it('disables the exports with a reason while loading, and an export asked for meanwhile is of the whole log', async () => {
    const { store, svc, worker, opened, sessionId } = mount();
    await releasePart(worker);
    await frames();
    for (const testId of ['export-native', 'export-rlm-python', 'export-html']) {
      const b = screen.getByTestId<HTMLButtonElement>(testId);
      expect(b.disabled, testId).toBe(true);
      expect(b.title, testId).toBe(STILL_LOADING);
    }
    const id = sessionId();
    const text = svc.nativeText(id);
    expect(await settled(text)).toBe(false);
    await act(async () => worker.release());
    await opened;
    expect(eventLines(await text)).toBe(EVENTS.length);
    expect(store.getState().sessions.get(id)?.events.length).toBe(EVENTS.length);
    for (const testId of ['export-native', 'export-rlm-python', 'export-html'])
      expect(screen.getByTestId<HTMLButtonElement>(testId).disabled, testId).toBe(false);
  });

  it('hands a dropped file to the host whole when a fork is asked for while it loads', async () => {
    const carrier = new UploadHost();
    carrier.setState('open');
    const { store, svc, worker, opened, sessionId } = mount({ carrier });
    await releasePart(worker);
    await frames();
    expect((screen.getAllByTestId('fork')[0] as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getAllByTestId('fork')[0] as HTMLButtonElement).title).toBe(STILL_LOADING);
    const id = sessionId();
    const root = store.getState().sessions.get(id)?.traj.roots[0];
    if (!root) throw new Error('no root run yet');
    const forked = svc.fork(id, root, 1);
    expect(await settled(forked)).toBe(false);
    expect(carrier.sent.some((m) => m.command.type === 'session.openText')).toBe(false);
    await act(async () => worker.release());
    await opened;
    expect(await forked).toBe('forked');
    const upload = carrier.sent.find((m) => m.command.type === 'session.openText')?.command;
    if (upload?.type !== 'session.openText') throw new Error('nothing was sent');
    expect(eventLines(upload.text)).toBe(EVENTS.length);
    // The host's id is kept on the entry as it is now, not on the one read before the wait.
    expect(store.getState().sessions.get(id)?.hostSessionId).toBe('uploaded');
    expect(store.getState().sessions.get(id)?.events.length).toBe(EVENTS.length);
  });

  it('reads back, for the search, the long texts of events that arrived while its first read back was under way', async () => {
    const { store, worker, opened, sessionId } = mount({ elideOver: 256 });
    // The first batch in, then the search opened: it asks for what is left out so far.
    let n = 0;
    await act(async () => worker.release((m) => (m.kind === 'lines' || m.kind === 'events') && ++n === 2));
    await frames();
    const id = sessionId();
    expect(store.getState().sessions.get(id)?.elided.size).toBeGreaterThan(0);
    // The rest arrives while that first read back is still under way.
    await act(async () => {
      store.getState().setPanel('search');
      await worker.release();
    });
    fireEvent.change(screen.getByTestId('search-input'), { target: { value: 'xxxx' } });
    await opened;
    await waitFor(() => expect(store.getState().sessions.get(id)?.elided.size).toBe(0));
    expect(store.getState().sessions.get(id)?.textsLost).toBe(0);
    await waitFor(() => expect(screen.queryByText(/reading the full prompts/)).toBeNull());
  });

  it('says in the comparison which side is still loading', async () => {
    const { store, worker, opened, sessionId } = mount();
    await releasePart(worker);
    await frames();
    const id = sessionId();
    await act(async () => {
      store.getState().setCompare({ a: id, b: id });
      store.getState().setPanel('compare');
    });
    expect(screen.getByTestId('compare-loading').textContent).toContain('big.rlm.jsonl');
    await act(async () => worker.release());
    await opened;
    await waitFor(() => expect(screen.queryByTestId('compare-loading')).toBeNull());
  });

  it('maps coverage over the whole session: the map waits, and says so, while the log loads', async () => {
    const { store, svc, worker, opened, sessionId } = mount();
    /** What the page sends the coverage worker; it never answers (the map's own tests do that). */
    const sent: CoverageIn[] = [];
    setCoverageWorkerFactory(() => ({ postMessage: (m: CoverageIn) => void sent.push(m), terminate: () => {} }) as unknown as Worker);
    await releasePart(worker);
    await frames();
    const id = sessionId();
    void computeCoverage(svc, id, Object.assign(new NodeBlob(['context']) as unknown as Blob, { name: 'ctx.txt' }));
    await frames();
    expect(screen.getByTestId('coverage-working').textContent).toMatch(/Waiting for the log to finish loading/);
    expect(sent.map((m) => m.kind)).toEqual(['start']);
    await act(async () => worker.release());
    await opened;
    await waitFor(() => expect(sent.at(-1)?.kind).toBe('finish'));
    const sources = sent.flatMap((m) => (m.kind === 'sources' ? m.list : []));
    const traj = store.getState().sessions.get(id)?.traj;
    if (!traj) throw new Error('the session is gone');
    expect(sources.length).toBe([...coverageSources(traj)].length);
    expect(screen.getByTestId('coverage-working').textContent).toMatch(/Matching the context in a worker/);
  });
});
