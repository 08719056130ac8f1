// Forking from an iteration: the new session replays the recorded replies and sub-call results
// up to it, then continues with the chosen endpoint. At the iteration itself it either asks
// the model again, or keeps the recorded reply and pauses before its code runs, so the code
// can be edited first (step-through). A log the host did not record itself (an imported or
// dropped one) has no context on file: the form asks for it, and for the custom tools module
// its blocks call, if any (a fork of the host's own session or re-execution keeps its own).
import { useState } from 'react';
import type { RunId } from '../../src-shared/events.ts';
import { DEMO_PROFILE_NAME, type Breakpoint, type ContextSource, type ForkSession } from '../../src-shared/protocol.ts';
import { useServices, useStudio } from '../app/context.tsx';
import { contextSourceOf, ContextFields, type ContextChoice, type ContextNeed } from './ContextFields.tsx';
import { ProfileOptions } from './profiles/ProfileOptions.tsx';
import { ToolsField } from './ToolsField.tsx';
import { FormActions } from './FormActions.tsx';

export interface ForkTarget {
  sessionId: string;
  runId: RunId;
  depth: number;
  iteration: number;
  /** The recorded reply at the iteration, when there is one (it can be kept and edited). */
  reply: string | null;
  context: ContextNeed;
  /** The host may know the endpoint it ran with ("as the session was run"); else one must be chosen. */
  asRecorded: boolean;
}

type AtIteration = 'live' | 'edit';
/** The paper-era protocol of the fork: as the source session had it, or set here. */
type FinalPatternsChoice = 'source' | 'on' | 'off';

export function ForkForm({ target, onDone }: { target: ForkTarget; onDone: () => void }) {
  const svc = useServices();
  const profiles = useStudio((s) => s.profiles);
  const [profile, setProfile] = useState(target.asRecorded ? '' : DEMO_PROFILE_NAME);
  const [model, setModel] = useState('');
  /** `keep`: the source's sub-call profile; `none`: sub-calls on the endpoint above; `p:NAME`: that profile. */
  const [subProfile, setSubProfile] = useState('keep');
  const [at, setAt] = useState<AtIteration>('live');
  const [context, setContext] = useState<ContextChoice>({ kind: 'path', path: '', text: '', json: false });
  const [tools, setTools] = useState('');
  const [finalPatterns, setFinalPatterns] = useState<FinalPatternsChoice>('source');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (): Promise<void> => {
    const source: ContextSource | null = target.context === 'none' ? null : contextSourceOf(context);
    if (target.context === 'required' && source === null) {
      setProblem('This log does not hold its context: give the file it was made from.');
      return;
    }
    // Paused after the kept reply: only there (replayed iterations before it run straight through).
    const breakpoints: Breakpoint[] =
      at === 'edit' ? [{ kind: 'after_reply', depths: [target.depth], iterations: [target.iteration] }] : [];
    const extra: Partial<ForkSession> = {
      breakpoints,
      ...(profile ? { profile } : {}),
      ...(model.trim() ? { model: model.trim() } : {}),
      ...(subProfile === 'none' ? { subProfile: null } : subProfile.startsWith('p:') ? { subProfile: subProfile.slice(2) } : {}),
      ...(at === 'edit' && target.reply !== null ? { editedReply: target.reply } : {}),
      ...(source ? { context: source } : {}),
      ...(tools.trim() ? { tools: tools.trim() } : {}),
      ...(finalPatterns !== 'source' ? { finalPatterns: finalPatterns === 'on' } : {}),
    };
    setProblem(null);
    setBusy(true);
    const id = await svc.fork(target.sessionId, target.runId, target.iteration, extra);
    setBusy(false);
    if (id) onDone();
  };

  return (
    <form
      className="fork-form"
      aria-label={`Fork from iteration ${target.iteration}`}
      data-testid="fork-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <p className="muted">
        A new session replays this run's recorded replies and sub-call results up to iteration {target.iteration}, then continues with the
        endpoint below.
      </p>
      <label>
        Endpoint
        <select value={profile} onChange={(e) => setProfile(e.target.value)} data-testid="fork-profile">
          {target.asRecorded ? <option value="">as the session was run</option> : null}
          <ProfileOptions profiles={profiles} />
        </select>
      </label>
      <label>
        Model <input value={model} onChange={(e) => setModel(e.target.value)} placeholder="the endpoint's" data-testid="fork-model" />
      </label>
      <label>
        Sub-calls endpoint
        <select value={subProfile} onChange={(e) => setSubProfile(e.target.value)} data-testid="fork-sub-profile">
          <option value="keep">as the session was run</option>
          <option value="none">the endpoint above</option>
          <ProfileOptions profiles={profiles} valuePrefix="p:" />
        </select>
      </label>
      <fieldset>
        <legend>At iteration {target.iteration}</legend>
        <label>
          <input type="radio" name="fork-at" checked={at === 'live'} onChange={() => setAt('live')} data-testid="fork-live" /> ask the model
          again and continue live
        </label>
        {target.reply !== null ? (
          <label>
            <input type="radio" name="fork-at" checked={at === 'edit'} onChange={() => setAt('edit')} data-testid="fork-edit" /> keep the
            recorded reply and pause, to edit its code before it runs
          </label>
        ) : null}
      </fieldset>
      {target.context !== 'none' ? (
        <ContextFields value={context} onChange={setContext} idPrefix="fork" optional={target.context === 'optional'} />
      ) : null}
      <ToolsField value={tools} onChange={setTools} idPrefix="fork" />
      <label>
        Paper-era FINAL(answer) / FINAL_VAR(name)
        <select
          value={finalPatterns}
          onChange={(e) => setFinalPatterns(e.target.value === 'on' ? 'on' : e.target.value === 'off' ? 'off' : 'source')}
          data-testid="fork-final-patterns"
        >
          <option value="source">as the source session (off for a log made elsewhere)</option>
          <option value="on">accept</option>
          <option value="off">do not accept</option>
        </select>
      </label>
      <FormActions id="fork" problem={problem} busy={busy} label="Fork" busyLabel="Forking…" onCancel={onDone} />
    </form>
  );
}
