// Endpoint profiles: list, add, edit (saved with `profiles.save`), delete (after a second
// click, `profiles.delete`) and store a profile's API key (`profiles.setKey`). The built-in `demo` profile is listed read-only. The key is read
// from an uncontrolled password field at the moment it is sent and the field is cleared at
// once, so it never sits in React state or the store; only the host's reply (which never
// carries it) is kept.
import { useEffect, useId, useRef, useState, type FormEvent, type SyntheticEvent } from 'react';
import { createPortal } from 'react-dom';
import { blockedPortText, fetchBlockedPort } from '../../src-shared/endpoint-url.ts';
import { DEMO_PROFILE_NAME, EndpointProfile, type SamplingInput } from '../../src-shared/protocol.ts';
import { useServices, useStudio } from '../app/context.tsx';
import { REPL_CHOICE_LABEL, type ReplChoice, replChoiceOf } from '../lib/repl-language.ts';
import { deleteProfile, saveProfile, setProfileKey } from '../app/profile-services.ts';
import { ExamplesField, examplesOf } from './ExamplesField.tsx';

/** The host's built-in profile (bundled mock model); it refuses to save over it. */

interface PriceRow {
  model: string;
  input: string;
  output: string;
}

/** The editor's text fields; `original` is the saved name being edited (null: a new profile). */
export interface ProfileDraft {
  original: string | null;
  name: string;
  baseUrl: string;
  model: string;
  subModel: string;
  apiKeyRef: string;
  prices: PriceRow[];
  repl: ReplChoice;
  /** '' : the built-in prompt. */
  systemPrompt: string;
  /** Its sessions accept paper-era FINAL(...) / FINAL_VAR(name) unless the run says otherwise. */
  finalPatterns: boolean;
  /** Sampling settings as typed; '' : the endpoint's default. */
  sampling: SamplingDraft;
  /** Worked-example logs on the host, one a line. */
  examples: string;
  /** '' : the default budget. */
  exampleBudget: string;
}

interface SamplingDraft {
  temperature: string;
  topP: string;
  seed: string;
  maxOutputTokens: string;
}

const NO_SAMPLING: SamplingDraft = { temperature: '', topP: '', seed: '', maxOutputTokens: '' };

const DRAFT_FIELDS = ['name', 'baseUrl', 'model', 'apiKeyRef', 'prices', 'systemPrompt', 'sampling', 'examples'] as const;
export type DraftErrors = Partial<Record<(typeof DRAFT_FIELDS)[number], string>>;

/** A new profile's draft: every field empty or at its default. */
export const EMPTY_DRAFT: ProfileDraft = {
  original: null,
  name: '',
  baseUrl: '',
  model: '',
  subModel: '',
  apiKeyRef: '',
  prices: [],
  repl: 'javascript',
  systemPrompt: '',
  finalPatterns: false,
  sampling: NO_SAMPLING,
  examples: '',
  exampleBudget: '',
};

function draftOf(p: EndpointProfile): ProfileDraft {
  return {
    original: p.name,
    name: p.name,
    baseUrl: p.baseUrl,
    model: p.model,
    subModel: p.subModel ?? '',
    apiKeyRef: p.apiKeyRef ?? '',
    prices: Object.entries(p.prices).map(([model, v]) => ({ model, input: String(v.inputPerMTok), output: String(v.outputPerMTok) })),
    repl: p.repl ?? 'javascript',
    systemPrompt: p.systemPrompt ?? '',
    finalPatterns: p.finalPatterns ?? false,
    sampling: {
      temperature: p.sampling?.temperature?.toString() ?? '',
      topP: p.sampling?.topP?.toString() ?? '',
      seed: p.sampling?.seed?.toString() ?? '',
      maxOutputTokens: p.sampling?.maxOutputTokens?.toString() ?? '',
    },
    examples: (p.examples ?? []).join('\n'),
    exampleBudget: p.exampleBudget?.toString() ?? '',
  };
}

const SAMPLING_LABELS: Record<keyof SamplingDraft, string> = {
  temperature: 'Temperature',
  topP: 'Top p',
  seed: 'Seed',
  maxOutputTokens: 'Max output tokens',
};

/** The sampling settings typed, or what is wrong with the first bad one. */
function samplingOf(d: SamplingDraft): { sampling: SamplingInput } | { error: string } {
  const out: SamplingInput = {};
  for (const key of Object.keys(SAMPLING_LABELS) as (keyof SamplingDraft)[]) {
    const text = d[key].trim();
    if (text === '') continue;
    const n = Number(text);
    const ok =
      Number.isFinite(n) &&
      (key === 'temperature'
        ? n >= 0
        : key === 'topP'
          ? n > 0 && n <= 1
          : key === 'seed'
            ? Number.isSafeInteger(n)
            : Number.isSafeInteger(n) && n >= 1);
    if (!ok) {
      const want =
        key === 'temperature'
          ? 'a number ≥ 0'
          : key === 'topP'
            ? 'a number in (0, 1]'
            : key === 'seed'
              ? 'an integer'
              : 'a positive integer';
      return { error: `${SAMPLING_LABELS[key]} must be ${want}, got "${text}".` };
    }
    out[key] = n;
  }
  return { sampling: out };
}

function price(v: string): number | null {
  const n = Number(v);
  return v.trim() !== '' && Number.isFinite(n) && n >= 0 ? n : null;
}

/** Checks a draft and builds the profile to save, or says what is wrong with each field. */
export function validateDraft(d: ProfileDraft, existing: readonly string[]): { profile: EndpointProfile } | { errors: DraftErrors } {
  const errors: DraftErrors = {};
  const name = d.name.trim();
  if (name === '') errors.name = 'Name is required.';
  else if (name.length > 100) errors.name = 'Name is at most 100 characters.';
  else if (name === DEMO_PROFILE_NAME) errors.name = `"${DEMO_PROFILE_NAME}" is the built-in profile; pick another name.`;
  else if (d.original === null && existing.includes(name)) errors.name = `A profile named "${name}" exists; edit it instead.`;
  const baseUrl = d.baseUrl.trim();
  let url: URL | null;
  try {
    url = new URL(baseUrl);
  } catch {
    url = null;
  }
  // The host calls it with the OpenAI client: only http(s) makes sense.
  const blockedPort = url === null ? null : fetchBlockedPort(url);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    errors.baseUrl = 'Base URL must be an http:// or https:// URL, e.g. https://api.openai.com/v1.';
  else if (blockedPort !== null) errors.baseUrl = `Base URL: ${blockedPortText(blockedPort)}.`;
  if (d.model.trim() === '') errors.model = 'Model is required.';
  const ref = d.apiKeyRef.trim();
  if (ref !== '' && !/^[A-Za-z_][A-Za-z0-9_]{0,199}$/.test(ref))
    errors.apiKeyRef = 'An environment variable name: letters, digits and _, not starting with a digit.';
  const prices: EndpointProfile['prices'] = {};
  for (const [i, r] of d.prices.entries()) {
    const m = r.model.trim();
    const input = price(r.input);
    const output = price(r.output);
    if (m === '' && r.input.trim() === '' && r.output.trim() === '') continue; // an untouched row
    if (m === '') errors.prices = `Price ${i + 1}: name the model.`;
    else if (Object.hasOwn(prices, m)) errors.prices = `Price ${i + 1}: "${m}" is priced twice.`;
    else if (input === null || output === null) errors.prices = `Price ${i + 1}: input and output are USD per million tokens, numbers ≥ 0.`;
    else prices[m] = { inputPerMTok: input, outputPerMTok: output };
    if (errors.prices) break;
  }
  const sampling = samplingOf(d.sampling);
  if ('error' in sampling) errors.sampling = sampling.error;
  const examples = examplesOf(d.examples, d.exampleBudget);
  if ('error' in examples) errors.examples = examples.error;
  if (Object.keys(errors).length > 0 || 'error' in sampling || 'error' in examples) return { errors };
  const profile: EndpointProfile = {
    name,
    baseUrl,
    model: d.model.trim(),
    subModel: d.subModel.trim() === '' ? null : d.subModel.trim(),
    apiKeyRef: ref === '' ? null : ref,
    prices,
  };
  // JavaScript is what an absent language means: left out, as in profiles saved before Python.
  if (d.repl !== 'javascript') profile.repl = d.repl;
  if (d.systemPrompt.trim() !== '') profile.systemPrompt = d.systemPrompt;
  // Off is what an absent setting means: left out, as in profiles saved before it existed.
  if (d.finalPatterns) profile.finalPatterns = true;
  if (Object.keys(sampling.sampling).length > 0) profile.sampling = sampling.sampling;
  if (examples.examples.length > 0) profile.examples = examples.examples;
  if (examples.exampleBudget !== undefined) profile.exampleBudget = examples.exampleBudget;
  // The host checks with this same schema; anything the checks above missed is named here.
  const checked = EndpointProfile.safeParse(profile);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const at = String(issue?.path[0] ?? 'name');
    const field = DRAFT_FIELDS.find((f) => f === at) ?? 'name';
    return { errors: { [field]: `${at}: ${issue?.message ?? 'invalid'}` } };
  }
  return { profile: checked.data };
}

function samplingText(s: SamplingInput | undefined): string {
  if (!s) return '—';
  const parts = (Object.keys(SAMPLING_LABELS) as (keyof SamplingDraft)[])
    .filter((k) => s[k] !== undefined)
    .map((k) => `${SAMPLING_LABELS[k].toLowerCase()} ${s[k]}`);
  return parts.length > 0 ? parts.join(', ') : '—';
}

// The panel is portalled to <body>; React still bubbles its events through the new-run
// form, whose onSubmit would start a run. Stop them at the panel's root.
const stop = (e: SyntheticEvent): void => e.stopPropagation();

export function ProfilesPanel({ onClose, onSaved }: { onClose: () => void; onSaved?: (name: string) => void }) {
  const profiles = useStudio((s) => s.profiles);
  // `seq` remounts the editor for each Add / Edit click (fresh fields and messages).
  const [editor, setEditor] = useState<{ seq: number; draft: ProfileDraft } | null>(null);
  /** The profile whose Delete was clicked once (a second click deletes), and the last outcome. */
  const [confirming, setConfirming] = useState<string | null>(null);
  const [deleted, setDeleted] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const svc = useServices();
  const titleId = useId();
  const first = useRef<HTMLButtonElement>(null);
  const open = (draft: ProfileDraft): void => setEditor((e) => ({ seq: (e?.seq ?? 0) + 1, draft }));

  useEffect(() => {
    // Focus moves into the dialog and back to whatever opened it.
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    first.current?.focus();
    // Escape with the focus outside the dialog (inside, the root's onKeyDown handles it).
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape') onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      opener?.focus();
    };
  }, [onClose]);

  const remove = async (name: string): Promise<void> => {
    setConfirming(null);
    const r = await deleteProfile(svc, name);
    if (r.ok) {
      setDeleted({ kind: 'ok', text: `Deleted "${name}".` });
      // An editor open on the deleted profile would save it back.
      setEditor((e) => (e && e.draft.original === name ? null : e));
    } else setDeleted({ kind: 'error', text: `"${name}" was not deleted: ${r.error}` });
  };

  const demo = profiles.find((p) => p.name === DEMO_PROFILE_NAME);
  const saved = profiles.filter((p) => p.name !== DEMO_PROFILE_NAME);

  return createPortal(
    <div
      className="profiles-backdrop"
      onSubmit={stop}
      onKeyDown={(e) => {
        // Stopped here so the app's global shortcuts stay quiet while the dialog is open.
        e.stopPropagation();
        if (e.key === 'Escape') {
          e.preventDefault();
          onClose();
        }
      }}
      onClick={(e) => {
        if (e.target === e.currentTarget) onClose();
      }}
    >
      <div className="profiles-panel" role="dialog" aria-modal="true" aria-labelledby={titleId} data-testid="profiles-panel">
        <div className="profiles-head">
          <h2 id={titleId}>Endpoint profiles</h2>
          <button type="button" onClick={() => open({ ...EMPTY_DRAFT, prices: [] })} data-testid="pp-add" ref={first}>
            Add profile
          </button>
          <button type="button" onClick={onClose} aria-label="Close endpoint profiles" data-testid="pp-close">
            ×
          </button>
        </div>
        <table className="profiles-table" data-testid="pp-list">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Base URL</th>
              <th scope="col">Model</th>
              <th scope="col">Sub-model</th>
              <th scope="col">API key reference</th>
              <th scope="col">Prices</th>
              <th scope="col">REPL</th>
              <th scope="col">System prompt</th>
              <th scope="col">Paper-era FINAL</th>
              <th scope="col">Sampling</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            <tr data-testid={`pp-row-${DEMO_PROFILE_NAME}`} className="pp-builtin">
              <td>{DEMO_PROFILE_NAME}</td>
              <td>{demo ? demo.baseUrl : '(bundled)'}</td>
              <td>{demo ? demo.model : 'mock-root'}</td>
              <td>—</td>
              <td>none needed</td>
              <td>—</td>
              <td>chosen per run</td>
              <td>built-in</td>
              <td>chosen per run</td>
              <td>—</td>
              <td className="muted">built-in, read-only</td>
            </tr>
            {saved.map((p) => (
              <tr key={p.name} data-testid={`pp-row-${p.name}`}>
                <td>{p.name}</td>
                <td>{p.baseUrl}</td>
                <td>{p.model}</td>
                <td>{p.subModel ?? '—'}</td>
                <td>{p.apiKeyRef ?? '—'}</td>
                <td>
                  {Object.keys(p.prices).length > 0
                    ? Object.entries(p.prices)
                        .map(([m, v]) => `${m}: $${v.inputPerMTok} / $${v.outputPerMTok}`)
                        .join('; ')
                    : '—'}
                </td>
                <td>{REPL_CHOICE_LABEL[p.repl ?? 'javascript']}</td>
                <td>{p.systemPrompt ? `own (${p.systemPrompt.length.toLocaleString('en-US')} characters)` : 'built-in'}</td>
                <td>{p.finalPatterns ? 'accepted' : '—'}</td>
                <td data-testid={`pp-sampling-${p.name}`}>{samplingText(p.sampling)}</td>
                <td>
                  <button type="button" onClick={() => open(draftOf(p))} aria-label={`Edit ${p.name}`} data-testid={`pp-edit-${p.name}`}>
                    Edit
                  </button>
                  {confirming === p.name ? (
                    <>
                      <button
                        type="button"
                        className="danger"
                        onClick={() => void remove(p.name)}
                        aria-label={`Really delete ${p.name}`}
                        data-testid={`pp-delete-confirm-${p.name}`}
                      >
                        Really delete
                      </button>
                      <button type="button" onClick={() => setConfirming(null)} aria-label={`Keep ${p.name}`}>
                        Keep
                      </button>
                    </>
                  ) : (
                    <button
                      type="button"
                      onClick={() => setConfirming(p.name)}
                      aria-label={`Delete ${p.name}`}
                      data-testid={`pp-delete-${p.name}`}
                    >
                      Delete
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {deleted ? (
          <p
            role={deleted.kind === 'error' ? 'alert' : 'status'}
            className={deleted.kind === 'error' ? 'pp-error' : 'pp-ok'}
            data-testid="pp-delete-status"
          >
            {deleted.text}
          </p>
        ) : null}
        {editor ? (
          <ProfileEditor key={editor.seq} initial={editor.draft} profiles={saved} onSaved={onSaved} onCancel={() => setEditor(null)} />
        ) : null}
      </div>
    </div>,
    document.body,
  );
}

function ProfileEditor({
  initial,
  profiles,
  onSaved,
  onCancel,
}: {
  initial: ProfileDraft;
  profiles: EndpointProfile[];
  onSaved: ((name: string) => void) | undefined;
  onCancel: () => void;
}) {
  const svc = useServices();
  const [d, setD] = useState<ProfileDraft>(initial);
  const [errors, setErrors] = useState<DraftErrors>({});
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const ids = useId();
  const set = (patch: Partial<ProfileDraft>): void => setD((x) => ({ ...x, ...patch }));
  const setPrice = (i: number, patch: Partial<PriceRow>): void =>
    setD((x) => ({ ...x, prices: x.prices.map((r, j) => (j === i ? { ...r, ...patch } : r)) }));
  const editing = d.original !== null;

  const submit = async (e: FormEvent): Promise<void> => {
    e.preventDefault();
    const res = validateDraft(
      d,
      profiles.map((p) => p.name),
    );
    if ('errors' in res) {
      setErrors(res.errors);
      setStatus({ kind: 'error', text: 'Fix the fields marked below.' });
      return;
    }
    setErrors({});
    setBusy(true);
    const r = await saveProfile(svc, res.profile);
    setBusy(false);
    if (r.ok) {
      setStatus({ kind: 'ok', text: `Saved "${res.profile.name}".` });
      // From now on this editor edits the saved profile (and can store its key).
      set({ original: res.profile.name, name: res.profile.name });
      onSaved?.(res.profile.name);
    } else setStatus({ kind: 'error', text: `Not saved: ${r.error}` });
  };

  const err = (k: keyof DraftErrors) =>
    errors[k] ? (
      <span className="pp-error" id={`${ids}-${k}`} data-testid={`pp-error-${k}`}>
        {errors[k]}
      </span>
    ) : null;
  const described = (k: keyof DraftErrors) => (errors[k] ? { 'aria-invalid': true, 'aria-describedby': `${ids}-${k}` } : {});

  return (
    <div className="profile-editor">
      <form onSubmit={(e) => void submit(e)} aria-label={editing ? `Edit profile ${d.original}` : 'New profile'} noValidate>
        <h3>{editing ? `Edit profile “${d.original}”` : 'New profile'}</h3>
        <label>
          Name
          <input
            value={d.name}
            onChange={(e) => set({ name: e.target.value })}
            readOnly={editing}
            data-testid="pp-name"
            {...described('name')}
          />
          {editing ? <small className="muted">Profiles are saved by name; to rename, add a new one.</small> : null}
          {err('name')}
        </label>
        <label>
          Base URL
          <input
            type="url"
            value={d.baseUrl}
            onChange={(e) => set({ baseUrl: e.target.value })}
            placeholder="https://api.openai.com/v1"
            data-testid="pp-base-url"
            {...described('baseUrl')}
          />
          {err('baseUrl')}
        </label>
        <label>
          Model
          <input value={d.model} onChange={(e) => set({ model: e.target.value })} data-testid="pp-model" {...described('model')} />
          {err('model')}
        </label>
        <label>
          Sub-model
          <input
            value={d.subModel}
            onChange={(e) => set({ subModel: e.target.value })}
            placeholder="same as the model"
            data-testid="pp-sub-model"
          />
        </label>
        <label>
          API key environment variable
          <input
            value={d.apiKeyRef}
            onChange={(e) => set({ apiKeyRef: e.target.value })}
            placeholder="e.g. OPENAI_API_KEY"
            spellCheck={false}
            data-testid="pp-key-ref"
            {...described('apiKeyRef')}
          />
          <small className="muted">
            Web mode reads the key from this variable where rlm-studio serve runs. The desktop app fills it in when you store a key.
          </small>
          {err('apiKeyRef')}
        </label>
        <label>
          REPL language
          <select value={d.repl} onChange={(e) => set({ repl: replChoiceOf(e.target.value) })} data-testid="pp-repl">
            <option value="javascript">{REPL_CHOICE_LABEL.javascript}</option>
            <option value="python">{REPL_CHOICE_LABEL.python}</option>
            <option value="cpython">{REPL_CHOICE_LABEL.cpython}</option>
          </select>
          <small className="muted">What its runs use unless the new run picks another.</small>
        </label>
        <label>
          System prompt
          <textarea
            value={d.systemPrompt}
            onChange={(e) => set({ systemPrompt: e.target.value })}
            rows={4}
            spellCheck={false}
            placeholder="empty: the built-in prompt for the run's language"
            data-testid="pp-system-prompt"
            {...described('systemPrompt')}
          />
          <small className="muted">
            Replaces the built-in prompt (e.g. the one a model was trained on); {'{tools}'} is replaced by the list of tools.
          </small>
          {err('systemPrompt')}
        </label>
        <label className="nr-check">
          <span>
            <input
              type="checkbox"
              checked={d.finalPatterns}
              onChange={(e) => set({ finalPatterns: e.target.checked })}
              data-testid="pp-final-patterns"
            />{' '}
            paper-era protocol: accept FINAL(answer) and FINAL_VAR(name)
          </span>
          <small className="muted">For models trained on the paper-era prompt. Its runs use it unless the new run says otherwise.</small>
        </label>
        <label>
          Load the system prompt from a file
          <input
            type="file"
            data-testid="pp-system-prompt-file"
            onChange={(e) => {
              const f = e.target.files?.[0];
              if (f) void f.text().then((text) => set({ systemPrompt: text }));
            }}
          />
        </label>
        <div {...described('examples')}>
          <ExamplesField
            paths={d.examples}
            budget={d.exampleBudget}
            onPaths={(v) => set({ examples: v })}
            onBudget={(v) => set({ exampleBudget: v })}
            idPrefix="pp"
          />
          <small className="muted">Its runs get these unless the new run changes them.</small>
          {err('examples')}
        </div>
        <fieldset className="pp-sampling" {...described('sampling')}>
          <legend>Sampling (empty: the endpoint's default)</legend>
          {(Object.keys(SAMPLING_LABELS) as (keyof SamplingDraft)[]).map((key) => (
            <label key={key}>
              {SAMPLING_LABELS[key]}
              <input
                value={d.sampling[key]}
                onChange={(e) => setD((x) => ({ ...x, sampling: { ...x.sampling, [key]: e.target.value } }))}
                inputMode="decimal"
                size={7}
                data-testid={`pp-sampling-${key}`}
              />
            </label>
          ))}
          <small className="muted">
            Sent with the calls this profile serves: root calls, or sub-calls when a run picks it as its sub-calls profile.
          </small>
          {err('sampling')}
        </fieldset>
        <fieldset className="pp-prices">
          <legend>Price overrides (USD per million tokens)</legend>
          {d.prices.map((r, i) => (
            <div className="pp-price" key={i} data-testid={`pp-price-${i}`}>
              <label>
                Model
                <input value={r.model} onChange={(e) => setPrice(i, { model: e.target.value })} aria-label={`Price ${i + 1}: model`} />
              </label>
              <label>
                Input
                <input
                  value={r.input}
                  onChange={(e) => setPrice(i, { input: e.target.value })}
                  inputMode="decimal"
                  size={7}
                  aria-label={`Price ${i + 1}: input USD per million tokens`}
                />
              </label>
              <label>
                Output
                <input
                  value={r.output}
                  onChange={(e) => setPrice(i, { output: e.target.value })}
                  inputMode="decimal"
                  size={7}
                  aria-label={`Price ${i + 1}: output USD per million tokens`}
                />
              </label>
              <button
                type="button"
                onClick={() => setD((x) => ({ ...x, prices: x.prices.filter((_, j) => j !== i) }))}
                aria-label={`Remove price ${i + 1}`}
              >
                Remove
              </button>
            </div>
          ))}
          <button
            type="button"
            onClick={() => setD((x) => ({ ...x, prices: [...x.prices, { model: '', input: '', output: '' }] }))}
            data-testid="pp-price-add"
          >
            Add price
          </button>
          {err('prices')}
        </fieldset>
        <div className="pp-actions">
          <button type="submit" className="primary" disabled={busy} data-testid="pp-save">
            {busy ? 'Saving…' : 'Save profile'}
          </button>
          <button type="button" onClick={onCancel}>
            {editing ? 'Done' : 'Cancel'}
          </button>
          {status ? (
            <span
              role={status.kind === 'error' ? 'alert' : 'status'}
              className={status.kind === 'error' ? 'pp-error' : 'pp-ok'}
              data-testid="pp-status"
            >
              {status.text}
            </span>
          ) : null}
        </div>
      </form>
      {d.original !== null ? (
        <KeyForm profile={d.original} apiKeyRef={profiles.find((p) => p.name === d.original)?.apiKeyRef ?? null} />
      ) : null}
    </div>
  );
}

/** Stores or removes the profile's key. Its own form, so Enter in the key field does not save the profile. */
function KeyForm({ profile, apiKeyRef }: { profile: string; apiKeyRef: string | null }) {
  const svc = useServices();
  const field = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);

  const send = async (remove: boolean): Promise<void> => {
    const input = field.current;
    if (!input) return;
    const key = remove ? null : input.value;
    // Cleared before the request: the key is only in this call from here on.
    input.value = '';
    if (key === '') {
      setStatus({ kind: 'error', text: 'Type or paste the key first.' });
      return;
    }
    setBusy(true);
    const r = await setProfileKey(svc, profile, key);
    setBusy(false);
    if (!r.ok) setStatus({ kind: 'error', text: `Key not stored: ${r.error}` });
    else setStatus({ kind: 'ok', text: r.value.stored ? 'Key stored in the OS keychain.' : 'Stored key removed.' });
  };

  return (
    <form
      className="pp-key"
      aria-label={`API key of ${profile}`}
      onSubmit={(e) => {
        e.preventDefault();
        void send(false);
      }}
    >
      <label>
        API key (desktop: kept in the OS keychain{apiKeyRef ? ` as ${apiKeyRef}` : ''})
        <input ref={field} type="password" autoComplete="off" spellCheck={false} defaultValue="" data-testid="pp-key" />
      </label>
      <div className="pp-actions">
        <button type="submit" disabled={busy} data-testid="pp-store-key">
          Store key
        </button>
        <button type="button" disabled={busy} onClick={() => void send(true)} data-testid="pp-remove-key">
          Remove stored key
        </button>
        {status ? (
          <span
            role={status.kind === 'error' ? 'alert' : 'status'}
            className={status.kind === 'error' ? 'pp-error' : 'pp-ok'}
            data-testid="pp-key-status"
          >
            {status.text}
          </span>
        ) : null}
      </div>
    </form>
  );
}
