// A block's sub-calls, each opening to its prompt and reply, with what-if re-runs.
import { useEffect, useState } from 'react';
import type { CallId, RunId } from '../../../src-shared/events.ts';
import { usageUnknown, type BlockNode, type TrajectoryState } from '../../../src-shared/trajectory/index.ts';
import { useCoverage, useServices } from '../../app/context.tsx';
import { useSharedReader } from '../../app/shared-reader.tsx';
import { fmtInt, fmtMs } from '../../lib/format.ts';
import { CounterfactualPanel } from '../CounterfactualPanel.tsx';
import { CutNote, ReasoningBox } from '../ReplyNotes.tsx';
import { RetriesNote } from '../RetriesNote.tsx';
import { TextBlock } from '../TextBlock.tsx';

export function SubcallList({ sessionId, traj, b }: { sessionId: string; traj: TrajectoryState; b: BlockNode }) {
  const svc = useServices();
  const [open, setOpen] = useState<string | null>(null);
  const [whatIf, setWhatIf] = useState<string | null>(null);
  const reader = useSharedReader();
  // A span of the coverage map asked for one of these calls: open it and bring it into view.
  const focusCall = useCoverage((s) => s.focusCall);
  useEffect(() => {
    if (focusCall === null || !b.calls.includes(focusCall as CallId)) return;
    setOpen(focusCall);
    svc.store.coverage.getState().focus(null);
    requestAnimationFrame(() => document.querySelector(`[data-call-id="${CSS.escape(focusCall)}"]`)?.scrollIntoView({ block: 'center' }));
  }, [focusCall, b, svc]);
  return (
    <div className="subcalls">
      <h5>Sub-calls ({b.calls.length})</h5>
      <table>
        <thead>
          <tr>
            <th>#</th>
            <th>kind</th>
            <th>prompt</th>
            <th>answer</th>
            <th>time</th>
            <th>tokens</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {b.calls.slice(0, 500).map((cid, i) => {
            const c = traj.calls.get(cid);
            if (!c) return null;
            const child: RunId | null = c.start.childRunId;
            return (
              <tr key={cid} className={c.end?.error ? 'has-error' : ''} data-call-id={cid}>
                <td>{c.start.batch ? `${c.start.batch.index + 1}/${c.start.batch.size}` : i + 1}</td>
                <td>
                  {c.start.kind === 'rlm' ? (c.start.leaf ? 'rlm (leaf)' : 'rlm') : 'llm'}
                  {c.end?.counterfactual ? (
                    <span
                      className="badge"
                      data-testid="substituted"
                      title={`Not made: the result of counterfactual ${c.end.counterfactual.id} was substituted. Recorded answer: ${c.end.counterfactual.recorded.response.slice(0, 400)}`}
                    >
                      substituted
                    </span>
                  ) : null}
                </td>
                <td className="clip" onClick={() => setOpen(open === cid ? null : cid)}>
                  {open === cid ? <TextBlock text={c.start.prompt} /> : c.start.prompt.slice(0, 120)}
                </td>
                <td className="clip" onClick={() => setOpen(open === cid ? null : cid)}>
                  {c.end ? open === cid ? <TextBlock text={c.end.response} /> : c.end.response.slice(0, 120) : '…'}
                  {c.end ? <CutNote finishReason={c.end.finishReason} testId="subcall-cut" /> : null}
                  {c.end?.reasoning ? (
                    <span onClick={(e) => e.stopPropagation()}>
                      <ReasoningBox reasoning={c.end.reasoning} testId="subcall-reasoning" />
                    </span>
                  ) : null}
                </td>
                <td>
                  {c.end ? fmtMs(c.end.latencyMs) : ''}
                  {c.end?.retries ? <RetriesNote retries={c.end.retries} /> : null}
                </td>
                <td title={c.end && usageUnknown(c.end.usage) ? 'This call has no token usage recorded' : undefined}>
                  {c.end ? (usageUnknown(c.end.usage) ? '—' : fmtInt(c.end.usage.inputTokens + c.end.usage.outputTokens)) : ''}
                </td>
                <td>
                  {c.end && !reader ? (
                    <button
                      type="button"
                      className="link"
                      aria-expanded={whatIf === cid}
                      title="Re-run this call with an edited prompt or model, then fork with the new answer"
                      onClick={() => setWhatIf(whatIf === cid ? null : cid)}
                      data-testid="counterfactual-open"
                    >
                      what if…
                    </button>
                  ) : null}{' '}
                  {child && traj.runs.has(child) ? (
                    <button
                      type="button"
                      className="link"
                      onClick={() => svc.store.getState().select(sessionId, { runId: child, iteration: null })}
                      data-testid="open-child"
                    >
                      open child run →
                    </button>
                  ) : null}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {b.calls.length > 500 ? <div>… {b.calls.length - 500} more</div> : null}
      {whatIf ? (
        <CounterfactualPanel key={whatIf} sessionId={sessionId} traj={traj} callId={whatIf} onClose={() => setWhatIf(null)} />
      ) : null}
    </div>
  );
}
