// A run's header: status, model, totals and usage by model, what it ran with (sampling, worked
// examples, prompt pack), its answer, and the what-if panel of its sub-calls.
import { useState } from 'react';
import { sandboxLayersText } from '../../../src-shared/events.ts';
import type { EvalOverview, EvalTaskRow, PauseInfo } from '../../../src-shared/protocol.ts';
import { isDirectCall, iterationCount, type RunNode, type TrajectoryState } from '../../../src-shared/trajectory/index.ts';
import { useServices, useStudio } from '../../app/context.tsx';
import { useSharedReader } from '../../app/shared-reader.tsx';
import { fmtCost, fmtMs, fmtTokenPair, usageNote } from '../../lib/format.ts';
import { RunDerivations, runStatus } from '../../lib/run-derivations.ts';
import { REPL_LABEL, type ReplLanguage } from '../../lib/repl-language.ts';
import { useTrajectoryMemo } from '../../lib/use-trajectory-memo.ts';
import { viewDerivations } from '../../store/studio.ts';
import { CounterfactualPanel } from '../CounterfactualPanel.tsx';
import { RetriesNote } from '../RetriesNote.tsx';
import { TextBlock } from '../TextBlock.tsx';
import { UsageByModelTable } from '../UsageByModelTable.tsx';
import { RunAnswer } from './RunAnswer.tsx';
import { SamplingLine } from './SamplingLine.tsx';
import { WorkedExamplesLine } from './WorkedExamplesLine.tsx';

export function RunHeader({
  traj,
  run,
  pause,
  sessionId,
  language,
}: {
  traj: TrajectoryState;
  run: RunNode;
  pause: PauseInfo | null;
  sessionId: string;
  language: ReplLanguage;
}) {
  const svc = useServices();
  const derived = useStudio((s) => viewDerivations(s, sessionId));
  const totals = useTrajectoryMemo(
    traj,
    traj.revision,
    (t) => (derived?.state === t ? derived : new RunDerivations(t)).inclusiveTotals(run.id),
    [derived, run],
  );
  const status = runStatus(run, pause);
  const graded = useStudio((s) => evalTaskOf(s.evals, sessionId));
  const parent = run.parentRunId;
  const direct = run.iterations.some(isDirectCall);
  const iterations = iterationCount(run);
  const [whatIf, setWhatIf] = useState(false);
  const reader = useSharedReader();
  const spawnCall = reader ? null : (run.spawnedBy?.callId ?? null);
  return (
    <section className="run-header" aria-label="Run">
      <div className="run-title">
        <span className={`badge status-${status}`} data-testid="run-status">
          {status}
        </span>
        <h2>
          Run <code>{run.id}</code> · depth {run.depth}
          {traj.roots.length > 1 ? ` · turn ${run.turn}` : ''}
        </h2>
        {direct ? (
          <span
            className="badge repl"
            data-testid="run-repl"
            title="maxDepth 0: the context and query went to the model in one plain call, without a REPL"
          >
            direct call, no REPL
          </span>
        ) : (
          <span
            className={`badge repl repl-${language}`}
            data-testid="run-repl"
            title={`The code of this run runs in a ${REPL_LABEL[language]} REPL`}
          >
            {REPL_LABEL[language]} REPL
          </span>
        )}
        {run.start?.sandbox && !direct ? (
          <span
            className="badge sandbox"
            data-testid="run-sandbox"
            title="What stood between this run's code and the machine, innermost first (recorded when the run started)"
          >
            {sandboxLayersText(run.start.sandbox)}
          </span>
        ) : null}
        {parent ? (
          <button
            type="button"
            className="link"
            onClick={() => svc.store.getState().select(sessionId, { runId: parent, iteration: run.spawnedBy?.iteration ?? null })}
          >
            ↑ parent run
          </button>
        ) : null}
        {spawnCall && traj.calls.get(spawnCall)?.end ? (
          <button
            type="button"
            className="link"
            aria-expanded={whatIf}
            title="Re-run this child with an edited prompt or model, then fork the parent with its new answer"
            onClick={() => setWhatIf((w) => !w)}
            data-testid="counterfactual-child"
          >
            what if this child had been asked differently…
          </button>
        ) : null}
      </div>
      {whatIf && spawnCall ? (
        <CounterfactualPanel sessionId={sessionId} traj={traj} callId={spawnCall} onClose={() => setWhatIf(false)} />
      ) : null}
      <div className="run-meta">
        model {run.start?.model ?? '?'} · {iterations} iterations{direct ? ' · 1 direct call' : ''} · {totals.runs} runs · {totals.llmCalls}{' '}
        llm / {totals.rlmCalls} rlm calls ·{' '}
        <span title={usageNote(totals)} data-testid="run-usage">
          {fmtTokenPair(totals, { unit: ' tokens' })} · {fmtCost(totals)}
        </span>{' '}
        · {fmtMs(run.end?.durationMs ?? run.lastT - run.firstT)}
        {totals.retries > 0 ? <RetriesNote retries={totals.retries} testId="run-retries-total" /> : null}
        {run.end ? ` · stop: ${run.end.stopReason}` : ''}
      </div>
      <UsageByModelTable byModel={totals.byModel} testId="run-by-model" />
      {run.start?.sampling ? <SamplingLine sampling={run.start.sampling} /> : null}
      {run.start?.prompts ? (
        <div
          className="run-meta"
          data-testid="run-prompts"
          title={`prompt pack ${run.start.prompts.name}, sha256 ${run.start.prompts.hash}…`}
        >
          prompts: {run.start.prompts.name} ({run.start.prompts.hash.slice(0, 8)})
        </div>
      ) : null}
      {run.start?.examples && run.start.examples.length > 0 ? <WorkedExamplesLine examples={run.start.examples} /> : null}
      {run.start?.query ? (
        <details className="run-query">
          <summary>query</summary>
          <TextBlock text={run.start.query} />
        </details>
      ) : null}
      {run.end?.answer !== undefined && run.end?.answer !== null ? (
        <RunAnswer answer={run.end.answer} stop={run.end.stopReason} graded={run.parentRunId === null ? graded : null} />
      ) : null}
      {run.end?.message ? <div className="warn">{run.end.message}</div> : null}
      {run.limits.map((l) => (
        <div key={l.seq} className="warn">
          limit {l.limit}: {l.message}
        </div>
      ))}
    </section>
  );
}

/** The evaluation task whose log this session is, if one of the evaluations open says so. */
function evalTaskOf(evals: ReadonlyMap<string, EvalOverview>, sessionId: string): EvalTaskRow | null {
  for (const e of evals.values()) for (const t of e.tasks) if (t.sessionId === sessionId) return t;
  return null;
}
