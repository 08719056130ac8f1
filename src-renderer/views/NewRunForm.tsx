// Starts a session on the host: profile (the built-in `demo` needs no key), models,
// REPL language, system prompt, context, query, limits, breakpoints. What is sent is
// checked with the protocol's own schema first, so a problem is named here.
import { useCallback, useState } from 'react';
import {
  DEMO_PROFILE_NAME,
  StartSession,
  type BreakpointKind,
  type ContextSource,
  type RunLimitsInput,
} from '../../src-shared/protocol.ts';
import { useServices, useStudio } from '../app/context.tsx';
import { languageOfChoice, REPL_CHOICE_LABEL, REPL_LABEL, type ReplChoice, replChoiceOf } from '../lib/repl-language.ts';
import { ProfilesPanel } from './profiles/ProfilesPanel.tsx';
import { ExamplesField, examplesOf } from './ExamplesField.tsx';
import { ProfileOptions } from './profiles/ProfileOptions.tsx';
import { ToolsField } from './ToolsField.tsx';
import { FormActions } from './FormActions.tsx';

const BP_KINDS: BreakpointKind[] = ['before_model_call', 'after_reply', 'after_block', 'on_error', 'on_subcall_start'];

function num(v: string): number | undefined {
  const n = Number(v);
  return v.trim() !== '' && Number.isFinite(n) ? n : undefined;
}

/** `profile`: whatever the profile says (its own prompt, else the built-in one). */
type PromptMode = 'profile' | 'builtin' | 'custom';

/** The first problem zod finds, as "field: message". */
function firstIssue(err: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const issue = err.issues[0];
  if (!issue) return 'invalid';
  const where = issue.path.map(String).join('.');
  return where ? `${where}: ${issue.message}` : issue.message;
}

export function NewRunForm() {
  const svc = useServices();
  const profiles = useStudio((s) => s.profiles);
  const [profile, setProfileName] = useState(DEMO_PROFILE_NAME);
  const [repl, setRepl] = useState<ReplChoice>('javascript');
  const [promptMode, setPromptMode] = useState<PromptMode>('profile');
  const [systemPrompt, setSystemPrompt] = useState('');
  const [finalPatterns, setFinalPatterns] = useState(false);
  const [tools, setTools] = useState('');
  const [examples, setExamples] = useState('');
  const [exampleBudget, setExampleBudget] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [model, setModel] = useState('');
  const [subModel, setSubModel] = useState('');
  /** '' : sub-calls on the root profile. */
  const [subProfile, setSubProfile] = useState('');
  const [ctxKind, setCtxKind] = useState<ContextSource['kind']>('demo');
  const [demo, setDemo] = useState<'recursive' | 'needle' | 'aggregate'>('recursive');
  const [text, setText] = useState('');
  const [path, setPath] = useState('');
  const [query, setQuery] = useState('');
  const [maxDepth, setMaxDepth] = useState('');
  const [maxIterations, setMaxIterations] = useState('');
  const [maxBudget, setMaxBudget] = useState('');
  const [maxTimeout, setMaxTimeout] = useState('');
  const [childLlmModel, setChildLlmModel] = useState<'sub' | 'own'>('sub');
  const [bps, setBps] = useState<BreakpointKind[]>([]);
  const [startPaused, setStartPaused] = useState(false);
  const [busy, setBusy] = useState(false);
  const [managing, setManaging] = useState(false);
  const closeProfiles = useCallback(() => setManaging(false), []);
  const chosen = profiles.find((p) => p.name === profile) ?? null;
  // A profile brings its REPL language and paper-era setting; the form's choice can still
  // override them. Read from the store: a profile saved a moment ago is not in this render's list yet.
  const setProfile = useCallback(
    (name: string) => {
      setProfileName(name);
      const p = svc.store.getState().profiles.find((x) => x.name === name);
      setRepl(p?.repl ?? 'javascript');
      setFinalPatterns(p?.finalPatterns ?? false);
      setExamples((p?.examples ?? []).join('\n'));
      setExampleBudget(p?.exampleBudget?.toString() ?? '');
      setPromptMode((m) => (m === 'builtin' ? 'profile' : m));
    },
    [svc],
  );

  const submit = async (): Promise<void> => {
    const context: ContextSource =
      ctxKind === 'demo'
        ? { kind: 'demo', name: demo }
        : ctxKind === 'file'
          ? { kind: 'file', path }
          : ctxKind === 'json'
            ? { kind: 'json', json: text }
            : { kind: 'text', text };
    const limits: RunLimitsInput = {};
    const d = num(maxDepth);
    if (d !== undefined) limits.maxDepth = d;
    const it = num(maxIterations);
    if (it !== undefined) limits.maxIterations = it;
    const b = num(maxBudget);
    if (b !== undefined) limits.maxBudgetUsd = b;
    const t = num(maxTimeout);
    if (t !== undefined) limits.maxTimeoutMs = t * 1000;
    if (childLlmModel !== 'sub') limits.childLlmModel = childLlmModel;
    const ex = examplesOf(examples, exampleBudget);
    if ('error' in ex) {
      setProblem(ex.error);
      return;
    }
    const parsed = StartSession.safeParse({
      profile,
      context,
      query: query.trim() === '' ? null : query,
      limits,
      breakpoints: bps.map((kind) => ({ kind })),
      startPaused,
      repl,
      finalPatterns,
      ...(tools.trim() ? { tools: tools.trim() } : {}),
      // The form starts from the profile's examples, so what it shows is what runs: [] is
      // sent only to drop a profile's examples.
      ...(ex.examples.length > 0 || (chosen?.examples?.length ?? 0) > 0 ? { examples: ex.examples } : {}),
      ...(ex.exampleBudget !== undefined ? { exampleBudget: ex.exampleBudget } : {}),
      ...(promptMode === 'custom' ? { systemPrompt } : promptMode === 'builtin' ? { systemPrompt: null } : {}),
      ...(model ? { model } : {}),
      ...(subModel ? { subModel } : {}),
      ...(subProfile ? { subProfile } : {}),
    });
    if (!parsed.success) {
      setProblem(
        promptMode === 'custom' && systemPrompt.trim() === ''
          ? 'The custom system prompt is empty: type it or load it from a file.'
          : firstIssue(parsed.error),
      );
      return;
    }
    setProblem(null);
    setBusy(true);
    await svc.start(parsed.data);
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
          <select value={profile} onChange={(e) => setProfile(e.target.value)} data-testid="nr-profile">
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
        Model <input value={model} onChange={(e) => setModel(e.target.value)} placeholder="profile default" />
      </label>
      <label>
        Sub-calls profile
        <select value={subProfile} onChange={(e) => setSubProfile(e.target.value)} data-testid="nr-sub-profile">
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
          value={subModel}
          onChange={(e) => setSubModel(e.target.value)}
          placeholder={subProfile ? "the sub-calls profile's model" : 'profile default'}
        />
      </label>
      <label>
        REPL language
        <select value={repl} onChange={(e) => setRepl(replChoiceOf(e.target.value))} data-testid="nr-repl">
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
            checked={promptMode === 'profile'}
            onChange={() => setPromptMode('profile')}
            data-testid="nr-prompt-profile"
          />{' '}
          {chosen?.systemPrompt
            ? `the profile's own (${chosen.systemPrompt.length.toLocaleString('en-US')} characters)`
            : `built-in, for ${REPL_LABEL[languageOfChoice(repl)]}`}
        </label>
        {chosen?.systemPrompt ? (
          <label>
            <input
              type="radio"
              name="prompt"
              checked={promptMode === 'builtin'}
              onChange={() => setPromptMode('builtin')}
              data-testid="nr-prompt-builtin"
            />{' '}
            built-in, for {REPL_LABEL[languageOfChoice(repl)]}
          </label>
        ) : null}
        <label>
          <input
            type="radio"
            name="prompt"
            checked={promptMode === 'custom'}
            onChange={() => setPromptMode('custom')}
            data-testid="nr-prompt-custom"
          />{' '}
          my own
        </label>
        {promptMode === 'custom' ? (
          <>
            <textarea
              value={systemPrompt}
              onChange={(e) => setSystemPrompt(e.target.value)}
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
                if (f) void f.text().then(setSystemPrompt);
              }}
            />
          </>
        ) : null}
      </fieldset>
      <label className="nr-check">
        <span>
          <input
            type="checkbox"
            checked={finalPatterns}
            onChange={(e) => setFinalPatterns(e.target.checked)}
            data-testid="nr-final-patterns"
          />{' '}
          paper-era protocol: accept FINAL(answer) and FINAL_VAR(name) in replies, code included, and as REPL functions
        </span>
      </label>
      <ToolsField value={tools} onChange={setTools} idPrefix="nr" />
      <ExamplesField paths={examples} budget={exampleBudget} onPaths={setExamples} onBudget={setExampleBudget} idPrefix="nr" />
      <fieldset>
        <legend>Context</legend>
        {(['demo', 'text', 'json', 'file'] as const).map((k) => (
          <label key={k}>
            <input type="radio" name="ctx" checked={ctxKind === k} onChange={() => setCtxKind(k)} /> {k}
          </label>
        ))}
        {ctxKind === 'demo' ? (
          <select value={demo} onChange={(e) => setDemo(e.target.value as typeof demo)} data-testid="nr-demo">
            <option value="recursive">recursive</option>
            <option value="needle">needle</option>
            <option value="aggregate">aggregate</option>
          </select>
        ) : ctxKind === 'file' ? (
          <input value={path} onChange={(e) => setPath(e.target.value)} placeholder="path on the host" aria-label="Context file path" />
        ) : (
          <>
            <textarea value={text} onChange={(e) => setText(e.target.value)} rows={6} aria-label="Context text" />
            <input
              type="file"
              aria-label="Load context from a file"
              onChange={(e) => {
                const f = e.target.files?.[0];
                if (f) void f.text().then(setText);
              }}
            />
          </>
        )}
      </fieldset>
      <label>
        Query <textarea value={query} onChange={(e) => setQuery(e.target.value)} rows={2} data-testid="nr-query" />
      </label>
      <fieldset className="limits">
        <legend>Limits</legend>
        <label>
          depth{' '}
          <input
            value={maxDepth}
            onChange={(e) => setMaxDepth(e.target.value)}
            inputMode="numeric"
            size={4}
            title="Children are spawned while depth + 1 < this (default 1). 0: no REPL, the whole context and query in one plain call (the reference's baseline)."
          />
        </label>
        <label>
          iterations <input value={maxIterations} onChange={(e) => setMaxIterations(e.target.value)} inputMode="numeric" size={4} />
        </label>
        <label>
          budget $ <input value={maxBudget} onChange={(e) => setMaxBudget(e.target.value)} inputMode="decimal" size={6} />
        </label>
        <label>
          time s <input value={maxTimeout} onChange={(e) => setMaxTimeout(e.target.value)} inputMode="decimal" size={6} />
        </label>
        <label title="The model of a child run's llm_query that names none">
          child llm_query{' '}
          <select
            value={childLlmModel}
            onChange={(e) => setChildLlmModel(e.target.value === 'own' ? 'own' : 'sub')}
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
              checked={bps.includes(k)}
              onChange={() => setBps((p) => (p.includes(k) ? p.filter((x) => x !== k) : [...p, k]))}
              data-testid={`nr-bp-${k}`}
            />{' '}
            {k}
          </label>
        ))}
        <label>
          <input type="checkbox" checked={startPaused} onChange={(e) => setStartPaused(e.target.checked)} /> start paused
        </label>
      </fieldset>
      <FormActions id="nr" problem={problem} busy={busy} label="Start" busyLabel="Starting…" />
    </form>
  );
}
