// One run: its header, its iterations as a timeline, and the selected iteration in full.
import { LabelsBox } from './LabelsBox.tsx';
import { TurnsBar } from './TurnsBar.tsx';
import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { CallId, ChatMessage, RequestFields, RunId, StopReason, WorkedExampleRef } from '../../src-shared/events.ts';
import { sandboxLayersText } from '../../src-shared/events.ts';
import type { EvalOverview, EvalTaskRow, PauseInfo } from '../../src-shared/protocol.ts';
import {
  blocksOf,
  isDirectCall,
  iterationCount,
  iterationTotals,
  type BlockNode,
  type IterationNode,
  type RunNode,
  type TrajectoryState,
  usageUnknown,
} from '../../src-shared/trajectory/index.ts';
import { RetriesNote } from './RetriesNote.tsx';
import { CutNote, ReasoningBox, cachedShareText } from './ReplyNotes.tsx';
import { LiveReplyView } from './LiveReplyView.tsx';
import { UsageByModelTable } from './UsageByModelTable.tsx';
import { useCoverage, usePausedDrafts, useServices, useStudio } from '../app/context.tsx';
import {
  blockOutputText,
  fmtCost,
  fmtInt,
  fmtMs,
  fmtTokenPair,
  RunDerivations,
  runStatus,
  truncationOf,
  usageNote,
} from '../lib/derive.ts';
import { CodeView } from '../monaco/CodeView.tsx';
import { REPL_LABEL, runLanguage, sessionLanguage, type ReplLanguage } from '../lib/repl-language.ts';
import { draftOf, pendingEdits } from '../store/paused-drafts.ts';
import { hostIdOf, pauseOf, viewDerivations, viewRev, viewTraj } from '../store/studio.ts';
import { contextNeedOf, mayHaveRecipe } from './ContextFields.tsx';
import { FollowUpForm } from './FollowUpForm.tsx';
import { ForkForm, type ForkTarget } from './ForkForm.tsx';
import { NoRuns } from './NoRuns.tsx';
import { BlockRerunView, RerunBanner } from './RerunView.tsx';
import { CounterfactualPanel } from './CounterfactualPanel.tsx';
import { TextBlock } from './TextBlock.tsx';
import { RunPolicy } from './RunPolicy.tsx';
import { STILL_LOADING } from './still-loading.ts';
import { useSharedReader } from '../app/shared-reader.tsx';

// memo: this view reads its own slices; App re-renders only when the panel, the active session or a title changes.
export const RunView = memo(function RunView({ sessionId }: { sessionId: string }) {
  const rev = useStudio((s) => viewRev(s, sessionId));
  const traj = useStudio((s) => viewTraj(s, sessionId));
  const sel = useStudio((s) => s.selection.get(sessionId));
  const pause = useStudio((s) => pauseOf(s, sessionId));
  const sessionLang = useStudio((s) => sessionLanguage(s.sessions.get(sessionId)));
  // A shared trajectory's reader has no log to label and no REPL to continue in.
  const reader = useSharedReader();
  const viewRef = useRef<HTMLDivElement>(null);
  // A person picked an iteration (a chip, a turn): once it is drawn, its code is brought into
  // view, which otherwise sits below the header and the prompts. Live updates do not scroll.
  const [picks, setPicks] = useState(0);
  const reveal = useCallback(() => setPicks((n) => n + 1), []);
  useEffect(() => {
    if (picks === 0) return;
    const detail = viewRef.current?.querySelector('[data-testid="iteration-detail"]');
    (detail?.querySelector('.block') ?? detail)?.scrollIntoView({ block: 'start' });
  }, [picks]);
  const runId = sel?.runId ?? traj?.roots[0] ?? null;
  const run = runId && traj ? traj.runs.get(runId) : undefined;
  if (!traj || !run) return <NoRuns sessionId={sessionId} />;
  const language = runLanguage(run.start, sessionLang);
  const its = run.iterations;
  const iteration = sel?.iteration ?? its[its.length - 1]?.iteration ?? null;
  const it = its.find((x) => x.iteration === iteration) ?? null;
  return (
    <div className="run-view" data-rev={rev} ref={viewRef}>
      <RerunBanner sessionId={sessionId} traj={traj} rev={rev} />
      {traj.roots.length > 1 ? <TurnsBar sessionId={sessionId} traj={traj} current={run.rootRunId} onPick={reveal} /> : null}
      <RunHeader traj={traj} run={run} pause={pause} sessionId={sessionId} language={language} />
      <RunPolicy sessionId={sessionId} traj={traj} run={run} rev={rev} />
      {reader ? null : <LabelsBox sessionId={sessionId} traj={traj} run={run} it={it} />}
      {run.parentRunId === null && !reader ? <FollowUpForm sessionId={sessionId} /> : null}
      <IterationTimeline sessionId={sessionId} run={run} selected={iteration} onPick={reveal} />
      {it ? (
        <IterationDetail
          key={`${run.id}:${it.iteration}`}
          sessionId={sessionId}
          traj={traj}
          run={run}
          it={it}
          pause={pause}
          language={language}
        />
      ) : (
        <div className="empty">No iterations yet.</div>
      )}
    </div>
  );
});

function RunHeader({
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
  const totals = useMemo(
    () => (derived?.state === traj ? derived : new RunDerivations(traj)).inclusiveTotals(run.id),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the trajectory is mutated in place; its revision says it changed
    [derived, traj, run, traj.revision],
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
        {spawnCall && traj.calls.get(spawnCall as CallId)?.end ? (
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

/**
 * The run's answer, marked when a limit or an error stopped the run (then it is what the
 * model said when made to stop), and with its score when an evaluation graded it: an answer
 * the run gave in good order can still be wrong.
 */
function RunAnswer({ answer, stop, graded }: { answer: string; stop: StopReason; graded: EvalTaskRow | null }) {
  const stopped = stop !== 'answered';
  const wrong = graded !== null && !graded.correct;
  const grade =
    graded === null
      ? ''
      : ` · ${graded.correct ? 'correct' : graded.score > 0 ? 'partly correct' : 'wrong'}: score ${graded.score.toFixed(3)} (evaluation task ${graded.id})`;
  return (
    <div className={`answer${stopped || wrong ? ' answer-stopped' : ''}`} data-testid="run-answer" data-stop={stop}>
      <b>
        {stopped ? `Answer (stopped: ${stop.replace(/_/g, ' ')})` : 'Answer'}
        {grade}
      </b>
      <TextBlock text={answer} />
    </div>
  );
}

/** What the run's requests carried besides model and messages (temperature, seed…), by the endpoint's names. */
function SamplingLine({ sampling }: { sampling: RequestFields }) {
  const fields = (f: Record<string, unknown>): string =>
    Object.entries(f)
      .map(([k, v]) => `${k} ${typeof v === 'string' ? v : JSON.stringify(v)}`)
      .join(' · ') || 'endpoint defaults';
  return (
    <div className="run-meta" data-testid="run-sampling">
      requests: {fields(sampling.turns)}
      {sampling.subcalls ? `; sub-calls: ${fields(sampling.subcalls)}` : ''}
    </div>
  );
}

/**
 * The saved logs this run was shown as worked examples. With a host each opens in the app (the
 * path is the host's); without one (a bundle, a file opened in the browser) the path can be copied.
 */
function WorkedExamplesLine({ examples }: { examples: WorkedExampleRef[] }) {
  const svc = useServices();
  const [copied, setCopied] = useState<string | null>(null);
  return (
    <div className="run-examples" data-testid="run-examples">
      worked examples:
      {examples.map((e, i) => (
        <span
          key={i}
          className="run-example"
          title={`${fmtInt(e.chars)} characters of the system prompt${e.repl ? `, ${REPL_LABEL[e.repl]} code` : ''}`}
        >
          {' '}
          {svc.host ? (
            <button type="button" className="link" onClick={() => void svc.openPath(e.source)} data-testid={`run-example-open-${i}`}>
              {e.source}
            </button>
          ) : (
            <>
              <code>{e.source}</code>{' '}
              <button
                type="button"
                onClick={() =>
                  void navigator.clipboard?.writeText(e.source).then(
                    () => setCopied(e.source),
                    () => setCopied(null),
                  )
                }
                aria-label={`Copy the path ${e.source}`}
                data-testid={`run-example-copy-${i}`}
              >
                {copied === e.source ? 'copied' : 'copy path'}
              </button>
            </>
          )}
          <span className="muted"> ({fmtInt(e.chars)} chars)</span>
        </span>
      ))}
    </div>
  );
}

/** What an iteration's chip says: short with glyphs on the chip, spelt out in its title. */
function chipText(it: IterationNode): { meta: string; title: string; errors: number; rerunDiffers: boolean } {
  const blocks = blocksOf(it);
  const errors = blocks.filter((b) => b.end?.error).length;
  const rerunDiffers = blocks.some((b) => b.end?.rerun && !b.end.rerun.same);
  const calls = blocks.reduce((n, b) => n + b.calls.length, 0);
  const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;
  const meta = [`${fmtMs(it.lastT - it.firstT)}`, `${blocks.length}▢`];
  const words = [fmtMs(it.lastT - it.firstT), plural(blocks.length, 'code block')];
  if (calls) {
    meta.push(`${calls}↘`);
    words.push(plural(calls, 'sub-call'));
  }
  if (errors) {
    meta.push('⚠');
    words.push(errors === 1 ? 'error' : `${errors} errors`);
  }
  if (it.compaction) {
    meta.push('⇲');
    words.push('history compacted');
  }
  if (rerunDiffers) {
    meta.push('≠');
    words.push('re-run output differs');
  }
  if (it.end?.finalAnswer != null) words.push('final answer');
  return { meta: meta.join(' · '), title: words.join(' · '), errors, rerunDiffers };
}

/** Pixels a chip is expected to take before it is measured (11 px text, about 6.5 px a character, plus padding). */
function chipEstimate(it: IterationNode | undefined): number {
  return it ? Math.max(60, Math.ceil(chipText(it).meta.length * 6.5) + 18) : 92;
}

function IterationTimeline({
  sessionId,
  run,
  selected,
  onPick,
}: {
  sessionId: string;
  run: RunNode;
  selected: number | null;
  onPick(): void;
}) {
  const svc = useServices();
  const ref = useRef<HTMLDivElement>(null);
  const its = run.iterations;
  const maxMs = Math.max(1, ...its.map((i) => i.lastT - i.firstT));
  // Chips are as wide as their text (measured once drawn), so a long line of glyphs is never cut.
  const virt = useVirtualizer({
    horizontal: true,
    count: its.length,
    getScrollElement: () => ref.current,
    estimateSize: (i) => chipEstimate(its[i]),
    gap: 4,
    overscan: 8,
  });
  const selIndex = its.findIndex((i) => i.iteration === selected);
  useEffect(() => {
    if (selIndex >= 0) virt.scrollToIndex(selIndex, { align: 'auto' });
  }, [virt, selIndex]);
  return (
    <div className="timeline" ref={ref} role="listbox" aria-label="Iterations" aria-orientation="horizontal">
      <div style={{ width: virt.getTotalSize(), height: '100%', position: 'relative' }}>
        {virt.getVirtualItems().map((vi) => {
          const it = its[vi.index] as IterationNode;
          const { meta, title, errors, rerunDiffers } = chipText(it);
          const ms = it.lastT - it.firstT;
          return (
            <button
              type="button"
              role="option"
              aria-selected={it.iteration === selected}
              key={it.iteration}
              ref={virt.measureElement}
              data-index={vi.index}
              title={title}
              className={`it-chip${it.iteration === selected ? ' selected' : ''}${errors ? ' has-error' : ''}${it.end?.finalAnswer != null ? ' final' : ''}${rerunDiffers ? ' rerun-differs' : ''}`}
              style={{ position: 'absolute', left: vi.start }}
              onClick={() => {
                svc.store.getState().select(sessionId, { runId: run.id, iteration: it.iteration });
                onPick();
              }}
              data-testid={`iteration-${it.iteration}`}
            >
              <span className="it-n">{isDirectCall(it) ? 'direct' : `#${it.iteration}`}</span>
              <span className="it-bar" style={{ width: `${Math.max(4, (ms / maxMs) * 100)}%` }} />
              <span className="it-meta">{meta}</span>
            </button>
          );
        })}
      </div>
    </div>
  );
}

function MessageList({ messages, label }: { messages: ChatMessage[]; label: string }) {
  if (messages.length === 0) return null;
  return (
    <div className="messages" aria-label={label}>
      {messages.map((m, i) => (
        <div key={i} className={`msg role-${m.role}`}>
          <div className="msg-role">{m.role}</div>
          <TextBlock text={m.content} />
        </div>
      ))}
    </div>
  );
}

function IterationDetail({
  sessionId,
  traj,
  run,
  it,
  pause,
  language,
}: {
  sessionId: string;
  traj: TrajectoryState;
  run: RunNode;
  it: IterationNode;
  pause: PauseInfo | null;
  language: ReplLanguage;
}) {
  const svc = useServices();
  const totals = iterationTotals(traj, it);
  const first = run.iterations[0] === it;
  const direct = isDirectCall(it);
  const pausedHere =
    pause && pause.runId === run.id && pause.iteration === it.iteration && pause.reply !== null && pause.kind !== 'before_model_call';
  const blocks = blocksOf(it);
  const entry = useStudio((s) => s.sessions.get(sessionId));
  // A direct call has no turn to replay up to: there is nothing to fork from.
  const connected = useStudio((s) => s.connection === 'open');
  // A dropped file goes to the host whole before a fork: not while it is still loading.
  const loadingHere = !!entry && entry.loading !== null && hostIdOf(entry) === null;
  const canFork = connected && !!entry && !direct && !loadingHere;
  const reader = useSharedReader();
  // A big log's long prompts were left out when it was read: read back this iteration's.
  // (`blocks` is new at every render: the effect keys on the iteration, and does nothing
  // for sessions with nothing left out, such as every live one.)
  const leftOutAny = (entry?.elided.size ?? 0) > 0;
  useEffect(() => {
    if (!leftOutAny) return;
    const calls = blocksOf(it).flatMap((b) => b.calls.slice(0, 500).map((cid) => traj.calls.get(cid)?.start));
    void svc.texts.fullTexts(sessionId, [first ? run.start : null, it.start, it.end, ...calls]);
  }, [svc, sessionId, traj, run, it, first, leftOutAny]);
  const leftOut = entry ? [first ? run.start : null, it.start].some((e) => e && entry.elided.has(e)) : false;
  const [forking, setForking] = useState(false);
  const forkTarget: ForkTarget = {
    sessionId,
    runId: run.id,
    depth: run.depth,
    iteration: it.iteration,
    reply: it.reply && it.reply.purpose === 'turn' ? it.reply.text : null,
    context: contextNeedOf(entry),
    asRecorded: mayHaveRecipe(entry),
  };
  return (
    <section className="iteration" aria-label={direct ? 'Direct call' : `Iteration ${it.iteration}`} data-testid="iteration-detail">
      <div className="it-head">
        <h3>{direct ? 'Direct call (maxDepth 0: the whole context and query in one call, no REPL)' : `Iteration ${it.iteration}`}</h3>
        <span title={usageNote(totals)} data-testid="iteration-usage">
          {fmtMs(it.lastT - it.firstT)} · {fmtTokenPair(totals)} · {fmtCost(totals)}
          {it.start ? ` · history ${it.start.historyLength} msgs ≈ ${fmtInt(it.start.historyTokens)} tok` : ''}
        </span>
        {reader ? null : (
          <button
            type="button"
            disabled={!canFork}
            title={
              canFork
                ? 'Start a new session that replays up to here, then goes live'
                : direct
                  ? 'A direct call has no turns to fork from'
                  : loadingHere
                    ? STILL_LOADING
                    : 'Fork needs the host (rlm-studio serve)'
            }
            aria-expanded={forking}
            onClick={() => setForking((f) => !f)}
            data-testid="fork"
          >
            Fork from here…
          </button>
        )}
      </div>
      {forking ? <ForkForm target={forkTarget} onDone={() => setForking(false)} /> : null}
      {it.compaction ? (
        <div className="compaction">
          History compacted ({fmtInt(it.compaction.tokensBefore)} tokens before, #{it.compaction.count}).
          <TextBlock text={it.compaction.summary} />
        </div>
      ) : null}
      <details data-testid="prompt-messages">
        <summary>
          Prompt messages (
          {(first ? (run.start?.messages.length ?? 0) : 0) + (it.start?.appended.length ?? 0) + (it.reply?.transient?.length ?? 0)})
          {leftOut ? <span data-testid="texts-loading"> · reading the full texts…</span> : null}
        </summary>
        {first && run.start ? <MessageList messages={run.start.messages} label="Initial messages" /> : null}
        {it.start ? <MessageList messages={it.start.appended} label="Appended before the call" /> : null}
        {it.reply?.transient ? (
          <MessageList messages={it.reply.transient} label="Sent with this call only (not kept in the history)" />
        ) : null}
      </details>
      {it.modelErrors.map((e) => (
        <div key={e.seq} className="error">
          model error: {e.message}
        </div>
      ))}
      {it.reply ? (
        <div className="reply">
          <h4>
            Model reply{' '}
            <small>
              ({it.reply.model} · {fmtMs(it.reply.latencyMs)}
              {it.reply.retries ? <RetriesNote retries={it.reply.retries} /> : null}
              {cachedShareText(it.reply.usage)}
              {it.reply.purpose !== 'turn' ? ` · ${it.reply.purpose}` : ''})
            </small>{' '}
            <CutNote finishReason={it.reply.finishReason} />
          </h4>
          {it.reply.reasoning ? <ReasoningBox reasoning={it.reply.reasoning} /> : null}
          <TextBlock text={it.reply.text} testId="reply-text" />
        </div>
      ) : (
        <LiveReplyView sessionId={sessionId} runId={run.id} iteration={it.iteration} />
      )}
      {pausedHere && pause.reply ? (
        <PausedEditor
          sessionId={entry ? (hostIdOf(entry) ?? sessionId) : sessionId}
          runId={pause.runId}
          iteration={pause.iteration}
          blocks={pause.reply.blocks}
          language={language}
        />
      ) : null}
      {blocks.map((b) => (
        <BlockView key={b.block} sessionId={sessionId} traj={traj} b={b} language={language} />
      ))}
      {it.end?.finalAnswer != null ? (
        <div className="answer">
          <b>Final answer</b>
          <TextBlock text={it.end.finalAnswer} />
        </div>
      ) : null}
    </section>
  );
}

function PausedEditor({
  sessionId,
  runId,
  iteration,
  blocks,
  language,
}: {
  sessionId: string;
  runId: string;
  iteration: number;
  blocks: string[];
  language: ReplLanguage;
}) {
  const svc = useServices();
  const at = { runId, iteration, blocks };
  const edits = usePausedDrafts((s) => draftOf(s, sessionId, at)) ?? blocks;
  const changed = edits.some((e, i) => e !== blocks[i]);
  return (
    <div className="paused-edit" data-testid="paused-editor">
      <h4>Paused after the reply: edit the code, then run it</h4>
      {edits.map((code, i) => (
        <CodeView
          key={i}
          value={code}
          language={language}
          readOnly={false}
          onChange={(v) => svc.store.drafts.getState().edit(sessionId, at, i, v)}
          testId={`edit-block-${i}`}
          ariaLabel={`Editable code block ${i + 1}`}
        />
      ))}
      <button
        type="button"
        className="primary"
        data-testid="run-edited"
        onClick={() => void svc.editAndContinue(sessionId, pendingEdits(svc.store.drafts.getState(), sessionId, at) ?? {})}
      >
        {changed ? 'Run edited code' : 'Run as is'}
      </button>
    </div>
  );
}

function BlockView({ sessionId, traj, b, language }: { sessionId: string; traj: TrajectoryState; b: BlockNode; language: ReplLanguage }) {
  const out = b.end ? blockOutputText(b.end) : '';
  const cut = truncationOf(out);
  return (
    <div className="block" data-testid={`block-${b.block}`}>
      <h4>
        Code block {b.block + 1}
        {b.start?.edited ? <span className="badge">edited by hand</span> : null}
        {b.end ? (
          <small>
            {' '}
            · {fmtMs(b.end.durationMs)} (cpu {fmtMs(b.end.cpuMs)})
          </small>
        ) : (
          <small> · running…</small>
        )}
      </h4>
      {b.start ? (
        <CodeView value={b.start.code} language={language} readOnly testId={`code-${b.block}`} ariaLabel={`Code block ${b.block + 1}`} />
      ) : null}
      {b.end ? (
        <>
          <div className="out-head">
            Output{b.end.error ? <span className="error-name"> · {b.end.error.name}</span> : null}
            {cut ? (
              <span className="cut-note" data-testid="cut-note">
                {' '}
                · the model saw the first {cut.cutAt.toLocaleString('en-US')} of {cut.total.toLocaleString('en-US')} characters (the rest is
                shaded)
              </span>
            ) : null}
          </div>
          <CodeView
            value={out || '(no output)'}
            language="plaintext"
            readOnly
            cutAt={cut?.cutAt ?? null}
            testId={`output-${b.block}`}
            ariaLabel={`Output of block ${b.block + 1}`}
            maxLines={20}
          />
          {b.end.variables.length > 0 ? <div className="vars-line">variables: {b.end.variables.join(', ')}</div> : null}
          {b.end.submitted !== null ? <div className="vars-line">submitted the answer</div> : null}
          {b.end.rerun ? <BlockRerunView block={b.block} rerun={b.end.rerun} /> : null}
          {b.replReset ? <div className="warn">REPL replaced ({b.replReset.reason}); its state was lost</div> : null}
        </>
      ) : null}
      {b.calls.length > 0 ? <SubcallList sessionId={sessionId} traj={traj} b={b} /> : null}
    </div>
  );
}

function SubcallList({ sessionId, traj, b }: { sessionId: string; traj: TrajectoryState; b: BlockNode }) {
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
