// Worked examples in the app: the run header lists the logs a run was shown (open in the app
// through the host, or the path to copy without one), and the New run form sends the
// example logs and budget, starting from the profile's.
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import type { EndpointProfile } from '../../../src-shared/protocol.ts';
import { App } from '../../../src-renderer/App.tsx';
import { ServicesProvider } from '../../../src-renderer/app/context.tsx';
import { Services } from '../../../src-renderer/app/services.ts';
import { usePrefs } from '../../../src-renderer/store/prefs.ts';
import { createStudioStore } from '../../../src-renderer/store/studio.ts';
import { examplesOf } from '../../../src-renderer/views/ExamplesField.tsx';
import { NewRunForm } from '../../../src-renderer/views/new-run/NewRunForm.tsx';
import { EMPTY_DRAFT, validateDraft, type ProfileDraft } from '../../../src-renderer/views/profiles/profile-draft.ts';
import { MemoryCarrier } from '../../support/memory-carrier.ts';
import { servicesWith, ScriptedHost, type HostCommand } from './helpers.ts';

const EXAMPLES = [
  { source: '/runs/good.rlm.jsonl', chars: 4321, repl: 'javascript' as const },
  { source: '/fixtures/c_recursive.jsonl', chars: 1577, repl: 'python' as const },
];

function runEvents(examples: typeof EXAMPLES | undefined, sampling?: object, prompts?: object): TrajectoryEvent[] {
  const env = (seq: number, extra: object) => ({
    v: 1,
    seq,
    t: seq * 10,
    ts: '2026-01-01T00:00:00.000Z',
    runId: 'run-0',
    parentRunId: null,
    depth: 0,
    ...extra,
  });
  const limits = {
    maxDepth: 1,
    maxIterations: 30,
    maxBudgetUsd: null,
    maxTimeoutMs: null,
    maxTokens: null,
    maxErrors: null,
    maxConcurrencyLlm: 16,
    maxConcurrencyRlm: 4,
  };
  return [
    env(0, {
      type: 'run.start',
      spawnedBy: null,
      turn: 0,
      model: 'mock-root',
      subModel: null,
      query: 'q',
      context: { type: 'string', totalChars: 3, chunkLengths: [3] },
      limits,
      messages: [{ role: 'system', content: 'sys' }],
      tools: [],
      repl: 'javascript',
      ...(examples ? { examples } : {}),
      ...(sampling ? { sampling } : {}),
      ...(prompts ? { prompts } : {}),
    }),
  ] as unknown as TrajectoryEvent[];
}

function mountApp(events: TrajectoryEvent[], carrier: MemoryCarrier | null) {
  usePrefs.getState().set({ treeMode: 'list' });
  const { svc } = servicesWith(events, 'fixture', carrier);
  render(
    <ServicesProvider services={svc}>
      <App />
    </ServicesProvider>,
  );
}

describe('the run header', () => {
  it('without a host: each example path with a copy button', async () => {
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    mountApp(runEvents(EXAMPLES), null);
    const line = screen.getByTestId('run-examples');
    expect(line.textContent).toContain('/runs/good.rlm.jsonl');
    expect(line.textContent).toContain('(4,321 chars)');
    expect(line.textContent).toContain('/fixtures/c_recursive.jsonl');
    expect(screen.queryByTestId('run-example-open-0')).toBeNull();
    await act(async () => {
      fireEvent.click(screen.getByTestId('run-example-copy-1'));
    });
    expect(writeText).toHaveBeenCalledWith('/fixtures/c_recursive.jsonl');
    expect(screen.getByTestId('run-example-copy-1').textContent).toBe('copied');
  });

  it('with a host: a button opens the example log through the host', async () => {
    const carrier = new MemoryCarrier();
    carrier.setState('open');
    mountApp(runEvents(EXAMPLES), carrier);
    await act(async () => {
      fireEvent.click(screen.getByTestId('run-example-open-1'));
    });
    await waitFor(() =>
      expect(carrier.sent.map((m) => m.command).filter((c) => c.type === 'session.open')).toEqual([
        { type: 'session.open', path: '/fixtures/c_recursive.jsonl' },
      ]),
    );
  });

  it('a run given no examples shows no line', () => {
    mountApp(runEvents(undefined), null);
    expect(screen.queryByTestId('run-examples')).toBeNull();
    expect(screen.queryByTestId('run-sampling')).toBeNull();
    expect(screen.queryByTestId('run-prompts')).toBeNull();
  });

  it('names the prompt pack the run read, with the start of its hash', () => {
    mountApp(runEvents(undefined, undefined, { name: 'reference-rlm-0.1.3', hash: '0123456789abcdef' }), null);
    expect(screen.getByTestId('run-prompts').textContent).toBe('prompts: reference-rlm-0.1.3 (01234567)');
  });

  it("shows the request fields of the run's turns and of its sub-calls' client", () => {
    mountApp(runEvents(undefined, { turns: { temperature: 0.2, seed: 11 }, subcalls: { top_p: 0.9, reasoning: { effort: 'low' } } }), null);
    expect(screen.getByTestId('run-sampling').textContent).toBe(
      'requests: temperature 0.2 · seed 11; sub-calls: top_p 0.9 · reasoning {"effort":"low"}',
    );
  });
});

const PLAIN: EndpointProfile = {
  name: 'demo',
  baseUrl: 'http://127.0.0.1/v1',
  model: 'mock-root',
  subModel: null,
  apiKeyRef: null,
  prices: {},
};
const TAUGHT: EndpointProfile = {
  name: 'taught',
  baseUrl: 'http://127.0.0.1:8000/v1',
  model: 'm',
  subModel: null,
  apiKeyRef: null,
  prices: {},
  examples: ['/runs/a.rlm.jsonl', '/runs/b.jsonl'],
  exampleBudget: 8000,
};

class ProfilesHost extends ScriptedHost {
  override profiles = [PLAIN, TAUGHT];
  protected override answer(c: HostCommand, id: number): boolean {
    if (c.type !== 'session.start') return false;
    this.refuse(id, 'not in this test');
    return true;
  }
}

describe('the New run form', () => {
  it("starts from the profile's examples, sends what it shows, [] to drop them, and names a bad budget", async () => {
    const carrier = new ProfilesHost();
    carrier.setState('open');
    const store = createStudioStore();
    const svc = new Services(store, carrier, () => null);
    render(
      <ServicesProvider services={svc}>
        <NewRunForm />
      </ServicesProvider>,
    );
    await waitFor(() => expect(store.getState().profiles.length).toBe(2));
    const paths = (): HTMLTextAreaElement => screen.getByTestId<HTMLTextAreaElement>('nr-examples');
    const budget = (): HTMLInputElement => screen.getByTestId<HTMLInputElement>('nr-example-budget');
    const start = async (): Promise<void> => {
      await act(async () => {
        fireEvent.click(screen.getByTestId('nr-start'));
      });
    };
    const sent = () => carrier.sent.map((m) => m.command).flatMap((c) => (c.type === 'session.start' ? [c.params] : []));

    await start(); // demo: no examples, nothing sent for them
    fireEvent.change(screen.getByTestId('nr-profile'), { target: { value: 'taught' } });
    expect(paths().value).toBe('/runs/a.rlm.jsonl\n/runs/b.jsonl');
    expect(budget().value).toBe('8000');
    fireEvent.change(paths(), { target: { value: ' /runs/a.rlm.jsonl \n\n/runs/c.jsonl\n' } });
    fireEvent.change(budget(), { target: { value: '3000' } });
    await start();
    fireEvent.change(paths(), { target: { value: '' } });
    fireEvent.change(budget(), { target: { value: '' } });
    await start();
    fireEvent.change(budget(), { target: { value: '12k' } });
    await start();
    expect(screen.getByTestId('nr-error').textContent).toMatch(/Example budget must be a positive whole number of characters, got "12k"/);

    const params = sent();
    expect(params).toHaveLength(3);
    expect(params[0]).not.toHaveProperty('examples');
    expect(params[0]).not.toHaveProperty('exampleBudget');
    expect(params[1]).toMatchObject({ profile: 'taught', examples: ['/runs/a.rlm.jsonl', '/runs/c.jsonl'], exampleBudget: 3000 });
    expect(params[2]).toMatchObject({ profile: 'taught', examples: [] });
    expect(params[2]).not.toHaveProperty('exampleBudget');
  });
});

describe('profiles', () => {
  const base: ProfileDraft = { ...EMPTY_DRAFT, name: 'x', baseUrl: 'http://h:2/v1', model: 'm' };
  it('keeps example paths and a budget; none are left out; a bad budget is named', () => {
    expect(validateDraft({ ...base, examples: '/a.jsonl\n /b.jsonl ', exampleBudget: '5000' }, [])).toMatchObject({
      profile: { examples: ['/a.jsonl', '/b.jsonl'], exampleBudget: 5000 },
    });
    const plain = validateDraft(base, []);
    expect('profile' in plain && plain.profile).not.toHaveProperty('examples');
    expect('profile' in plain && plain.profile).not.toHaveProperty('exampleBudget');
    expect(validateDraft({ ...base, exampleBudget: '0' }, [])).toMatchObject({
      errors: { examples: expect.stringMatching(/positive whole number/) },
    });
    expect(examplesOf('', '')).toEqual({ examples: [] });
  });
});
