// In the Evaluation view, on request: which share of its context each task's models saw (the
// root model in its REPL output, sub-calls, child runs) and which share none did, task by task,
// with the median unseen share of the correct tasks against the incorrect ones. The host maps
// each task log against its task's context from the dataset (`eval.coverage`, the same figures
// as `rlm-studio coverage DIR`); a row opens the task's session, whose coverage panel shows where.
import { useMemo, useState } from 'react';
import type { EvalCoverage, EvalCoverageTask } from '../../src-shared/protocol.ts';
import { evalCoverage, openEvalTask } from '../app/eval-services.ts';
import { useServices } from '../app/context.tsx';

const share = (x: number, of: number): string => (of > 0 ? `${((100 * x) / of).toFixed(1)}%` : '–');
const unseenShare = (t: EvalCoverageTask): number | null =>
  t.session && t.session.contextChars > 0 ? t.session.unseenChars / t.session.contextChars : null;

function MedianUnseen({ c }: { c: EvalCoverage }) {
  const of = ({ median, n }: { median: number | null; n: number }): string =>
    median === null ? 'none' : `${(median * 100).toFixed(1)}% (${n} tasks)`;
  return (
    <p data-testid="eval-coverage-median">
      Median share no model saw: correct {of(c.unseen.correct)}, incorrect {of(c.unseen.incorrect)}.
      {c.minSpanChars !== null ? <span className="muted"> Copies of at least {c.minSpanChars} characters count.</span> : null}
    </p>
  );
}

/** One bar per task: the share of its context some model saw, filled; the rest, no model saw. */
function CoverageBars({ dir, title, tasks, testId }: { dir: string; title: string; tasks: EvalCoverageTask[]; testId: string }) {
  const svc = useServices();
  return (
    <div data-testid={testId}>
      <h4>
        {title} ({tasks.length})
      </h4>
      {tasks.length === 0 ? <p className="muted">none</p> : null}
      {tasks.map((t) => {
        const unseen = unseenShare(t);
        return (
          <div key={t.id} className="cov-bar-row" data-testid="eval-coverage-bar">
            <button type="button" className="link" onClick={() => void openEvalTask(svc, dir, t.id)} title={t.id}>
              {t.id}
            </button>
            {unseen === null ? (
              <span className="muted">{t.problem ?? 'no figures'}</span>
            ) : (
              <span
                className="cov-bar"
                role="img"
                aria-label={`${t.id}: ${(100 * (1 - unseen)).toFixed(1)}% of its context seen by a model`}
              >
                <i style={{ width: `${100 * (1 - unseen)}%` }} />
              </span>
            )}
            <span className="muted">{unseen === null ? '' : `${(100 * unseen).toFixed(1)}% unseen`}</span>
          </div>
        );
      })}
    </div>
  );
}

export function EvalCoverageSection({ dir }: { dir: string }) {
  const svc = useServices();
  const [coverage, setCoverage] = useState<{ dir: string; c: EvalCoverage } | null>(null);
  const [busy, setBusy] = useState(false);
  const c = coverage?.dir === dir ? coverage.c : null;
  // Most unseen first: the tasks whose models looked least are the ones to open.
  const rows = useMemo(() => (c ? [...c.tasks].sort((a, b) => (unseenShare(b) ?? -1) - (unseenShare(a) ?? -1)) : []), [c]);
  const map = async (): Promise<void> => {
    setBusy(true);
    const got = await evalCoverage(svc, dir);
    setBusy(false);
    if (got) setCoverage({ dir, c: got });
  };
  return (
    <section className="eval-coverage" data-testid="eval-coverage">
      <h3>Context coverage</h3>
      {c === null ? (
        <button type="button" disabled={busy} onClick={() => void map()} data-testid="eval-coverage-open">
          {busy ? 'Mapping every task…' : 'Map which share of its context each task’s models saw'}
        </button>
      ) : (
        <>
          <MedianUnseen c={c} />
          <p className="muted">Each bar is a task’s context: filled, the share some model saw; grey, the share none did.</p>
          <div className="eval-coverage-bars">
            <CoverageBars dir={dir} title="Correct" tasks={rows.filter((t) => t.correct)} testId="eval-coverage-correct" />
            <CoverageBars dir={dir} title="Incorrect" tasks={rows.filter((t) => !t.correct)} testId="eval-coverage-incorrect" />
          </div>
          <table className="eval-coverage-table">
            <thead>
              <tr>
                <th>task</th>
                <th>correct</th>
                <th>context chars</th>
                <th>seen by root</th>
                <th>sent to sub-calls</th>
                <th>sent to children</th>
                <th>unseen</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((t) => (
                <tr key={t.id} data-testid={`eval-coverage-row-${t.id}`} title={t.problem ?? undefined}>
                  <td>
                    <button type="button" className="link" onClick={() => void openEvalTask(svc, dir, t.id)}>
                      {t.id}
                    </button>
                  </td>
                  <td>{t.correct ? '✓' : '✗'}</td>
                  {t.session ? (
                    <>
                      <td>{t.session.contextChars.toLocaleString('en-US')}</td>
                      <td>{share(t.session.seenByRootChars, t.session.contextChars)}</td>
                      <td>{share(t.session.sentToSubcallsChars, t.session.contextChars)}</td>
                      <td>{share(t.session.sentToChildrenChars, t.session.contextChars)}</td>
                      <td>{share(t.session.unseenChars, t.session.contextChars)}</td>
                    </>
                  ) : (
                    <td colSpan={5} className="muted">
                      {t.problem ?? 'no figures'}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
