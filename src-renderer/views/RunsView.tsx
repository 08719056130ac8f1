// The runs browser: every session log and evaluation folder of the host's runs folder (and of
// folders added here) in one virtualised table, as `inspect view` lists its logs: status,
// model, REPL, score, cost, duration, date; sortable by any column, filtered by kind, status
// and text; kept current by the host's pushes; a click opens the run or the evaluation.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef } from 'react';
import type { ListingStatus, RunListing } from '../../src-shared/protocol.ts';
import { useServices, useStudio } from '../app/context.tsx';
import { addRunsFolder, openListing, removeRunsFolder, watchRuns } from '../app/runs-services.ts';
import { fmtMs, fmtUsd } from '../lib/format.ts';
import { type RunsKindFilter, type RunsSortKey, useRuns, visibleRows } from '../store/runs.ts';
import { HostPathForm } from './HostPathForm.tsx';

const ROW_H = 26;
const STATUSES: ListingStatus[] = ['live', 'finished', 'failed', 'limit', 'cancelled', 'interrupted'];

const COLUMNS: { key: RunsSortKey; label: string }[] = [
  { key: 'name', label: 'name' },
  { key: 'status', label: 'status' },
  { key: 'model', label: 'model' },
  { key: 'repl', label: 'REPL' },
  { key: 'score', label: 'score' },
  { key: 'cost', label: 'cost' },
  { key: 'duration', label: 'duration' },
  { key: 'date', label: 'started' },
];

function costText(r: RunListing): string {
  if (r.costUsd === null) return 'unknown';
  return r.unpriced > 0 ? `${fmtUsd(r.costUsd)} + ${r.unpriced} unpriced` : fmtUsd(r.costUsd);
}

function scoreText(r: RunListing): string {
  if (!r.score) return '';
  const { correct, finished, total } = r.score;
  const of = total !== null && total !== finished ? ` (${finished} of ${total} done)` : '';
  return finished === 0 ? `–${of}` : `${correct}/${finished} ${((correct / finished) * 100).toFixed(0)}%${of}`;
}

function dateText(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

export function RunsView() {
  const svc = useServices();
  const connected = useStudio((s) => s.connection === 'open');
  const { rows, listed, runsDir, problems, extraFolders, sort, text, status, kind, setView } = useRuns();
  useEffect(() => {
    if (connected) void watchRuns(svc);
  }, [svc, connected]);
  const shown = useMemo(() => visibleRows(rows, { sort, text, status, kind }), [rows, sort, text, status, kind]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virt = useVirtualizer({ count: shown.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_H, overscan: 16 });
  const by = (key: RunsSortKey): void =>
    setView({
      sort: { key, desc: sort.key === key ? !sort.desc : key === 'date' || key === 'cost' || key === 'duration' || key === 'score' },
    });
  const counts = useMemo(() => {
    const c = new Map<string, number>();
    for (const r of rows.values()) c.set(r.status, (c.get(r.status) ?? 0) + 1);
    return c;
  }, [rows]);
  if (!connected)
    return (
      <div className="runs-browser" data-testid="runs-browser">
        <h2>Runs</h2>
        <p className="muted">Not connected to a host: the runs folder is listed by `rlm-studio serve`.</p>
      </div>
    );
  return (
    <div className="runs-browser" data-testid="runs-browser">
      <h2>Runs</h2>
      <p className="muted runs-folders">
        Session logs and evaluations in <code>{runsDir ?? '…'}</code>
        {extraFolders.map((f) => (
          <span key={f} className="runs-folder">
            {' '}
            and <code>{f}</code>{' '}
            <button type="button" className="link" onClick={() => void removeRunsFolder(svc, f)} aria-label={`Stop listing ${f}`}>
              ×
            </button>
          </span>
        ))}
        . Live: updated as they run.
      </p>
      <HostPathForm
        placeholder="/path/on/the/host (a folder of logs or evaluations, or an evaluation)"
        label="Add a folder on the host"
        submitText="Add folder"
        onOpen={(p) => void addRunsFolder(svc, p)}
        inputTestId="runs-add-path"
        submitTestId="runs-add"
      />
      {problems.length > 0 ? (
        <ul className="eval-problems" data-testid="runs-problems">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
      <div className="runs-filters">
        <input
          type="search"
          placeholder="Filter: name, model, path…"
          aria-label="Filter runs"
          value={text}
          onChange={(e) => setView({ text: e.target.value })}
          data-testid="runs-filter"
        />
        <select
          aria-label="Kind"
          value={kind}
          onChange={(e) => setView({ kind: e.target.value as RunsKindFilter })}
          data-testid="runs-kind"
        >
          <option value="all">runs and evaluations</option>
          <option value="run">runs</option>
          <option value="evaluation">evaluations</option>
        </select>
        <select
          aria-label="Status"
          value={status}
          onChange={(e) => setView({ status: e.target.value as ListingStatus | 'all' })}
          data-testid="runs-status"
        >
          <option value="all">any status</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s} ({counts.get(s) ?? 0})
            </option>
          ))}
        </select>
        <span className="muted" data-testid="runs-count">
          {shown.length === rows.size ? `${rows.size}` : `${shown.length} of ${rows.size}`}
        </span>
      </div>
      <div className="runs-table" role="table" aria-label="Runs and evaluations" aria-rowcount={shown.length + 1}>
        <div className="runs-row runs-head" role="row">
          {COLUMNS.map((c) => (
            <span key={c.key} role="columnheader" aria-sort={sort.key === c.key ? (sort.desc ? 'descending' : 'ascending') : undefined}>
              <button type="button" className="link" onClick={() => by(c.key)} data-testid={`runs-sort-${c.key}`}>
                {c.label}
                {sort.key === c.key ? (sort.desc ? ' ▾' : ' ▴') : ''}
              </button>
            </span>
          ))}
        </div>
        <div ref={scrollRef} className="runs-scroll" role="rowgroup" data-testid="runs-scroll">
          {listed && shown.length === 0 ? (
            <p className="muted runs-empty">
              {rows.size === 0 ? 'No session logs or evaluations here yet: start a run, or add a folder.' : 'Nothing matches the filter.'}
            </p>
          ) : null}
          <div style={{ height: virt.getTotalSize(), position: 'relative' }}>
            {virt.getVirtualItems().map((vi) => {
              const r = shown[vi.index] as RunListing;
              return (
                <div
                  key={r.path}
                  role="row"
                  aria-rowindex={vi.index + 2}
                  tabIndex={0}
                  className={`runs-row st-${r.status}`}
                  style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_H, transform: `translateY(${vi.start}px)` }}
                  onClick={() => void openListing(svc, r)}
                  onKeyDown={(ev) => {
                    if (ev.key === 'Enter') void openListing(svc, r);
                  }}
                  title={`${r.path}${r.detail ? `\n${r.detail}` : ''}`}
                  data-testid="runs-row"
                  data-path={r.path}
                  data-status={r.status}
                >
                  <span role="cell" className="runs-name">
                    <span className={`runs-kind k-${r.kind}`}>{r.kind === 'evaluation' ? 'eval' : 'run'}</span> {r.name}
                  </span>
                  <span role="cell">
                    <span className={`runs-status st-${r.status}`}>{r.status}</span>
                  </span>
                  <span role="cell">{r.model ?? '–'}</span>
                  <span role="cell">{r.repl ?? '–'}</span>
                  <span role="cell">{scoreText(r)}</span>
                  <span role="cell" className={r.costUsd === null ? 'muted' : undefined}>
                    {costText(r)}
                  </span>
                  <span role="cell">{r.durationMs === null ? '–' : fmtMs(r.durationMs)}</span>
                  <span role="cell">{dateText(r.startedAt)}</span>
                </div>
              );
            })}
          </div>
        </div>
      </div>
    </div>
  );
}
