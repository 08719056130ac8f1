// The editor of one profile (a new one, or a saved one by name): its fields, checked and
// saved with `profiles.save`; a saved profile's key has a form of its own below it.
import { useId, useState, type FormEvent } from 'react';
import { BUILT_IN_PROMPT_PACKS, type EndpointProfile } from '../../../src-shared/protocol.ts';
import { useServices } from '../../app/context.tsx';
import { saveProfile } from '../../app/profile-services.ts';
import { REPL_CHOICE_LABEL, replChoiceOf } from '../../lib/repl-language.ts';
import { ExamplesField } from '../ExamplesField.tsx';
import { KeyForm } from './KeyForm.tsx';
import { SAMPLING_LABELS, validateDraft, type DraftErrors, type PriceRow, type ProfileDraft, type SamplingDraft } from './profile-draft.ts';

export function ProfileEditor({
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
        <label>
          Prompt pack
          <input
            value={d.prompts}
            onChange={(e) => set({ prompts: e.target.value })}
            list={`${ids}-packs`}
            spellCheck={false}
            placeholder="empty: ours for the run's REPL"
            data-testid="pp-prompts"
            {...described('prompts')}
          />
          <datalist id={`${ids}-packs`}>
            {BUILT_IN_PROMPT_PACKS.map((name) => (
              <option key={name} value={name} />
            ))}
          </datalist>
          <small className="muted">
            Every text its runs' models read comes from this pack (as --prompts): one of ours by name, or a pack file on the host
            (rlm-studio prompts import-reference / export). Its runs record the pack's name and hash.
          </small>
          {err('prompts')}
        </label>
        <label>
          Context window (tokens)
          <input
            value={d.contextWindow}
            onChange={(e) => set({ contextWindow: e.target.value })}
            inputMode="numeric"
            size={9}
            placeholder="the model table's"
            data-testid="pp-context-window"
            {...described('contextWindow')}
          />
          <small className="muted">
            The root model's window (as --context-window): compaction and the per-call budgets the prompts quote follow it.
          </small>
          {err('contextWindow')}
        </label>
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
