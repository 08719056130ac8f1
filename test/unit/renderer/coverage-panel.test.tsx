// The coverage panel under the tree: its list of spans names who saw each (the model of which
// run), so it agrees with the session's figures; each share sits under its count; a context
// the host serves is used without asking once the session has ended; and the live controls'
// "follow" box is there only while the session runs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { computeCoverage } from '../../../src-shared/analysis/coverage.ts';
import { setCoverageWorkerFactory } from '../../../src-renderer/app/coverage-services.ts';
import { ServicesProvider } from '../../../src-renderer/app/context.tsx';
import { Services } from '../../../src-renderer/app/services.ts';
import type { CoverageIn } from '../../../src-renderer/lib/coverage-messages.ts';
import { createStudioStore } from '../../../src-renderer/store/studio.ts';
import { Controls } from '../../../src-renderer/views/Controls.tsx';
import { CoveragePanel } from '../../../src-renderer/views/CoverageView.tsx';
import type { SessionStatus } from '../../../src-shared/protocol.ts';
import { FIXTURES, fixtureEvents, hostSummary, servicesWith } from './helpers.ts';

afterEach(() => {
  // Unmounted first: a panel left without its map would start mapping again.
  cleanup();
  vi.unstubAllGlobals();
});

describe('the coverage panel', () => {
  it('c_recursive: the spans its child runs’ models saw name those runs, beside a root that saw none', () => {
    const { store, svc } = servicesWith(fixtureEvents('c_recursive.jsonl'));
    const traj = store.getState().sessions.get('s1')?.traj;
    if (!traj) throw new Error('the session is not open');
    const report = computeCoverage(readFileSync(join(FIXTURES, 'contexts/c_recursive.txt'), 'utf8'), traj);
    act(() => store.coverage.getState().set('s1', { status: 'done', fileName: 'c_recursive.txt', report, largestUnseen: [], ms: 1 }));
    render(
      <ServicesProvider services={svc}>
        <CoveragePanel sessionId="s1" />
      </ServicesProvider>,
    );
    const session = within(screen.getByTestId('coverage-figures')).getByText('session').closest('tr');
    if (!session) throw new Error('no session row');
    // The root run's model saw nothing of the context: 0, its share under it.
    const rootSaw = session.querySelectorAll('td')[0];
    expect(rootSaw?.firstChild?.textContent).toBe('0');
    expect(rootSaw?.querySelector('.coverage-pct')?.textContent).toBe('0.0%');
    const seen = screen.getAllByTestId('coverage-seen').map((b) => b.textContent.trim());
    expect(seen).not.toContainEqual(expect.stringContaining('root'));
    expect(seen).toContain('0–76 · model of r0/2.0.0 · #1');
    expect(seen).toContain('1,279–1,356 · model of r0/3.0.0 · #1');
    expect(seen).toContain('0–1,280 · child r0/2.0.0 · from r0 #2');
  });
});

/** A page with no host connection whose host serves sessions' contexts at `/api/context`. */
function contextServingPage() {
  const store = createStudioStore();
  const svc = new Services(
    store,
    null,
    () => null,
    undefined,
    null,
    (id) => `http://host.test/api/context?session=${id}`,
  );
  return { store, svc };
}

/** A host session with the given status, in a page whose host serves its context as `demo-needle.txt`. */
function hostSession(status: SessionStatus) {
  const { store, svc } = contextServingPage();
  store.getState().upsertSummary(hostSummary('h1', { status, readOnly: status === 'saved' }));
  const requests: string[] = [];
  vi.stubGlobal('fetch', async (_url: string, init?: RequestInit) => {
    const method = init?.method ?? 'GET';
    requests.push(method);
    const headers = { 'X-Context-Name': 'demo-needle.txt', 'Content-Length': '23' };
    return new Response(method === 'HEAD' ? null : 'the needle context text', { status: 200, headers });
  });
  const sent: CoverageIn[] = [];
  setCoverageWorkerFactory(() => ({ postMessage: (m: CoverageIn) => void sent.push(m), terminate: () => {} }) as unknown as Worker);
  render(
    <ServicesProvider services={svc}>
      <Controls sessionId="h1" />
      <CoveragePanel sessionId="h1" />
    </ServicesProvider>,
  );
  return { store, requests, sent };
}

describe('the coverage panel with a host that knows the context', () => {
  it('an ended session: the context is read from the host and mapped without asking', async () => {
    const { requests, sent } = hostSession('finished');
    await waitFor(() => expect(sent[0]?.kind).toBe('start'));
    expect(requests).toEqual(['HEAD', 'GET']);
    const start = sent[0];
    if (start?.kind !== 'start') throw new Error('no start');
    expect(await start.context.text()).toBe('the needle context text');
    const panel = screen.getByTestId('coverage-panel');
    expect(panel.textContent).toContain('Context: demo-needle.txt');
    expect(panel.textContent).not.toContain('Pick the context file');
    // Nothing to follow in a session that has ended.
    expect(screen.queryByTestId('follow')).toBeNull();
  });

  it('a running session: offered (its map would be of what ran so far), mapped once it ends', async () => {
    const { store, requests, sent } = hostSession('running');
    const offer = await screen.findByTestId('coverage-host-context');
    expect(offer.textContent).toContain('demo-needle.txt');
    expect(screen.getByTestId('coverage-panel').textContent).not.toContain('Pick the context file');
    expect(requests).toEqual(['HEAD']);
    expect(sent).toEqual([]);
    expect(screen.getByTestId('follow')).toBeTruthy();
    act(() => store.getState().upsertSummary(hostSummary('h1', { status: 'finished', readOnly: false })));
    await waitFor(() => expect(sent[0]?.kind).toBe('start'));
    expect(requests).toEqual(['HEAD', 'GET']);
    expect(screen.queryByTestId('follow')).toBeNull();
  });
});

describe('the coverage panel on a switch of session', () => {
  it('does not take the last session’s context for the next one (whose host has none)', async () => {
    const { store, svc } = contextServingPage();
    store.getState().upsertSummary(hostSummary('h1', { status: 'finished', readOnly: false }));
    store.getState().upsertSummary(hostSummary('h2', { status: 'saved' }));
    const requests: string[] = [];
    vi.stubGlobal('fetch', async (url: string, init?: RequestInit) => {
      requests.push(`${init?.method ?? 'GET'} ${url.slice(url.indexOf('=') + 1)}`);
      // The host knows h1's context only: 204 for h2's HEAD, 404 for its GET.
      if (url.endsWith('h2')) return new Response(null, { status: init?.method === 'HEAD' ? 204 : 404 });
      const headers = { 'X-Context-Name': 'demo-needle.txt', 'Content-Length': '23' };
      return new Response(init?.method === 'HEAD' ? null : 'the needle context text', { status: 200, headers });
    });
    setCoverageWorkerFactory(() => ({ postMessage: () => {}, terminate: () => {} }) as unknown as Worker);
    const view = (id: string) => (
      <ServicesProvider services={svc}>
        <CoveragePanel sessionId={id} />
      </ServicesProvider>
    );
    const { rerender } = render(view('h1'));
    await waitFor(() => expect(requests).toContain('GET h1'));
    rerender(view('h2'));
    await waitFor(() => expect(requests).toContain('HEAD h2'));
    await act(async () => new Promise<void>((r) => setTimeout(r, 20)));
    expect(requests).not.toContain('GET h2');
    expect(store.coverage.getState().bySession.get('h2')).toBeUndefined();
    expect(screen.getByTestId('coverage-panel').textContent).toContain('Pick the context file this session ran on');
  });
});

describe('the follow box', () => {
  it('is not shown for a log opened in the page', () => {
    const { svc } = servicesWith(fixtureEvents('c_recursive.jsonl'));
    render(
      <ServicesProvider services={svc}>
        <Controls sessionId="s1" />
      </ServicesProvider>,
    );
    expect(screen.getByTestId('session-status').textContent).toBe('local');
    expect(screen.queryByTestId('follow')).toBeNull();
  });
});
