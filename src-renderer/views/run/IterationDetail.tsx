// One iteration in full: the prompt messages, the model's reply, the code blocks and the pause.
import { useEffect, useState } from 'react';
import type { PauseInfo } from '../../../src-shared/protocol.ts';
import {
  blocksOf,
  isDirectCall,
  iterationTotals,
  type IterationNode,
  type RunNode,
  type TrajectoryState,
} from '../../../src-shared/trajectory/index.ts';
import { useServices, useStudio } from '../../app/context.tsx';
import { useSharedReader } from '../../app/shared-reader.tsx';
import { fmtCost, fmtInt, fmtMs, fmtTokenPair, usageNote } from '../../lib/format.ts';
import { type ReplLanguage } from '../../lib/repl-language.ts';
import { hostIdOf } from '../../store/studio.ts';
import { contextNeedOf, mayHaveRecipe } from '../ContextFields.tsx';
import { ForkForm, type ForkTarget } from '../ForkForm.tsx';
import { LiveReplyView } from '../LiveReplyView.tsx';
import { cachedShareText, CutNote, ReasoningBox } from '../ReplyNotes.tsx';
import { RetriesNote } from '../RetriesNote.tsx';
import { STILL_LOADING } from '../still-loading.ts';
import { TextBlock } from '../TextBlock.tsx';
import { BlockView } from './BlockView.tsx';
import { MessageList } from './MessageList.tsx';
import { PausedEditor } from './PausedEditor.tsx';

export function IterationDetail({
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
