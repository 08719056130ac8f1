// Forking from an iteration and re-executing a log, as sent in `session.fork` and
// `session.rerun`: a session this host ran forks with its recorded endpoint and no context;
// "keep the recorded reply" sends it as the edited reply with a stop after it at that iteration
// only; an imported reference log must be given its context (and goes to the host as a native
// log that says it is Python), for a fork as for a re-execution.
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { asSessionId } from '../../../src-shared/events.ts';
import type { ClientMessage } from '../../../src-shared/protocol.ts';
import { App } from '../../../src-renderer/App.tsx';
import { ServicesProvider } from '../../../src-renderer/app/context.tsx';
import { Services } from '../../../src-renderer/app/services.ts';
import { usePrefs } from '../../../src-renderer/store/prefs.ts';
import { createStudioStore } from '../../../src-renderer/store/studio.ts';
import type { MemoryCarrier } from '../../support/memory-carrier.ts';
import { fixtureEvents, ScriptedHost, type HostCommand, hostSummary } from './helpers.ts';

const SUMMARY = hostSummary('h1', {
  title: 'a run',
  status: 'finished',
  logFile: '/runs/a.rlm.jsonl',
  readOnly: false,
  createdAt: '2026-12-02T10:00:00.000Z',
  model: 'mock-root',
});

/** Answers the listing commands and records everything; forks and opens are refused (the test reads what was sent). */
class ForkHost extends ScriptedHost {
  protected override answer(c: HostCommand, id: number): boolean {
    switch (c.type) {
      case 'session.openText':
        this.replyTo(id, { session: { ...SUMMARY, sessionId: 'uploaded', title: c.name, readOnly: true, status: 'saved', logFile: null } });
        return true;
      case 'session.fork':
      case 'session.rerun':
        this.refuse(id, 'not in this test');
        return true;
      default:
        return false;
    }
  }
}

const forks = (carrier: MemoryCarrier) =>
  carrier.sent
    .map((m) => m.command)
    .filter((c): c is Extract<ClientMessage['command'], { type: 'session.fork' }> => c.type === 'session.fork');

async function mount(opts: { local: boolean; rerunOf?: boolean }) {
  usePrefs.getState().set({ treeMode: 'list' });
  const carrier = new ForkHost();
  if (!opts.local) carrier.sessions = [SUMMARY];
  carrier.setState('open');
  const store = createStudioStore();
  const svc = new Services(store, carrier, () => null);
  const id = opts.local ? 'local-1' : 'h1';
  const events = fixtureEvents('a_needle.jsonl');
  if (opts.local) {
    act(() => {
      store.getState().addLocalSession(id, 'a_needle.jsonl');
      store.getState().setFormat(id, 'rlm-python');
    });
  } else await waitFor(() => expect(store.getState().sessions.has(id)).toBe(true));
  if (opts.rerunOf) {
    act(() =>
      store.getState().setHeader(id, {
        format: 'rlm-studio',
        version: 1,
        sessionId: asSessionId(id),
        createdAt: '2026-12-02T10:00:00.000Z',
        repl: 'python',
        rerunOf: { logFile: 'a_needle.jsonl', format: 'rlm-python' },
      }),
    );
  }
  act(() => {
    store.getState().ingestEvents(id, events);
    store.getState().flushEvents();
    store.getState().setActive(id);
    store.getState().select(id, { runId: events[0]!.runId, iteration: 2 });
  });
  render(
    <ServicesProvider services={svc}>
      <App />
    </ServicesProvider>,
  );
  return { carrier, store, runId: events[0]!.runId, events };
}

describe('Fork from here…', () => {
  it('forks a session this host ran with its recorded endpoint, or keeping the reply to edit its code', async () => {
    const { carrier, runId, events } = await mount({ local: false });
    fireEvent.click(screen.getByTestId('fork'));
    expect(screen.queryByTestId('fork-context-path')).toBeNull();
    await act(async () => {
      fireEvent.click(screen.getByTestId('fork-start'));
    });
    expect(forks(carrier).map((c) => c.params)).toEqual([{ breakpoints: [], sessionId: 'h1', runId, iteration: 2 }]);
    fireEvent.click(screen.getByTestId('fork-edit'));
    fireEvent.change(screen.getByTestId('fork-profile'), { target: { value: 'demo' } });
    await act(async () => {
      fireEvent.click(screen.getByTestId('fork-start'));
    });
    const reply = events.find((e) => e.type === 'model.reply' && e.runId === runId && e.iteration === 2);
    expect(reply?.type === 'model.reply' && reply.text.length).toBeGreaterThan(0);
    expect(forks(carrier)[1]?.params).toEqual({
      sessionId: 'h1',
      runId,
      iteration: 2,
      profile: 'demo',
      editedReply: reply?.type === 'model.reply' ? reply.text : null,
      breakpoints: [{ kind: 'after_reply', depths: [0], iterations: [2] }],
    });
  });

  it('leaves the paper-era protocol to the source unless it is set in the form', async () => {
    const { carrier, runId } = await mount({ local: false });
    fireEvent.click(screen.getByTestId('fork'));
    const select = screen.getByTestId<HTMLSelectElement>('fork-final-patterns');
    expect(select.value).toBe('source');
    for (const choice of ['on', 'off', 'source']) {
      fireEvent.change(select, { target: { value: choice } });
      await act(async () => {
        fireEvent.click(screen.getByTestId('fork-start'));
      });
    }
    expect(forks(carrier).map((c) => c.params)).toEqual([
      { breakpoints: [], sessionId: 'h1', runId, iteration: 2, finalPatterns: true },
      { breakpoints: [], sessionId: 'h1', runId, iteration: 2, finalPatterns: false },
      { breakpoints: [], sessionId: 'h1', runId, iteration: 2 },
    ]);
  });

  it('sends a sub-calls endpoint only when one is picked (or none, to use the endpoint above)', async () => {
    const { carrier } = await mount({ local: false });
    fireEvent.click(screen.getByTestId('fork'));
    const pick = screen.getByTestId<HTMLSelectElement>('fork-sub-profile');
    expect(pick.value).toBe('keep');
    fireEvent.change(pick, { target: { value: 'p:demo' } });
    await act(async () => {
      fireEvent.click(screen.getByTestId('fork-start'));
    });
    expect(forks(carrier)[0]?.params).toMatchObject({ subProfile: 'demo' });
    fireEvent.change(screen.getByTestId('fork-sub-profile'), { target: { value: 'none' } });
    await act(async () => {
      fireEvent.click(screen.getByTestId('fork-start'));
    });
    expect(forks(carrier)[1]?.params).toMatchObject({ subProfile: null });
  });

  it('asks an imported reference log for its context, then hands the log to the host and forks with it', async () => {
    const { carrier, runId } = await mount({ local: true });
    fireEvent.click(screen.getByTestId('fork'));
    // No "as recorded" endpoint for a log the host never ran.
    expect([...screen.getByTestId<HTMLSelectElement>('fork-profile').options].map((o) => o.value)).toEqual(['demo']);
    await act(async () => {
      fireEvent.click(screen.getByTestId('fork-start'));
    });
    expect(screen.getByTestId('fork-error').textContent).toMatch(/does not hold its context/);
    expect(forks(carrier)).toEqual([]);
    fireEvent.change(screen.getByTestId('fork-context-path'), { target: { value: '/ctx/a_needle.txt' } });
    fireEvent.change(screen.getByTestId('fork-tools'), { target: { value: ' /ctx/tools.mjs ' } });
    await act(async () => {
      fireEvent.click(screen.getByTestId('fork-start'));
    });
    await waitFor(() => expect(forks(carrier)).toHaveLength(1));
    // The log goes to the host as a native log whose header says its code is Python.
    const sent = carrier.sent.map((m) => m.command).find((c) => c.type === 'session.openText');
    expect(sent?.type === 'session.openText' && JSON.parse(sent.text.split('\n', 1)[0]!)).toMatchObject({
      format: 'rlm-studio',
      repl: 'python',
    });
    expect(forks(carrier)[0]?.params).toEqual({
      breakpoints: [],
      profile: 'demo',
      context: { kind: 'file', path: '/ctx/a_needle.txt' },
      tools: '/ctx/tools.mjs',
      sessionId: 'uploaded',
      runId,
      iteration: 2,
    });
  });
});

describe('Fork from here… of a re-execution this host ran', () => {
  it('needs an endpoint chosen, and may leave the context to the one it was re-executed with', async () => {
    const { carrier, runId } = await mount({ local: false, rerunOf: true });
    fireEvent.click(screen.getByTestId('fork'));
    expect([...screen.getByTestId<HTMLSelectElement>('fork-profile').options].map((o) => o.value)).toEqual(['demo']);
    expect(screen.getByTestId('fork-context-path')).toBeTruthy();
    await act(async () => {
      fireEvent.click(screen.getByTestId('fork-start'));
    });
    expect(forks(carrier).map((c) => c.params)).toEqual([{ breakpoints: [], profile: 'demo', sessionId: 'h1', runId, iteration: 2 }]);
  });
});

describe('Re-execute…', () => {
  it('asks an imported log for its context and sends it with the tools module', async () => {
    const { carrier } = await mount({ local: true });
    fireEvent.click(screen.getByTestId('rerun'));
    await act(async () => {
      fireEvent.click(screen.getByTestId('rerun-start'));
    });
    expect(screen.getByTestId('rerun-error').textContent).toMatch(/does not hold its context/);
    fireEvent.change(screen.getByTestId('rerun-context-path'), { target: { value: '/ctx/a_needle.txt' } });
    fireEvent.change(screen.getByTestId('rerun-tools'), { target: { value: '/ctx/tools.mjs' } });
    await act(async () => {
      fireEvent.click(screen.getByTestId('rerun-start'));
    });
    const reruns = () => carrier.sent.map((m) => m.command).filter((c) => c.type === 'session.rerun');
    await waitFor(() => expect(reruns()).toHaveLength(1));
    expect(reruns()[0]).toEqual({
      type: 'session.rerun',
      params: { sessionId: 'uploaded', context: { kind: 'file', path: '/ctx/a_needle.txt' }, tools: '/ctx/tools.mjs' },
    });
  });

  it('re-executes a session this host ran without asking for anything', async () => {
    const { carrier } = await mount({ local: false });
    fireEvent.click(screen.getByTestId('rerun'));
    expect(screen.queryByTestId('rerun-context-path')).toBeNull();
    await act(async () => {
      fireEvent.click(screen.getByTestId('rerun-start'));
    });
    expect(carrier.sent.map((m) => m.command).filter((c) => c.type === 'session.rerun')).toEqual([
      { type: 'session.rerun', params: { sessionId: 'h1' } },
    ]);
  });
});
