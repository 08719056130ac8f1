// The New run form's choice of where a child run's llm_query goes, as sent in `session.start`.
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { ClientMessage, EndpointProfile, Replies } from '../../../src-shared/protocol.ts';
import { ServicesProvider } from '../../../src-renderer/app/context.tsx';
import { Services } from '../../../src-renderer/app/services.ts';
import { createStudioStore } from '../../../src-renderer/store/studio.ts';
import { MemoryCarrier } from '../../../src-shared/memory-carrier.ts';
import { NewRunForm } from '../../../src-renderer/views/NewRunForm.tsx';

const DEMO: EndpointProfile = {
  name: 'demo',
  baseUrl: 'http://127.0.0.1/v1',
  model: 'mock-root',
  subModel: null,
  apiKeyRef: null,
  prices: {},
};

/** A host with one profile that refuses every start: the test reads what was sent. */
class Host extends MemoryCarrier {
  override send(m: ClientMessage): void {
    super.send(m);
    const reply = (result: Replies[keyof Replies]): void =>
      queueMicrotask(() => this.deliver({ kind: 'reply', id: m.id, ok: true, result }));
    switch (m.command.type) {
      case 'hello':
        return reply({ protocol: 1, host: 'test' });
      case 'runs.recent':
        return reply({ runs: [] });
      case 'sessions.list':
        return reply({ sessions: [] });
      case 'profiles.list':
        return reply({ profiles: [DEMO] });
      case 'session.start':
        return queueMicrotask(() =>
          this.deliver({ kind: 'reply', id: m.id, ok: false, error: { code: 'bad_request', message: 'no runs in this test' } }),
        );
      default:
        return;
    }
  }
}

describe("New run form: a child run's llm_query", () => {
  it("sends nothing by default (the sub model) and childLlmModel 'own' when chosen", async () => {
    const carrier = new Host();
    carrier.setState('open');
    const store = createStudioStore();
    render(
      <ServicesProvider services={new Services(store, carrier, () => null)}>
        <NewRunForm />
      </ServicesProvider>,
    );
    await waitFor(() => expect(store.getState().profiles.length).toBe(1));
    const starts = () =>
      carrier.sent
        .map((m) => m.command)
        .filter((c): c is Extract<ClientMessage['command'], { type: 'session.start' }> => c.type === 'session.start');
    await act(async () => {
      fireEvent.click(screen.getByTestId('nr-start'));
    });
    expect(starts()[0]!.params.limits).toEqual({});
    fireEvent.change(screen.getByTestId('nr-child-llm-model'), { target: { value: 'own' } });
    await act(async () => {
      fireEvent.click(screen.getByTestId('nr-start'));
    });
    expect(starts()[1]!.params.limits).toEqual({ childLlmModel: 'own' });
  });
});
