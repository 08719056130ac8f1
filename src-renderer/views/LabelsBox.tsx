// Labels and notes on the session, the run shown, its selected iteration or one of that
// iteration's sub-calls, from the user's label set; kept by the host beside the log.
import { useEffect, useState } from 'react';
import { SESSION_TARGET, targetId } from '../../src-shared/analysis/labels.ts';
import type { IterationNode, RunNode, TrajectoryState } from '../../src-shared/trajectory/index.ts';
import { changeLabels, loadLabels } from '../app/label-services.ts';
import { useLabels, useServices } from '../app/context.tsx';

interface Props {
  sessionId: string;
  traj: TrajectoryState;
  run: RunNode;
  it: IterationNode | null;
}

function targetsOf(traj: TrajectoryState, run: RunNode, it: IterationNode | null): { id: string; name: string }[] {
  const out = [
    { id: SESSION_TARGET, name: 'the session' },
    { id: targetId({ kind: 'run', runId: run.id }), name: `run ${run.id}` },
  ];
  if (it) {
    out.push({ id: targetId({ kind: 'iteration', runId: run.id, iteration: it.iteration }), name: `iteration #${it.iteration}` });
    for (const b of it.blocks) {
      for (const id of b?.calls ?? []) {
        const c = traj.calls.get(id);
        if (c)
          out.push({ id: targetId({ kind: 'call', callId: c.id }), name: `${c.start.kind}_query ${c.id}: ${c.start.prompt.slice(0, 40)}` });
      }
    }
  }
  return out;
}

export function LabelsBox({ sessionId, traj, run, it }: Props) {
  const svc = useServices();
  const entry = useLabels((s) => s.bySession.get(sessionId));
  useEffect(() => {
    void loadLabels(svc, sessionId);
  }, [svc, sessionId]);
  const targets = targetsOf(traj, run, it);
  const [target, setTarget] = useState(targets[1]!.id);
  const [label, setLabel] = useState('');
  const [note, setNote] = useState('');
  const chosen = targets.some((t) => t.id === target) ? target : targets[1]!.id;

  if (!entry || entry.kind === 'loading') return null;
  if (entry.kind === 'unavailable' || !entry.labels.writable) {
    const reason = entry.kind === 'unavailable' ? entry.reason : (entry.labels.reason ?? 'no log file');
    return (
      <section className="labels-box" aria-label="Labels" data-testid="labels-box">
        <span className="muted">Labels unavailable: {reason}.</span>
      </section>
    );
  }
  const { labels } = entry;
  const shown = targets.flatMap((t) => {
    const tl = labels.targets.find((x) => x.target === t.id);
    return tl ? [{ t, tl }] : [];
  });
  const names = labels.set?.labels ?? [];
  return (
    <section className="labels-box" aria-label="Labels" data-testid="labels-box">
      <ul className="labels-list">
        {shown.map(({ t, tl }) => (
          <li key={t.id} data-target={t.id}>
            <span className="muted">{t.name}:</span>{' '}
            {tl.labels.map((l) => (
              <span key={l.label} className="label-chip" title={l.note ?? undefined}>
                {l.label}
                {l.note ? ` — ${l.note}` : ''}
                <button
                  type="button"
                  className="link"
                  aria-label={`Remove ${l.label} from ${t.name}`}
                  onClick={() => void changeLabels(svc, sessionId, { op: 'remove', target: t.id, label: l.label })}
                >
                  ×
                </button>
              </span>
            ))}
            {tl.note ? <span className="label-note">✎ {tl.note}</span> : null}
          </li>
        ))}
      </ul>
      {labels.set === null ? (
        <div className="muted">{labels.setProblem}</div>
      ) : (
        <form
          className="labels-form"
          onSubmit={(e) => {
            e.preventDefault();
            const text = note.trim();
            const change =
              label === ''
                ? { op: 'note' as const, target: chosen, text }
                : { op: 'add' as const, target: chosen, label, ...(text !== '' ? { note: text } : {}) };
            void changeLabels(svc, sessionId, change).then((ok) => {
              if (ok) setNote('');
            });
          }}
        >
          <select aria-label="Label target" value={chosen} onChange={(e) => setTarget(e.target.value)}>
            {targets.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
          <select aria-label="Label" value={label} onChange={(e) => setLabel(e.target.value)}>
            <option value="">(note only)</option>
            {names.map((l) => (
              <option key={l.name} value={l.name} title={l.description}>
                {l.name}
              </option>
            ))}
          </select>
          <input type="text" aria-label="Note" placeholder="note (optional)" value={note} onChange={(e) => setNote(e.target.value)} />
          <button type="submit" disabled={label === '' && note.trim() === ''}>
            Label
          </button>
        </form>
      )}
      {labels.problems.length > 0 ? (
        <div className="muted">{labels.problems.length} line(s) of the labels file could not be read.</div>
      ) : null}
    </section>
  );
}
