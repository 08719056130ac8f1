// Starts a session on the host: profile (the built-in `demo` needs no key), models, REPL
// language, system prompt, context, query, limits, breakpoints. The fields are one draft
// changed through a reducer (run-draft.ts), and what is sent is checked with the protocol's
// own schema first, so a problem is named here.
import { useCallback, useReducer, useState } from 'react';
import { useServices, useStudio } from '../../app/context.tsx';
import { languageOfChoice, REPL_CHOICE_LABEL, REPL_LABEL, replChoiceOf } from '../../lib/repl-language.ts';
import { ExamplesField } from '../ExamplesField.tsx';
import { FormActions } from '../FormActions.tsx';
import { ProfileOptions } from '../profiles/ProfileOptions.tsx';
import { ProfilesPanel } from '../profiles/ProfilesPanel.tsx';
import { ToolsField } from '../ToolsField.tsx';
import { BP_KINDS, draftReducer, INITIAL_DRAFT, startOf, type DemoName, type RunDraft } from './run-draft.ts';

export function NewRunForm() {
  const svc = useServices();
  const profiles = useStudio((s) => s.profiles);
  const [d, dispatch] = useReducer(draftReducer, INITIAL_DRAFT);
  const set = (patch: Partial<RunDraft>): void => dispatch({ type: 'set', patch });
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [managing, setManaging] = useState(false);
  const closeProfiles = useCallback(() => setManaging(false), []);
  const chosen = profiles.find((p) => p.name === d.profile) ?? null;
  // Read from the store: a profile saved a moment ago is not in this render's list yet.
  const setProfile = useCallback(
    (name: string) => dispatch({ type: 'profile', name, profile: svc.store.getState().profiles.find((x) => x.name === name) ?? null }),
    [svc],
  );

  const submit = async (): Promise<void> => {
    const r = startOf(d, chosen);
    if ('problem' in r) {
      setProblem(r.problem);
      return;
    }
    setProblem(null);
    setBusy(true);
    await svc.start(r.start);
    setBusy(false);
  };

  return (
    <form
      className="new-run"
      aria-label="New run"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <h2>New run</h2>
      <div className="nr-profile-row">
        <label>
          Profile
          <select value={d.profile} onChange={(e) => setProfile(e.target.value)} data-testid="nr-profile">
            <ProfileOptions profiles={profiles} />
          </select>
        </label>
        <button type="button" onClick={() => setManaging(true)} aria-haspopup="dialog" data-testid="nr-manage-profiles">
          Manage profiles…
        </button>
      </div>
      {/* Portalled to <body> (a dialog, and its forms must not nest in this one). */}
      {managing ? <ProfilesPanel onClose={closeProfiles} onSaved={setProfile} /> : null}
      <label>
        Model <input value={d.model} onChange={(e) => set({ model: e.target.value })} placeholder="profile default" />
      </label>
      <label>
        Sub-calls profile
        <select value={d.subProfile} onChange={(e) => set({ subProfile: e.target.value })} data-testid="nr-sub-profile">
          <option value="">same as the profile</option>
          <ProfileOptions profiles={profiles} />
        </select>
        <small className="muted">
          The endpoint, key, sampling and model of llm_query and leaf rlm_query calls; child runs' turns use the profile above.
        </small>
      </label>
      <label>
        Sub-model{' '}
        <input
          value={d.subModel}
          onChange={(e) => set({ subModel: e.target.value })}
          placeholder={d.subProfile ? "the sub-calls profile's model" : 'profile default'}
        />
      </label>
      <label>
        REPL language
        <select value={d.repl} onChange={(e) => set({ repl: replChoiceOf(e.target.value) })} data-testid="nr-repl">
          <option value="javascript">{REPL_CHOICE_LABEL.javascript}</option>
          <option value="python">{REPL_CHOICE_LABEL.python} (the reference library's names)</option>
          <option value="cpython">{REPL_CHOICE_LABEL.cpython}: threads, installed packages; Linux with bubblewrap</option>
        </select>
      </label>
      <fieldset className="nr-prompt">
        <legend>System prompt</legend>
        <label>
          <input
            type="radio"
            name="prompt"
            checked={d.promptMode === 'profile'}
            onChange={() => set({ promptMode: 'profile' })}
            data-testid="nr-prompt-profile"
          />{' '}
          {chosen?.systemPrompt
            ? `the profile's own (${chosen.systemPrompt.length.toLocaleString('en-US')} characters)`
            : `built-in, for ${REPL_LABEL[languageOfChoice(d.repl)]}`}
        </label>
        {chosen?.systemPrompt ? (
          <label>
            <input
              type="radio"
              name="prompt"
              checked={d.promptMode === 'builtin'}
              onChange={() => set({ promptMode: 'builtin' })}
              data-testid="nr-prompt-builtin"
            />{' '}
            built-in, for {REPL_LABEL[languageOfChoice(d.repl)]}
          </label>
        ) : null}
        <label>
          <input
            type="radio"
            name="prompt"
            checked={d.promptMode === 'custom'}
            onChange={() => set({ promptMode: 'custom' })}
            data-testid="nr-prompt-custom"
          />{' '}
          my own
        </label>
        {d.promptMode === 'custom' ? (
          <>
            <textarea
              value={d.systemPrompt}
              onChange={(e) => set({ systemPrompt: e.target.value })}
              rows={6}
              spellCheck={false}
              aria-label="System prompt text"
              data-testid="nr-system-prompt"
            />
            <small className="muted">Replaces the built-in prompt; {'{tools}'} is replaced by the list of tools.</small>
            <input
              type="file"
              aria-label="Load the system prompt from a file"
              data-testid="nr-system-prompt-file"
              onChange={(e) => {
                const f = e.target.files?.[0];
                if (f) void f.text().then((v) => set({ systemPrompt: v }));
              }}
            />
          </>
        ) : null}
      </fieldset>
      <label className="nr-check">
        <span>
          <input
            type="checkbox"
            checked={d.finalPatterns}
            onChange={(e) => set({ finalPatterns: e.target.checked })}
            data-testid="nr-final-patterns"
          />{' '}
          paper-era protocol: accept FINAL(answer) and FINAL_VAR(name) in replies, code included, and as REPL functions
        </span>
      </label>
      <ToolsField value={d.tools} onChange={(v) => set({ tools: v })} idPrefix="nr" />
      <ExamplesField
        paths={d.examples}
        budget={d.exampleBudget}
        onPaths={(v) => set({ examples: v })}
        onBudget={(v) => set({ exampleBudget: v })}
        idPrefix="nr"
      />
      <fieldset>
        <legend>Context</legend>
        {(['demo', 'text', 'json', 'file'] as const).map((k) => (
          <label key={k}>
            <input type="radio" name="ctx" checked={d.ctxKind === k} onChange={() => set({ ctxKind: k })} /> {k}
          </label>
        ))}
        {d.ctxKind === 'demo' ? (
          <select value={d.demo} onChange={(e) => set({ demo: e.target.value as DemoName })} data-testid="nr-demo">
            <option value="recursive">recursive</option>
            <option value="needle">needle</option>
            <option value="aggregate">aggregate</option>
          </select>
        ) : d.ctxKind === 'file' ? (
          <input
            value={d.path}
            onChange={(e) => set({ path: e.target.value })}
            placeholder="path on the host"
            aria-label="Context file path"
          />
        ) : (
          <>
            <textarea value={d.text} onChange={(e) => set({ text: e.target.value })} rows={6} aria-label="Context text" />
            <input
              type="file"
              aria-label="Load context from a file"
              onChange={(e) => {
                const f = e.target.files?.[0];
                if (f) void f.text().then((v) => set({ text: v }));
              }}
            />
          </>
        )}
      </fieldset>
      <label>
        Query <textarea value={d.query} onChange={(e) => set({ query: e.target.value })} rows={2} data-testid="nr-query" />
      </label>
      <fieldset className="limits">
        <legend>Limits</legend>
        <label>
          depth{' '}
          <input
            value={d.maxDepth}
            onChange={(e) => set({ maxDepth: e.target.value })}
            inputMode="numeric"
            size={4}
            title="Children are spawned while depth + 1 < this (default 1). 0: no REPL, the whole context and query in one plain call (the reference's baseline)."
          />
        </label>
        <label>
          iterations <input value={d.maxIterations} onChange={(e) => set({ maxIterations: e.target.value })} inputMode="numeric" size={4} />
        </label>
        <label>
          budget $ <input value={d.maxBudget} onChange={(e) => set({ maxBudget: e.target.value })} inputMode="decimal" size={6} />
        </label>
        <label>
          time s <input value={d.maxTimeout} onChange={(e) => set({ maxTimeout: e.target.value })} inputMode="decimal" size={6} />
        </label>
        <label title="The model of a child run's llm_query that names none">
          child llm_query{' '}
          <select
            value={d.childLlmModel}
            onChange={(e) => set({ childLlmModel: e.target.value === 'own' ? 'own' : 'sub' })}
            data-testid="nr-child-llm-model"
          >
            <option value="sub">sub model</option>
            <option value="own">child's own model (as the reference)</option>
          </select>
        </label>
      </fieldset>
      <fieldset>
        <legend>Breakpoints</legend>
        {BP_KINDS.map((k) => (
          <label key={k}>
            <input
              type="checkbox"
              checked={d.breakpoints.includes(k)}
              onChange={() => dispatch({ type: 'breakpoint', kind: k })}
              data-testid={`nr-bp-${k}`}
            />{' '}
            {k}
          </label>
        ))}
        <label>
          <input type="checkbox" checked={d.startPaused} onChange={(e) => set({ startPaused: e.target.checked })} /> start paused
        </label>
      </fieldset>
      <FormActions id="nr" problem={problem} busy={busy} label="Start" busyLabel="Starting…" />
    </form>
  );
}
