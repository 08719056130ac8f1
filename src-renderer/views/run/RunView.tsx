// One run: its header, its iterations as a timeline, and the selected iteration in full.
import { memo, useCallback, useEffect, useRef, useState } from 'react';
import { useStudio } from '../../app/context.tsx';
import { useSharedReader } from '../../app/shared-reader.tsx';
import { runLanguage, sessionLanguage } from '../../lib/repl-language.ts';
import { pauseOf, viewRev, viewTraj } from '../../store/studio.ts';
import { FollowUpForm } from '../FollowUpForm.tsx';
import { LabelsBox } from '../LabelsBox.tsx';
import { NoRuns } from '../NoRuns.tsx';
import { RerunBanner } from '../RerunView.tsx';
import { RunPolicy } from '../RunPolicy.tsx';
import { TurnsBar } from '../TurnsBar.tsx';
import { IterationDetail } from './IterationDetail.tsx';
import { IterationTimeline } from './IterationTimeline.tsx';
import { RunHeader } from './RunHeader.tsx';

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
