// A counterfactual sub-call (issue 13, part 3): the recorded prompt of one call, editable, a
// model and an endpoint; Run re-runs just that call on the host (a child run as a session of
// its own); the recorded and the new answer side by side; "Fork with this answer" starts a
// fork of the run that made the call, its iteration replayed with the new result substituted.
import { useEffect, useState } from 'react';
import { findCounterfactualCall, type CounterfactualRecord } from '../../src-shared/analysis/counterfactual.ts';
import type { RunId } from '../../src-shared/events.ts';
import { DEMO_PROFILE_NAME, type ContextSource, type ForkSession } from '../../src-shared/protocol.ts';
import type { TrajectoryState } from '../../src-shared/trajectory/index.ts';
import { useServices, useStudio } from '../app/context.tsx';
import { contextNeedOf, contextSourceOf, ContextFields, mayHaveRecipe, type ContextChoice } from './ContextFields.tsx';
import { ProfileOptions } from './profiles/ProfileOptions.tsx';
import { TextBlock } from './TextBlock.tsx';
import { hostIdOf } from '../store/studio.ts';
import { STILL_LOADING } from './still-loading.ts';

const ENDED = new Set(['finished', 'failed', 'cancelled']);

export function CounterfactualPanel({
  sessionId,
  traj,
  callId,
  onClose,
}: {
  sessionId: string;
  traj: TrajectoryState;
  callId: string;
  onClose: () => void;
}) {
  const svc = useServices();
  const entry = useStudio((s) => s.sessions.get(sessionId));
  const profiles = useStudio((s) => s.profiles);
  const online = useStudio((s) => s.connection === 'open');
  const found = findCounterfactualCall(traj, callId);
  const call = typeof found === 'string' ? null : found.call;
  const asRecorded = mayHaveRecipe(entry);
  const [prompt, setPrompt] = useState(call?.start.prompt ?? '');
  const [model, setModel] = useState(call?.start.model ?? '');
  const [profile, setProfile] = useState(asRecorded ? '' : DEMO_PROFILE_NAME);
  const [context, setContext] = useState<ContextChoice>({ kind: 'path', path: '', text: '', json: false });
  const [record, setRecord] = useState<CounterfactualRecord | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  // A child run's re-run is a session: its record is complete once that session has ended.
  const childStatus = useStudio((s) => (record?.session ? (s.sessions.get(record.session.sessionId)?.summary?.status ?? null) : null));

  // A big log's long prompt was cut when it was read: read it back before it is edited.
  const elided = call !== null && (entry?.elided.has(call.start) ?? false);
  useEffect(() => {
    if (!call || !elided) return;
    void svc.texts.fullTexts(sessionId, [call.start, call.end]).then(() => setPrompt(call.start.prompt));
  }, [svc, sessionId, call, elided]);

  // The latest re-run of this call already recorded (the sidecar beside the log), shown at once.
  useEffect(() => {
    let live = true;
    void svc.counterfactuals(sessionId).then((list) => {
      const mine = list.filter((r) => r.call.callId === callId);
      if (live && mine.length > 0) setRecord((cur) => cur ?? mine[mine.length - 1]!);
    });
    return () => {
      live = false;
    };
  }, [svc, sessionId, callId]);

  useEffect(() => {
    if (record?.status !== 'running' || childStatus === null || !ENDED.has(childStatus)) return;
    let live = true;
    // The host completes the record when it sees the session end; ask until it has.
    const poll = (tries: number): void => {
      void svc.counterfactuals(sessionId).then((list) => {
        const r = list.find((x) => x.id === record.id);
        if (!live) return;
        if (r && r.status !== 'running') setRecord(r);
        else if (tries > 0) setTimeout(() => poll(tries - 1), 200);
      });
    };
    poll(20);
    return () => {
      live = false;
    };
  }, [svc, sessionId, record, childStatus]);

  if (!call || typeof found === 'string') return <div className="error">{typeof found === 'string' ? found : 'no such call'}</div>;
  const child = found.child;
  const models = [
    ...new Set([call.start.model, found.run.start?.model, found.run.start?.subModel, ...profiles.map((p) => p.model)]),
  ].filter((m): m is string => typeof m === 'string' && m !== '');
  const need = contextNeedOf(entry);
  // A dropped file goes to the host whole before a re-run or a fork: not while it is still loading.
  const loadingHere = !!entry && entry.loading !== null && hostIdOf(entry) === null;

  const run = async (): Promise<void> => {
    setBusy(true);
    setProblem(null);
    const r = await svc.runCounterfactual(sessionId, {
      callId,
      prompt,
      ...(model.trim() && model.trim() !== call.start.model ? { model: model.trim() } : {}),
      ...(profile ? { profile } : {}),
    });
    setBusy(false);
    if (r) setRecord(r);
  };

  const fork = async (): Promise<void> => {
    if (!record) return;
    const source: ContextSource | null = need === 'none' ? null : contextSourceOf(context);
    if (need === 'required' && source === null) {
      setProblem('This log does not hold its context: give the file it was made from to fork it.');
      return;
    }
    const extra: Partial<ForkSession> = {
      counterfactual: record.id,
      ...(profile ? { profile } : {}),
      ...(source ? { context: source } : {}),
    };
    setBusy(true);
    await svc.fork(sessionId, record.call.runId as RunId, record.call.iteration, extra);
    setBusy(false);
  };

  const recorded = call.end ? (call.end.error !== null && call.end.response === '' ? `Error: ${call.end.error}` : call.end.response) : '';
  const state =
    record === null
      ? null
      : record.status === 'running'
        ? `running as its own session${childStatus ? ` (${childStatus})` : ''}…`
        : record.status === 'failed'
          ? `failed: ${record.message ?? ''}`
          : null;
  return (
    <section className="counterfactual" aria-label={`Counterfactual of call ${callId}`} data-testid="counterfactual-panel">
      <div className="cf-head">
        <h4>
          What if this {child ? 'child run' : 'sub-call'} had been asked differently? <small>({callId})</small>
        </h4>
        <button type="button" className="link" onClick={onClose}>
          close
        </button>
      </div>
      <p className="muted">
        {child
          ? 'Run re-runs the child as an RLM session of its own, with the prompt below as its context.'
          : 'Run sends the prompt below as one plain call.'}{' '}
        The log is not changed: the re-run is recorded beside it.
      </p>
      <label className="cf-prompt">
        Prompt {prompt !== call.start.prompt ? <span className="badge">edited</span> : null}
        <textarea value={prompt} onChange={(e) => setPrompt(e.target.value)} rows={8} data-testid="cf-prompt" spellCheck={false} />
      </label>
      <div className="cf-row">
        <label>
          Model
          <input value={model} onChange={(e) => setModel(e.target.value)} list={`cf-models-${callId}`} data-testid="cf-model" />
          <datalist id={`cf-models-${callId}`}>
            {models.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </label>
        <label>
          Endpoint
          <select value={profile} onChange={(e) => setProfile(e.target.value)} data-testid="cf-profile">
            {asRecorded ? <option value="">as the session was run</option> : null}
            <ProfileOptions profiles={profiles} />
          </select>
        </label>
        <button
          type="button"
          className="primary"
          disabled={!online || busy || elided || loadingHere}
          title={loadingHere ? STILL_LOADING : undefined}
          onClick={() => void run()}
          data-testid="cf-run"
        >
          {busy && record?.status !== 'done' ? 'Running…' : 'Run'}
        </button>
      </div>
      <div className="cf-sides">
        <div className="cf-side" data-testid="cf-recorded">
          <h5>Recorded answer</h5>
          <TextBlock text={recorded} />
        </div>
        <div className="cf-side" data-testid="cf-new">
          <h5>
            Counterfactual answer
            {record ? (
              <small>
                {' '}
                ({record.edited.model}
                {record.edited.prompt !== record.call.prompt ? ', edited prompt' : ''})
              </small>
            ) : null}
          </h5>
          {record?.result && record.status !== 'running' ? (
            <TextBlock text={record.result.response} testId="cf-new-text" />
          ) : (
            <p className="muted">{state ?? 'Run it to see.'}</p>
          )}
          {record?.status === 'done' && record.result?.response === recorded ? <p className="muted">Same as recorded.</p> : null}
        </div>
      </div>
      {record?.status === 'done' ? (
        <div className="cf-fork">
          {need !== 'none' ? <ContextFields value={context} onChange={setContext} idPrefix="cf" optional={need === 'optional'} /> : null}
          <button
            type="button"
            className="primary"
            disabled={!online || busy || loadingHere}
            title={loadingHere ? STILL_LOADING : undefined}
            onClick={() => void fork()}
            data-testid="cf-fork"
          >
            Fork with this answer
          </button>
          <span className="muted">
            {' '}
            replays run {record.call.runId} up to iteration {record.call.iteration} with this result instead of the recorded one, then
            continues live.
          </span>
        </div>
      ) : null}
      {problem ? (
        <p role="alert" className="pp-error">
          {problem}
        </p>
      ) : null}
    </section>
  );
}
