// Search across a session's prompts, replies, code and output; jump to a match. The Query
// mode runs tree queries on the host (QuerySearch).
import { useDeferredValue, useEffect, useState } from 'react';
import { useServices, useStudio } from '../app/context.tsx';
import { useSharedReader } from '../app/shared-reader.tsx';
import { matchSummary, searchSession } from '../lib/session-search.ts';
import { viewRev, viewTraj } from '../store/studio.ts';
import { HitList } from './HitList.tsx';
import { QuerySearch } from './QuerySearch.tsx';
import { useTrajectoryMemo } from '../lib/use-trajectory-memo.ts';

export function SearchView({ sessionId, query, setQuery }: { sessionId: string; query: string; setQuery(q: string): void }) {
  const [mode, setMode] = useState<'text' | 'query'>('text');
  // Tree queries run on a host, which a shared trajectory's reader does not have.
  const reader = useSharedReader();
  if (reader)
    return (
      <div className="search-view">
        <TextSearch sessionId={sessionId} query={query} setQuery={setQuery} />
      </div>
    );
  return (
    <div className="search-view">
      <div className="search-modes" role="group" aria-label="Search mode">
        <button type="button" aria-pressed={mode === 'text'} onClick={() => setMode('text')}>
          Text
        </button>
        <button type="button" aria-pressed={mode === 'query'} onClick={() => setMode('query')} data-testid="query-mode">
          Query
        </button>
      </div>
      {mode === 'text' ? <TextSearch sessionId={sessionId} query={query} setQuery={setQuery} /> : <QuerySearch sessionId={sessionId} />}
    </div>
  );
}

function TextSearch({ sessionId, query, setQuery }: { sessionId: string; query: string; setQuery(q: string): void }) {
  const svc = useServices();
  const rev = useStudio((s) => viewRev(s, sessionId));
  const traj = useStudio((s) => viewTraj(s, sessionId));
  const q = useDeferredValue(query);
  // Prompts left out of a big log's first read are read back before they can match.
  const textsRev = useStudio((s) => s.sessions.get(sessionId)?.textsRev ?? 0);
  const leftOut = useStudio((s) => (s.sessions.get(sessionId)?.elided.size ?? 0) > 0);
  useEffect(() => {
    if (!leftOut) return;
    void svc.texts.allTexts(sessionId);
    // A log still loading leaves out texts of events yet to come: those are read back once it is all in.
    void svc.whenLoaded(sessionId).then(() => svc.texts.allTexts(sessionId));
  }, [svc, sessionId, leftOut]);
  const hits = useTrajectoryMemo(traj, rev, (t) => (t ? searchSession(t, q) : []), [textsRev, q]);
  return (
    <>
      <input
        id="global-search"
        type="search"
        autoFocus
        placeholder="Search prompts, replies, code, output…"
        aria-label="Search the session"
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        data-testid="search-input"
      />
      <div className="muted">
        {q.length < 2 ? 'Type at least 2 characters.' : matchSummary(hits)}
        {leftOut ? ' · reading the full prompts…' : ''}
      </div>
      <HitList
        items={hits}
        testId="search-hit"
        where={(h) => `${h.runId}${h.iteration !== null ? ` #${h.iteration}` : ''} · ${h.field}${h.count > 1 ? ` · ${h.count}×` : ''}`}
        text={(h) => h.snippet}
        onOpen={(h) => {
          const st = svc.store.getState();
          st.select(sessionId, { runId: h.runId, iteration: h.iteration });
          st.setPanel('run');
        }}
      />
    </>
  );
}
