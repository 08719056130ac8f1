// What the run view shows before a session has a run: a log that could not be read says why
// (its problems were otherwise folded away in the side panel under an empty "waiting" view).
import { useStudio } from '../app/context.tsx';
import { ProblemList } from './ProblemList.tsx';

export function NoRuns({ sessionId }: { sessionId: string }) {
  const entry = useStudio((s) => s.sessions.get(sessionId));
  const eventCount = useStudio((s) => s.sessions.get(sessionId)?.traj.eventCount ?? 0);
  if (entry && eventCount === 0 && !entry.loading && entry.problems.length > 0)
    return (
      <div className="empty unreadable" role="alert" data-testid="unreadable-log">
        <p>
          Nothing could be read from <strong>{entry.title}</strong>:
        </p>
        <ProblemList problems={entry.problems} />
      </div>
    );
  return <div className="empty">No runs yet{entry && eventCount === 0 ? ' (waiting for events)' : ''}.</div>;
}
