// The follow-up form: what it sends as `session.followUp` for each kind of context, and the
// host's reason shown instead of the form when a follow-up cannot be asked.
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../../src-shared/protocol.ts';
import { ServicesProvider } from '../../../src-renderer/app/context.tsx';
import { FollowUpForm, followUpContext } from '../../../src-renderer/views/FollowUpForm.tsx';
import { connectedServices, ScriptedHost, type HostCommand, hostSummary } from './helpers.ts';
import { asRunId } from '../../../src-shared/events.ts';
import { runStart, Script } from '../trajectory/synthetic.ts';

const summary = (followUp: SessionSummary['followUp'], status: SessionSummary['status'] = 'finished'): SessionSummary =>
  hostSummary('h1', {
    title: 'demo',
    status,
    logFile: '/runs/a.rlm.jsonl',
    readOnly: false,
    createdAt: '2026-01-01T00:00:00.000Z',
    model: 'mock-root',
    eventCount: 10,
    ...(followUp === undefined ? {} : { followUp }),
  });

/** Answers `session.followUp` with the session running; anything else is left unanswered. */
class FollowUpHost extends ScriptedHost {
  protected override answer(c: HostCommand, id: number): boolean {
    if (c.type !== 'session.followUp') return false;
    this.replyTo(id, { session: summary({ ready: false, reason: 'the session is running; ask once it has finished' }, 'running') });
    return true;
  }
}

function mount(s: SessionSummary) {
  const carrier = new FollowUpHost();
  const { store, svc } = connectedServices(carrier, s);
  render(
    <ServicesProvider services={svc}>
      <FollowUpForm sessionId="h1" />
    </ServicesProvider>,
  );
  const sent = () => carrier.sent.map((m) => m.command).filter((c) => c.type === 'session.followUp');
  /** Adds root runs (turns) until the session has `n`. */
  const turns = (n: number): void => {
    const script = new Script();
    for (let t = store.getState().sessions.get('h1')!.traj.roots.length; t < n; t++)
      runStart(script, { runId: asRunId(`r${t}`), parentRunId: null, depth: 0 }, t);
    act(() => {
      store.getState().ingestEvents('h1', script.events);
      store.getState().flushEvents();
    });
  };
  return { sent, turns };
}

describe('FollowUpForm', () => {
  it('names the REPL variables the follow-up will see, for one earlier turn and for several', () => {
    const { turns } = mount(summary({ ready: true, reason: null }));
    turns(1);
    const note = (): string => screen.getByText(/runs in the same REPL/).textContent ?? '';
    expect(note()).toContain('(turn 1, counting from 0)');
    expect(note()).toContain("context becomes context_1, the first turn's messages are history_0.");
    turns(2);
    expect(note()).toContain("context becomes context_2, the earlier turns' messages are history_0…history_1.");
  });

  it('sends the question alone: the host makes it the turn context', async () => {
    const { sent } = mount(summary({ ready: true, reason: null }));
    const ask = screen.getByTestId<HTMLButtonElement>('fu-ask');
    expect(ask.disabled).toBe(true);
    fireEvent.change(screen.getByTestId('fu-query'), { target: { value: '  And the second one?  ' } });
    fireEvent.click(ask);
    await waitFor(() => expect(sent()).toHaveLength(1));
    expect(sent()[0]).toEqual({ type: 'session.followUp', params: { sessionId: 'h1', query: 'And the second one?' } });
  });

  it('names what is missing for a context kind before sending', () => {
    const base = { query: 'q', text: '', path: ' ', upload: null };
    expect(followUpContext({ ...base, kind: 'question' })).toBeNull();
    expect(followUpContext({ ...base, kind: 'text' })).toEqual({ error: 'paste the context text, or choose "the question itself"' });
    expect(followUpContext({ ...base, kind: 'text', text: 'doc' })).toEqual({ kind: 'text', text: 'doc' });
    expect(followUpContext({ ...base, kind: 'path' })).toEqual({ error: 'give the path of the context file on the host' });
    expect(followUpContext({ ...base, kind: 'path', path: ' data/b.json ' })).toEqual({ kind: 'file', path: 'data/b.json' });
    expect(followUpContext({ ...base, kind: 'upload' })).toEqual({ error: 'choose the context file' });
    expect(followUpContext({ ...base, kind: 'upload', upload: { text: '[1]', json: true } })).toEqual({ kind: 'json', json: '[1]' });
  });

  it('sends pasted context text with the question', async () => {
    const { sent } = mount(summary({ ready: true, reason: null }));
    fireEvent.change(screen.getByTestId('fu-query'), { target: { value: 'Compare with this.' } });
    fireEvent.change(screen.getByTestId('fu-context-kind'), { target: { value: 'text' } });
    expect(screen.getByTestId<HTMLButtonElement>('fu-ask').disabled).toBe(true);
    fireEvent.change(screen.getByTestId('fu-context-text'), { target: { value: 'Second document.' } });
    fireEvent.click(screen.getByTestId('fu-ask'));
    await waitFor(() => expect(sent()).toHaveLength(1));
    expect(sent()[0]).toEqual({
      type: 'session.followUp',
      params: { sessionId: 'h1', query: 'Compare with this.', context: { kind: 'text', text: 'Second document.' } },
    });
  });

  it("shows the host's reason instead of the form when the REPL is gone", () => {
    mount(summary({ ready: false, reason: 'its REPL was released after 10 min idle; start a new run (or fork) to continue' }));
    expect(screen.queryByTestId('follow-up')).toBeNull();
    expect(screen.getByTestId('follow-up-unavailable').textContent).toBe(
      'No follow-up: its REPL was released after 10 min idle; start a new run (or fork) to continue.',
    );
  });

  it('shows nothing while the session runs', () => {
    mount(summary({ ready: false, reason: 'the session is running' }, 'running'));
    expect(screen.queryByTestId('follow-up')).toBeNull();
    expect(screen.queryByTestId('follow-up-unavailable')).toBeNull();
  });
});
