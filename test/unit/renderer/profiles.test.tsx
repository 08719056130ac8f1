// The endpoint profiles panel against a scripted host: listing (demo read-only), adding with
// a bad base URL refused in the form, `profiles.save` with the built profile, the new
// profile in the new-run select, `profiles.setKey` with the field cleared, the host's
// refusal shown, and the key nowhere in the store or the DOM afterwards; deleting on a
// second click, with the host's refusal shown. Escape closes.
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_PROMPT_PACKS, EndpointProfile, type ClientMessage } from '../../../src-shared/protocol.ts';
import { ServicesProvider } from '../../../src-renderer/app/context.tsx';
import { Services } from '../../../src-renderer/app/services.ts';
import { createStudioStore } from '../../../src-renderer/store/studio.ts';
import { NewRunForm } from '../../../src-renderer/views/new-run/NewRunForm.tsx';
import { EMPTY_DRAFT, validateDraft, type ProfileDraft } from '../../../src-renderer/views/profiles/profile-draft.ts';
import type { MemoryCarrier } from '../../support/memory-carrier.ts';
import { ScriptedHost, type HostCommand } from './helpers.ts';

const DEMO: EndpointProfile = {
  name: 'demo',
  baseUrl: 'http://127.0.0.1/v1',
  model: 'mock-root',
  subModel: null,
  apiKeyRef: null,
  prices: {},
};
const OPENAI: EndpointProfile = {
  name: 'openai',
  baseUrl: 'https://api.openai.com/v1',
  model: 'gpt-5',
  subModel: 'gpt-5-mini',
  apiKeyRef: 'OPENAI_API_KEY',
  prices: {},
};
const WEB_REFUSAL =
  'this host (web mode) does not store API keys: set the environment variable named by the profile\'s "API key env var" (apiKeyRef) where rlm-studio serve runs, then restart it';
const KEY = 'sk-test-0123456789-SECRET';

/** Plays the host's profile store; `webMode` refuses setKey as `rlm-studio serve` does. */
class ProfilesHost extends ScriptedHost {
  override profiles: EndpointProfile[] = [DEMO, OPENAI];
  webMode = true;
  failDelete: string | null = null;
  protected override answer(c: HostCommand, id: number): boolean {
    switch (c.type) {
      case 'profiles.save':
        this.profiles = [...this.profiles.filter((p) => p.name !== c.profile.name), c.profile];
        this.replyTo(id, { profiles: this.profiles });
        return true;
      case 'profiles.delete':
        if (this.failDelete) this.refuse(id, this.failDelete);
        else {
          this.profiles = this.profiles.filter((p) => p.name !== c.profile);
          this.replyTo(id, { profiles: this.profiles });
        }
        return true;
      case 'profiles.setKey': {
        if (this.webMode) {
          this.refuse(id, WEB_REFUSAL);
          return true;
        }
        const ref = `RLM_STUDIO_KEY_${c.profile.toUpperCase()}`;
        this.profiles = this.profiles.map((p) => (p.name === c.profile && p.apiKeyRef === null ? { ...p, apiKeyRef: ref } : p));
        this.replyTo(id, { profiles: this.profiles, profile: c.profile, stored: c.key !== null });
        return true;
      }
      default:
        return false;
    }
  }
}

async function mount() {
  const carrier = new ProfilesHost();
  carrier.setState('open');
  const store = createStudioStore();
  const svc = new Services(store, carrier, () => null);
  render(
    <ServicesProvider services={svc}>
      <NewRunForm />
    </ServicesProvider>,
  );
  // The carrier was open before Services existed: Services lists profiles by itself.
  await waitFor(() => expect(store.getState().profiles.length).toBe(2));
  return { store, carrier };
}

const sentOf = <T extends ClientMessage['command']['type']>(carrier: MemoryCarrier, type: T) =>
  carrier.sent.map((m) => m.command).filter((c): c is Extract<ClientMessage['command'], { type: T }> => c.type === type);

const type = (testId: string, value: string): void => {
  fireEvent.change(screen.getByTestId(testId), { target: { value } });
};

/** Everything in the store, Maps and Sets included, as text. */
function storeText(state: object): string {
  return JSON.stringify(state, (_k, v: unknown) =>
    v instanceof Map ? [...v.entries()] : v instanceof Set ? [...v] : typeof v === 'function' ? undefined : v,
  );
}

describe('validateDraft', () => {
  const base: ProfileDraft = { ...EMPTY_DRAFT, name: 'x', baseUrl: 'http://h:2/v1', model: 'm' };
  it('builds the profile, refuses bad URLs, the demo name, duplicates and bad prices', () => {
    expect(validateDraft(base, [])).toEqual({
      profile: { name: 'x', baseUrl: 'http://h:2/v1', model: 'm', subModel: null, apiKeyRef: null, prices: {} },
    });
    for (const baseUrl of ['not a url', 'ftp://h/v1', 'javascript:alert(1)', ''])
      expect(validateDraft({ ...base, baseUrl }, [])).toMatchObject({ errors: { baseUrl: expect.any(String) } });
    // A port Node's fetch refuses to connect to (6000, X11), named before any call fails on it.
    expect(validateDraft({ ...base, baseUrl: 'http://127.0.0.1:6000/v1' }, [])).toMatchObject({
      errors: { baseUrl: expect.stringContaining('port 6000') },
    });
    expect(validateDraft({ ...base, name: 'demo' }, [])).toMatchObject({ errors: { name: expect.stringContaining('built-in') } });
    expect(validateDraft(base, ['x'])).toMatchObject({ errors: { name: expect.stringContaining('exists') } });
    expect(validateDraft({ ...base, original: 'x' }, ['x'])).toHaveProperty('profile');
    expect(validateDraft({ ...base, apiKeyRef: 'MY KEY' }, [])).toMatchObject({ errors: { apiKeyRef: expect.any(String) } });
    expect(validateDraft({ ...base, prices: [{ model: 'm', input: '-1', output: '2' }] }, [])).toMatchObject({
      errors: { prices: expect.any(String) },
    });
    expect(
      validateDraft(
        {
          ...base,
          prices: [
            { model: 'm', input: '1', output: '2' },
            { model: 'm', input: '1', output: '2' },
          ],
        },
        [],
      ),
    ).toMatchObject({ errors: { prices: expect.stringContaining('twice') } });
  });

  it('keeps sampling settings typed, leaves empty ones out, and names a bad one', () => {
    const sampling = { temperature: '0.7', topP: '', seed: '42', maxOutputTokens: '' };
    expect(validateDraft({ ...base, sampling }, [])).toEqual({
      profile: {
        name: 'x',
        baseUrl: 'http://h:2/v1',
        model: 'm',
        subModel: null,
        apiKeyRef: null,
        prices: {},
        sampling: { temperature: 0.7, seed: 42 },
      },
    });
    expect(validateDraft({ ...base, sampling: { ...sampling, temperature: '-1' } }, [])).toEqual({
      errors: { sampling: 'Temperature must be a number ≥ 0, got "-1".' },
    });
    expect(validateDraft({ ...base, sampling: { ...sampling, seed: '1.5' } }, [])).toEqual({
      errors: { sampling: 'Seed must be an integer, got "1.5".' },
    });
    expect(validateDraft({ ...base, sampling: { ...sampling, topP: '2' } }, [])).toMatchObject({
      errors: { sampling: expect.stringContaining('Top p') },
    });
    expect(validateDraft({ ...base, sampling: { ...sampling, maxOutputTokens: '0' } }, [])).toMatchObject({
      errors: { sampling: expect.stringContaining('Max output tokens') },
    });
  });
});

describe('a profile’s prompt pack and context window', () => {
  const base: ProfileDraft = { ...EMPTY_DRAFT, name: 'x', baseUrl: 'http://h:2/v1', model: 'm' };
  it('keeps a pack (ours by name or a path) and a window, leaves empty ones out, and refuses a bad window in the schema’s words', () => {
    const plain = { name: 'x', baseUrl: 'http://h:2/v1', model: 'm', subModel: null, apiKeyRef: null, prices: {} };
    expect(validateDraft({ ...base, prompts: ' rlm-studio-python ', contextWindow: '32768' }, [])).toEqual({
      profile: { ...plain, prompts: 'rlm-studio-python', contextWindow: 32_768 },
    });
    expect(validateDraft({ ...base, prompts: '/packs/reference.json' }, [])).toEqual({
      profile: { ...plain, prompts: '/packs/reference.json' },
    });
    expect(validateDraft({ ...base, prompts: '  ', contextWindow: '' }, [])).toEqual({ profile: plain });
    for (const bad of ['0', '-5', '1.5', 'lots'])
      expect(validateDraft({ ...base, contextWindow: bad }, [])).toEqual({
        errors: { contextWindow: `Context window must be a positive integer (tokens), got "${bad}".` },
      });
  });

  it('the shared schema the host saves with takes the two fields and refuses an empty pack or a zero window', () => {
    const p = { name: 'x', baseUrl: 'http://h:2/v1', model: 'm' };
    expect(EndpointProfile.parse({ ...p, prompts: 'rlm-studio-javascript', contextWindow: 8192 })).toMatchObject({
      prompts: 'rlm-studio-javascript',
      contextWindow: 8192,
    });
    expect(EndpointProfile.safeParse({ ...p, prompts: '' }).success).toBe(false);
    expect(EndpointProfile.safeParse({ ...p, contextWindow: 0 }).success).toBe(false);
    expect(EndpointProfile.safeParse({ ...p, contextWindow: 1.5 }).success).toBe(false);
    expect(BUILT_IN_PROMPT_PACKS).toEqual(['rlm-studio-javascript', 'rlm-studio-python']);
  });
});

describe('Endpoint profiles panel', () => {
  it('lists, adds (bad URL refused), saves, shows the profile in the new-run select, and sends a key without keeping it', async () => {
    const { store, carrier } = await mount();
    const manage = screen.getByRole('button', { name: 'Manage profiles…' });
    act(() => manage.focus());
    fireEvent.click(manage);
    const dialog = screen.getByRole('dialog', { name: 'Endpoint profiles' });

    // The list: demo read-only (no edit button), the saved profile with its key reference.
    const demoRow = within(dialog).getByTestId('pp-row-demo');
    expect(demoRow.textContent).toContain('built-in, read-only');
    expect(within(demoRow).queryByRole('button')).toBeNull();
    const openaiRow = within(dialog).getByTestId('pp-row-openai');
    for (const t of ['https://api.openai.com/v1', 'gpt-5', 'gpt-5-mini', 'OPENAI_API_KEY']) expect(openaiRow.textContent).toContain(t);
    expect(within(openaiRow).getByRole('button', { name: 'Edit openai' })).toBeTruthy();

    // Add: every input has a label; a bad base URL is refused before anything is sent.
    fireEvent.click(screen.getByTestId('pp-add'));
    for (const label of [/^Name/, /^Base URL/, /^Model/, /^Sub-model/, /^API key environment variable/])
      expect(within(dialog).getByLabelText(label, { selector: 'input' })).toBeTruthy();
    type('pp-name', 'local');
    type('pp-base-url', 'localhost:8080/v1 oops');
    type('pp-model', 'mock-root');
    type('pp-sub-model', 'mock-sub');
    type('pp-key-ref', 'LOCAL_KEY');
    fireEvent.click(screen.getByTestId('pp-price-add'));
    fireEvent.change(screen.getByLabelText('Price 1: model'), { target: { value: 'mock-root' } });
    fireEvent.change(screen.getByLabelText('Price 1: input USD per million tokens'), { target: { value: '0.5' } });
    fireEvent.change(screen.getByLabelText('Price 1: output USD per million tokens'), { target: { value: '1.5' } });
    await act(async () => {
      fireEvent.click(screen.getByTestId('pp-save'));
    });
    expect(screen.getByTestId('pp-error-baseUrl').textContent).toMatch(/http:\/\/ or https:\/\//);
    expect(screen.getByTestId('pp-base-url').getAttribute('aria-invalid')).toBe('true');
    expect(sentOf(carrier, 'profiles.save')).toEqual([]);

    // Fixed: saved with the right payload, listed, and picked in the new-run select.
    type('pp-base-url', 'http://127.0.0.1:9999/v1');
    await act(async () => {
      fireEvent.click(screen.getByTestId('pp-save'));
    });
    expect(sentOf(carrier, 'profiles.save')).toEqual([
      {
        type: 'profiles.save',
        profile: {
          name: 'local',
          baseUrl: 'http://127.0.0.1:9999/v1',
          model: 'mock-root',
          subModel: 'mock-sub',
          apiKeyRef: 'LOCAL_KEY',
          prices: { 'mock-root': { inputPerMTok: 0.5, outputPerMTok: 1.5 } },
        },
      },
    ]);
    await waitFor(() => expect(screen.getByTestId('pp-status').textContent).toBe('Saved "local".'));
    expect(within(dialog).getByTestId('pp-row-local').textContent).toContain('LOCAL_KEY');
    const select = screen.getByTestId<HTMLSelectElement>('nr-profile');
    expect([...select.options].map((o) => o.value)).toEqual(['demo', 'openai', 'local']);
    expect(select.value).toBe('local');

    // Store key, web mode: sent once, the field cleared at once, the host's refusal shown.
    const keyField = screen.getByLabelText<HTMLInputElement>(/^API key \(desktop/);
    expect(keyField.type).toBe('password');
    expect(keyField.getAttribute('autocomplete')).toBe('off');
    fireEvent.change(keyField, { target: { value: KEY } });
    await act(async () => {
      fireEvent.click(screen.getByTestId('pp-store-key'));
    });
    expect(sentOf(carrier, 'profiles.setKey')).toEqual([{ type: 'profiles.setKey', profile: 'local', key: KEY }]);
    expect(keyField.value).toBe('');
    await waitFor(() => expect(screen.getByTestId('pp-key-status').textContent).toContain('environment variable named by the profile'));
    expect(screen.getByTestId('pp-key-status').getAttribute('role')).toBe('alert');

    // Desktop: stored; the reply's profile list (no key) replaces the store's.
    carrier.webMode = false;
    fireEvent.change(keyField, { target: { value: KEY } });
    await act(async () => {
      fireEvent.submit(keyField.closest('form')!);
    });
    expect(keyField.value).toBe('');
    await waitFor(() => expect(screen.getByTestId('pp-key-status').textContent).toBe('Key stored in the OS keychain.'));
    expect(sentOf(carrier, 'profiles.save')).toHaveLength(1); // Enter in the key field did not save the profile

    // The key is nowhere but in what was sent: not in the store, not in the page.
    expect(storeText(store.getState())).not.toContain(KEY);
    expect(document.body.innerHTML).not.toContain(KEY);
    expect(sentOf(carrier, 'session.start')).toEqual([]); // the panel's forms did not submit the run form

    // Escape closes and gives the focus back to the button that opened it.
    fireEvent.keyDown(keyField, { key: 'Escape' });
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(manage);
  });

  it('edits a saved profile (name fixed) and shows the host text as text', async () => {
    const { carrier } = await mount();
    carrier.profiles = [DEMO, { ...OPENAI, name: 'x<img src=x onerror=alert(1)>', model: '<script>alert(1)</script>' }];
    fireEvent.click(screen.getByTestId('nr-manage-profiles'));
    // Reload through a save of another profile: the reply replaces the list.
    fireEvent.click(screen.getByTestId('pp-add'));
    type('pp-name', 'p2');
    type('pp-base-url', 'https://example.test/v1');
    type('pp-model', 'm');
    await act(async () => {
      fireEvent.click(screen.getByTestId('pp-save'));
    });
    const hostile = await screen.findByTestId('pp-row-x<img src=x onerror=alert(1)>');
    expect(hostile.querySelector('img, script')).toBeNull();
    expect(hostile.textContent).toContain('<script>alert(1)</script>');

    fireEvent.click(screen.getByRole('button', { name: 'Edit p2' }));
    const name = screen.getByTestId<HTMLInputElement>('pp-name');
    expect(name.value).toBe('p2');
    expect(name.readOnly).toBe(true);
    type('pp-model', 'm2');
    await act(async () => {
      fireEvent.click(screen.getByTestId('pp-save'));
    });
    expect(sentOf(carrier, 'profiles.save').at(-1)?.profile).toMatchObject({ name: 'p2', model: 'm2' });
    fireEvent.click(screen.getByTestId('pp-close'));
    expect(screen.queryByTestId('profiles-panel')).toBeNull();
  });

  it('deletes a profile only on a second click, closes its editor, and shows a refusal', async () => {
    const { carrier, store } = await mount();
    fireEvent.click(screen.getByTestId('nr-manage-profiles'));
    expect(screen.queryByTestId('pp-delete-demo')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Edit openai' }));
    expect(screen.getByTestId<HTMLInputElement>('pp-name').value).toBe('openai');

    // Refused by the host: the profile stays, the reason is shown.
    carrier.failDelete = 'the settings folder is read-only';
    fireEvent.click(screen.getByTestId('pp-delete-openai'));
    expect(sentOf(carrier, 'profiles.delete')).toEqual([]);
    await act(async () => {
      fireEvent.click(screen.getByTestId('pp-delete-confirm-openai'));
    });
    await waitFor(() =>
      expect(screen.getByTestId('pp-delete-status').textContent).toBe('"openai" was not deleted: the settings folder is read-only'),
    );
    expect(screen.getByTestId('pp-row-openai')).toBeTruthy();

    // "Keep" backs out; a confirmed delete goes.
    carrier.failDelete = null;
    fireEvent.click(screen.getByTestId('pp-delete-openai'));
    fireEvent.click(screen.getByRole('button', { name: 'Keep openai' }));
    expect(screen.queryByTestId('pp-delete-confirm-openai')).toBeNull();
    fireEvent.click(screen.getByTestId('pp-delete-openai'));
    await act(async () => {
      fireEvent.click(screen.getByTestId('pp-delete-confirm-openai'));
    });
    expect(sentOf(carrier, 'profiles.delete')).toEqual([
      { type: 'profiles.delete', profile: 'openai' },
      { type: 'profiles.delete', profile: 'openai' },
    ]);
    await waitFor(() => expect(screen.queryByTestId('pp-row-openai')).toBeNull());
    expect(screen.getByTestId('pp-delete-status').textContent).toBe('Deleted "openai".');
    expect(screen.queryByTestId('pp-name')).toBeNull();
    expect(store.getState().profiles.map((p) => p.name)).toEqual(['demo']);
  });
});
