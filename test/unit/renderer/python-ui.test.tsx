// The app's side of Python sessions: the REPL language a session shows (tree rows, run header,
// the language its code is coloured in), the New run form's language / system prompt / FINAL
// patterns as sent in `session.start`, a profile's language and prompt, and the variables of
// a paused Python session as the host lists them.
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { asSessionId, type LogHeader, type RunStartEvent } from '../../../src-shared/events.ts';
import type { ClientMessage, EndpointProfile, VariableView } from '../../../src-shared/protocol.ts';
import { App } from '../../../src-renderer/App.tsx';
import { ServicesProvider } from '../../../src-renderer/app/context.tsx';
import { Services } from '../../../src-renderer/app/services.ts';
import { runLanguage, sessionLanguage } from '../../../src-renderer/lib/repl-language.ts';
import { usePrefs } from '../../../src-renderer/store/prefs.ts';
import { createStudioStore } from '../../../src-renderer/store/studio.ts';
import { NewRunForm } from '../../../src-renderer/views/new-run/NewRunForm.tsx';
import { EMPTY_DRAFT, validateDraft, type ProfileDraft } from '../../../src-renderer/views/profiles/profile-draft.ts';
import type { MemoryCarrier } from '../../support/memory-carrier.ts';
import { fixtureEvents, servicesWith, ScriptedHost, type HostCommand, hostSummary } from './helpers.ts';

const DEMO: EndpointProfile = {
  name: 'demo',
  baseUrl: 'http://127.0.0.1/v1',
  model: 'mock-root',
  subModel: null,
  apiKeyRef: null,
  prices: {},
};
const PAPER: EndpointProfile = {
  name: 'paper',
  baseUrl: 'http://127.0.0.1:8001/v1',
  model: 'rlm-paper',
  subModel: null,
  apiKeyRef: null,
  prices: {},
  finalPatterns: true,
};
const QWEN: EndpointProfile = {
  name: 'qwen',
  baseUrl: 'http://127.0.0.1:8000/v1',
  model: 'rlm-qwen3-8b',
  subModel: null,
  apiKeyRef: null,
  prices: {},
  repl: 'python',
  systemPrompt: 'You are an RLM. Tools: {tools}',
};

const PY_VARS: VariableView[] = [
  { name: 'answer', type: 'dict', size: 2, preview: "{'content': '', 'ready': False}" },
  { name: 'hits', type: 'list', size: 3, preview: "['a', 'b', 'c']" },
  { name: 'count_words', type: 'function', size: null, preview: '<function count_words>' },
];

/** A host that lists profiles, refuses every start (the test reads what was sent), and lists Python variables. */
class PythonHost extends ScriptedHost {
  override profiles: EndpointProfile[] = [DEMO, QWEN, PAPER];
  protected override answer(c: HostCommand, id: number): boolean {
    if (c.type === 'session.variables') this.replyTo(id, { variables: PY_VARS });
    else if (c.type === 'session.start') this.refuse(id, 'no runs in this test');
    else return false;
    return true;
  }
}

const sentOf = <T extends ClientMessage['command']['type']>(carrier: MemoryCarrier, type: T) =>
  carrier.sent.map((m) => m.command).filter((c): c is Extract<ClientMessage['command'], { type: T }> => c.type === type);

async function mountForm() {
  const carrier = new PythonHost();
  carrier.setState('open');
  const store = createStudioStore();
  const svc = new Services(store, carrier, () => null);
  render(
    <ServicesProvider services={svc}>
      <NewRunForm />
    </ServicesProvider>,
  );
  await waitFor(() => expect(store.getState().profiles.length).toBe(3));
  return { store, carrier };
}

const PY_HEADER: LogHeader = {
  format: 'rlm-studio',
  version: 1,
  sessionId: asSessionId('py'),
  createdAt: '2026-12-02T10:00:00.000Z',
  repl: 'python',
};

describe('the REPL language of a session', () => {
  it('comes from the header, else the format (reference logs are Python), else JavaScript', () => {
    expect(sessionLanguage(undefined)).toBe('javascript');
    expect(sessionLanguage({ header: null, format: null, summary: null })).toBe('javascript');
    expect(sessionLanguage({ header: null, format: 'rlm-python', summary: null })).toBe('python');
    expect(sessionLanguage({ header: PY_HEADER, format: 'native', summary: null })).toBe('python');
    expect(sessionLanguage({ header: { ...PY_HEADER, repl: 'javascript' }, format: 'native', summary: null })).toBe('javascript');
    const { repl: _none, ...unnamed } = PY_HEADER;
    expect(
      sessionLanguage({
        header: { ...unnamed, rerunOf: { logFile: 'a_needle.jsonl', format: 'rlm-python' } },
        format: 'native',
        summary: null,
      }),
    ).toBe('python');
    expect(
      sessionLanguage({ header: { ...unnamed, rerunOf: { logFile: 'x.rlm.jsonl', format: 'native' } }, format: 'native', summary: null }),
    ).toBe('javascript');
    // A run that records its own language says so, whatever the session's.
    const start = fixtureEvents('c_recursive.jsonl').find((e): e is RunStartEvent => e.type === 'run.start');
    expect(start && runLanguage({ ...start, repl: 'python' }, 'javascript')).toBe('python');
    expect(start && runLanguage(start, 'python')).toBe('python');
  });

  it('is shown on every run in the tree and in the run header, and colours the code', () => {
    usePrefs.getState().set({ treeMode: 'list' });
    const { store, svc } = servicesWith(fixtureEvents('c_recursive.jsonl'));
    act(() => store.getState().setFormat('s1', 'rlm-python'));
    render(
      <ServicesProvider services={svc}>
        <App />
      </ServicesProvider>,
    );
    const tree = screen.getByRole('tree', { name: 'Recursion tree' });
    const runs = within(tree)
      .getAllByRole('treeitem')
      .filter((r) => r.hasAttribute('data-run-id'));
    expect(runs.length).toBeGreaterThan(1);
    for (const r of runs) {
      expect(r.getAttribute('data-repl')).toBe('python');
      expect(within(r).getByLabelText('Python REPL').textContent).toBe('py');
    }
    fireEvent.click(runs[1]!);
    expect(screen.getByTestId('run-repl').textContent).toBe('Python REPL');
    fireEvent.click(screen.getByTestId('iteration-1'));
    expect(screen.getByTestId('code-0').getAttribute('data-language')).toBe('python');
    expect(screen.getByTestId('output-0').getAttribute('data-language')).toBe('plaintext');
  });

  it('is JavaScript for a native log whose header names none', () => {
    // As written before Python: no language on the runs either.
    const events = fixtureEvents('c_recursive.jsonl').map((e) => {
      if (e.type !== 'run.start') return e;
      const { repl: _repl, ...rest } = e;
      return rest;
    });
    const { store, svc } = servicesWith(events);
    act(() => {
      store.getState().setFormat('s1', 'native');
      store
        .getState()
        .setHeader('s1', { format: 'rlm-studio', version: 1, sessionId: asSessionId('s1'), createdAt: '2026-12-02T10:00:00.000Z' });
      store.getState().select('s1', { iteration: 1 });
    });
    render(
      <ServicesProvider services={svc}>
        <App />
      </ServicesProvider>,
    );
    expect(screen.getByTestId('run-repl').textContent).toBe('JavaScript REPL');
    expect(screen.getByTestId('code-0').getAttribute('data-language')).toBe('javascript');
  });
});

describe('New run form: REPL language, system prompt, FINAL patterns', () => {
  it('sends Python, a system prompt loaded from a file and paper-era FINAL patterns', async () => {
    const { carrier } = await mountForm();
    const repl = screen.getByTestId<HTMLSelectElement>('nr-repl');
    expect(repl.value).toBe('javascript');
    fireEvent.change(repl, { target: { value: 'python' } });
    fireEvent.click(screen.getByTestId('nr-prompt-custom'));
    const file = new File(['Trained prompt. Tools: {tools}'], 'prompt.txt', { type: 'text/plain' });
    await act(async () => {
      fireEvent.change(screen.getByTestId('nr-system-prompt-file'), { target: { files: [file] } });
      await file.text();
    });
    await waitFor(() => expect(screen.getByTestId<HTMLTextAreaElement>('nr-system-prompt').value).toBe('Trained prompt. Tools: {tools}'));
    fireEvent.click(screen.getByTestId('nr-final-patterns'));
    fireEvent.change(screen.getByTestId('nr-tools'), { target: { value: '/work/tools.mjs' } });
    await act(async () => {
      fireEvent.click(screen.getByTestId('nr-start'));
    });
    expect(sentOf(carrier, 'session.start')).toEqual([
      {
        type: 'session.start',
        params: {
          profile: 'demo',
          context: { kind: 'demo', name: 'recursive' },
          query: null,
          limits: {},
          breakpoints: [],
          startPaused: false,
          repl: 'python',
          systemPrompt: 'Trained prompt. Tools: {tools}',
          finalPatterns: true,
          tools: '/work/tools.mjs',
        },
      },
    ]);
  });

  it("offers this machine's CPython and sends repl 'cpython', the built-in prompt still Python's", async () => {
    const { carrier } = await mountForm();
    const repl = screen.getByTestId<HTMLSelectElement>('nr-repl');
    expect([...repl.options].map((o) => o.value)).toEqual(['javascript', 'python', 'cpython']);
    fireEvent.change(repl, { target: { value: 'cpython' } });
    expect(screen.getByTestId('nr-prompt-profile').parentElement?.textContent).toContain('built-in, for Python');
    await act(async () => {
      fireEvent.click(screen.getByTestId('nr-start'));
    });
    expect(sentOf(carrier, 'session.start')[0]?.params).toMatchObject({ repl: 'cpython' });
  });

  it("takes a profile's paper-era setting, which the form can turn off, and says off otherwise", async () => {
    const { carrier } = await mountForm();
    const box = (): HTMLInputElement => screen.getByTestId<HTMLInputElement>('nr-final-patterns');
    expect(box().checked).toBe(false);
    fireEvent.change(screen.getByTestId('nr-profile'), { target: { value: 'paper' } });
    expect(box().checked).toBe(true);
    const start = async (): Promise<void> => {
      await act(async () => {
        fireEvent.click(screen.getByTestId('nr-start'));
      });
    };
    await start();
    fireEvent.click(box());
    await start();
    fireEvent.change(screen.getByTestId('nr-profile'), { target: { value: 'qwen' } });
    expect(box().checked).toBe(false);
    await start();
    expect(sentOf(carrier, 'session.start').map((c) => [c.params.profile, c.params.finalPatterns])).toEqual([
      ['paper', true],
      ['paper', false],
      ['qwen', false],
    ]);
  });

  it('sends a sub-calls profile when one is picked, and none by default', async () => {
    const { carrier } = await mountForm();
    await act(async () => {
      fireEvent.click(screen.getByTestId('nr-start'));
    });
    expect(sentOf(carrier, 'session.start')[0]!.params).not.toHaveProperty('subProfile');
    const pick = screen.getByTestId<HTMLSelectElement>('nr-sub-profile');
    expect([...pick.options].map((o) => o.value)).toEqual(['', 'demo', 'qwen', 'paper']);
    fireEvent.change(pick, { target: { value: 'qwen' } });
    await act(async () => {
      fireEvent.click(screen.getByTestId('nr-start'));
    });
    expect(sentOf(carrier, 'session.start')[1]!.params).toMatchObject({ profile: 'demo', subProfile: 'qwen' });
  });

  it('refuses an empty custom prompt in the form, with the reason', async () => {
    const { carrier } = await mountForm();
    fireEvent.click(screen.getByTestId('nr-prompt-custom'));
    await act(async () => {
      fireEvent.click(screen.getByTestId('nr-start'));
    });
    expect(screen.getByTestId('nr-error').textContent).toMatch(/system prompt is empty/);
    expect(sentOf(carrier, 'session.start')).toEqual([]);
  });

  it("takes a profile's language and prompt, and can ask for the built-in prompt instead", async () => {
    const { carrier } = await mountForm();
    fireEvent.change(screen.getByTestId('nr-profile'), { target: { value: 'qwen' } });
    expect(screen.getByTestId<HTMLSelectElement>('nr-repl').value).toBe('python');
    expect(screen.getByTestId('nr-prompt-profile').closest('label')!.textContent).toMatch(/profile's own/);
    await act(async () => {
      fireEvent.click(screen.getByTestId('nr-start'));
    });
    // The profile's prompt is the host's to apply: nothing sent for it.
    expect(sentOf(carrier, 'session.start')[0]!.params).not.toHaveProperty('systemPrompt');
    expect(sentOf(carrier, 'session.start')[0]!.params.repl).toBe('python');
    fireEvent.click(screen.getByTestId('nr-prompt-builtin'));
    fireEvent.change(screen.getByTestId('nr-repl'), { target: { value: 'javascript' } });
    await act(async () => {
      fireEvent.click(screen.getByTestId('nr-start'));
    });
    expect(sentOf(carrier, 'session.start')[1]!.params).toMatchObject({ profile: 'qwen', repl: 'javascript', systemPrompt: null });
  });
});

describe('profiles: REPL language and system prompt', () => {
  const base: ProfileDraft = { ...EMPTY_DRAFT, name: 'x', baseUrl: 'http://h:2/v1', model: 'm' };
  it('keeps Python and a prompt; JavaScript and an empty prompt are left out', () => {
    expect(validateDraft({ ...base, repl: 'python', systemPrompt: 'P {tools}' }, [])).toEqual({
      profile: {
        name: 'x',
        baseUrl: 'http://h:2/v1',
        model: 'm',
        subModel: null,
        apiKeyRef: null,
        prices: {},
        repl: 'python',
        systemPrompt: 'P {tools}',
      },
    });
    const plain = validateDraft({ ...base, systemPrompt: '   ' }, []);
    expect(plain).toHaveProperty('profile');
    expect('profile' in plain && Object.keys(plain.profile)).not.toContain('repl');
    expect('profile' in plain && Object.keys(plain.profile)).not.toContain('systemPrompt');
    expect('profile' in plain && Object.keys(plain.profile)).not.toContain('finalPatterns');
    expect(validateDraft({ ...base, finalPatterns: true }, [])).toMatchObject({ profile: { finalPatterns: true } });
    // The protocol's own schema has the last word (a prompt over its size limit).
    expect(validateDraft({ ...base, systemPrompt: 'x'.repeat(1_000_001) }, [])).toMatchObject({
      errors: { systemPrompt: expect.stringContaining('systemPrompt') },
    });
  });

  it('saves them from the panel and lists them', async () => {
    const { carrier } = await mountForm();
    fireEvent.click(screen.getByTestId('nr-manage-profiles'));
    const dialog = screen.getByRole('dialog', { name: 'Endpoint profiles' });
    expect(within(dialog).getByTestId('pp-row-qwen').textContent).toMatch(/Python.*own \(30 characters\)/);
    fireEvent.click(within(dialog).getByTestId('pp-add'));
    fireEvent.change(screen.getByTestId('pp-name'), { target: { value: 'paper2' } });
    fireEvent.change(screen.getByTestId('pp-base-url'), { target: { value: 'http://127.0.0.1:2/v1' } });
    fireEvent.change(screen.getByTestId('pp-model'), { target: { value: 'm' } });
    fireEvent.change(screen.getByTestId('pp-repl'), { target: { value: 'python' } });
    fireEvent.change(screen.getByTestId('pp-system-prompt'), { target: { value: 'Trained prompt' } });
    fireEvent.click(screen.getByTestId('pp-final-patterns'));
    await act(async () => {
      fireEvent.click(screen.getByTestId('pp-save'));
    });
    expect(sentOf(carrier, 'profiles.save').map((c) => c.profile)).toEqual([
      {
        name: 'paper2',
        baseUrl: 'http://127.0.0.1:2/v1',
        model: 'm',
        subModel: null,
        apiKeyRef: null,
        prices: {},
        repl: 'python',
        systemPrompt: 'Trained prompt',
        finalPatterns: true,
      },
    ]);
    expect(within(dialog).getByTestId('pp-row-paper').textContent).toMatch(/accepted/);
    expect(within(dialog).getByTestId('pp-row-qwen').textContent).not.toMatch(/accepted/);
  });
});

describe('Variables of a paused Python session', () => {
  it("lists Python's own type names with their len()", async () => {
    const carrier = new PythonHost();
    const summary = hostSummary('h1', {
      title: 'python run',
      status: 'paused',
      readOnly: false,
      createdAt: '2026-12-02T10:00:00.000Z',
      model: 'mock-root',
    });
    carrier.sessions = [summary];
    carrier.setState('open');
    const store = createStudioStore();
    const svc = new Services(store, carrier, () => null);
    const events = fixtureEvents('a_needle.jsonl');
    await waitFor(() => expect(store.getState().sessions.has('h1')).toBe(true));
    act(() => {
      store.getState().setHeader('h1', { ...PY_HEADER, sessionId: asSessionId('h1') });
      store.getState().ingestEvents('h1', events);
      store.getState().flushEvents();
      store.getState().setActive('h1');
      store.getState().select('h1', { runId: events[0]!.runId, iteration: 1 });
    });
    render(
      <ServicesProvider services={svc}>
        <App />
      </ServicesProvider>,
    );
    await act(async () => {
      fireEvent.click(screen.getByTestId('load-vars'));
    });
    expect(sentOf(carrier, 'session.variables')).toEqual([{ type: 'session.variables', sessionId: 'h1', runId: events[0]!.runId }]);
    const table = await screen.findByTestId('variables');
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['name', 'type', 'size', 'value']);
    expect(within(table).getByTestId('var-answer').textContent).toBe("answerdict2{'content': '', 'ready': False}");
    expect(within(table).getByTestId('var-count_words').textContent).toBe('count_wordsfunction<function count_words>');
  });
});
