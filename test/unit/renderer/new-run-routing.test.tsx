// The New run form's choice of where a child run's llm_query goes, as sent in `session.start`.
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { ClientMessage, EndpointProfile } from '../../../src-shared/protocol.ts';
import { ServicesProvider } from '../../../src-renderer/app/context.tsx';
import { Services } from '../../../src-renderer/app/services.ts';
import { createStudioStore } from '../../../src-renderer/store/studio.ts';
import { NewRunForm } from '../../../src-renderer/views/new-run/NewRunForm.tsx';
import { ScriptedHost, type HostCommand } from './helpers.ts';

const DEMO: EndpointProfile = {
  name: 'demo',
  baseUrl: 'http://127.0.0.1/v1',
  model: 'mock-root',
  subModel: null,
  apiKeyRef: null,
  prices: {},
};

/** A host with one profile that refuses every start: the test reads what was sent. */
class Host extends ScriptedHost {
  override profiles = [DEMO];
  protected override answer(c: HostCommand, id: number): boolean {
    if (c.type !== 'session.start') return false;
    this.refuse(id, 'no runs in this test');
    return true;
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
