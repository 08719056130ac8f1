// Search ▸ Query: a tree query (JSONata over each session's document, docs/queries.md) run by
// the host over this session's log, its folder or an open evaluation; each match opens its
// session at the run and iteration that matched.
import { useMemo, useState } from 'react';
import type { QueryResult } from '../../src-shared/protocol.ts';
import { openMatch, runTreeQuery } from '../app/label-services.ts';
import { useServices, useStudio } from '../app/context.tsx';
import { HitList } from './HitList.tsx';
import { querySummary } from '../../src-shared/analysis/query-summary.ts';

const EXAMPLE = 'runs[depth = 2 and stopReason = "max_iterations"]';

function folderOf(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i <= 0 ? path : path.slice(0, i);
}

function baseName(path: string): string {
  return path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
}

export function QuerySearch({ sessionId }: { sessionId: string }) {
  const svc = useServices();
  const logFile = useStudio((s) => {
    const e = s.sessions.get(sessionId);
    return e?.source === 'host' ? (e.summary?.logFile ?? null) : null;
  });
  const evals = useStudio((s) => s.evals);
  const scopes = useMemo(() => {
    const out: { id: string; name: string; paths: string[] }[] = [];
    if (logFile) {
      out.push({ id: 'log', name: `this log (${baseName(logFile)})`, paths: [logFile] });
      out.push({ id: 'folder', name: `its folder (${folderOf(logFile)})`, paths: [folderOf(logFile)] });
    }
    for (const e of evals.values()) out.push({ id: `eval:${e.dir}`, name: `evaluation ${e.name}`, paths: [e.dir] });
    return out;
  }, [logFile, evals]);
  const [expr, setExpr] = useState(EXAMPLE);
  const [scopeId, setScopeId] = useState('folder');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<QueryResult | null>(null);
  const scope = scopes.find((s) => s.id === scopeId) ?? scopes[0];
  const matches = result?.matches ?? [];

  if (!scope) {
    return (
      <div className="muted" data-testid="query-unavailable">
        Queries run on the host over log files: open a log with `rlm-studio view LOG`, or an evaluation, to query it.
      </div>
    );
  }
  const run = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      setResult(await runTreeQuery(svc, expr, scope.paths));
    } catch (err) {
      setResult(null);
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="query-search">
      <form
        className="query-form"
        onSubmit={(e) => {
          e.preventDefault();
          void run();
        }}
      >
        <textarea
          aria-label="Query expression"
          data-testid="query-input"
          rows={2}
          spellCheck={false}
          value={expr}
          onChange={(e) => setExpr(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              void run();
            }
          }}
        />
        <select aria-label="Query scope" value={scope.id} onChange={(e) => setScopeId(e.target.value)}>
          {scopes.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </select>
        <button type="submit" disabled={busy || expr.trim() === ''} data-testid="query-run">
          {busy ? 'Running…' : 'Run query'}
        </button>
      </form>
      {error !== null ? (
        <pre className="query-error" role="alert" data-testid="query-error">
          {error}
        </pre>
      ) : null}
      <div className="muted" data-testid="query-summary">
        {result ? querySummary(result) : 'JSONata over each session: runs, calls, labels… (docs/queries.md)'}
      </div>
      <HitList
        items={matches}
        testId="query-hit"
        where={(m) => `${baseName(m.file)} · ${m.target}`}
        text={(m) => m.what}
        onOpen={(m) => void openMatch(svc, m.file, m.at)}
      />
    </div>
  );
}
