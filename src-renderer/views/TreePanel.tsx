// The recursion tree as an accessible, virtualised tree (role tree/treeitem, arrow keys,
// collapse/expand, search), coloured by a chosen measure with a d3 scale. The graph mode
// (TreeGraph) draws the same runs with d3's tree layout on a canvas with zoom and pan.
import { useVirtualizer } from '@tanstack/react-virtual';
import { interpolateViridis, scaleSequential } from 'd3';
import { memo, useCallback, useDeferredValue, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { RunId } from '../../src-shared/events.ts';
import type { PauseInfo } from '../../src-shared/protocol.ts';
import { iterationCount, type TrajectoryState } from '../../src-shared/trajectory/index.ts';
import { useLabels, useServices, useStudio } from '../app/context.tsx';
import { fmtCost, fmtInt, fmtMs, fmtTokens, fmtUsd, usageNote } from '../lib/format.ts';
import {
  measureKnown,
  measureOf,
  MEASURES,
  RunDerivations,
  runStatus,
  type Measure,
  type RunMetrics,
  UNKNOWN_MEASURE_COLOUR,
} from '../lib/run-derivations.ts';
import { runLabel } from '../lib/run-labels.ts';
import { runsMatching, treeRows, type TreeRow } from '../lib/tree-rows.ts';
import { REPL_LABEL, REPL_TAG, runLanguage, sessionLanguage, type ReplLanguage } from '../lib/repl-language.ts';
import { usePrefs } from '../store/prefs.ts';
import { pauseOf, viewDerivations, viewRev, viewTraj } from '../store/studio.ts';
import { TreeGraph } from './TreeGraph.tsx';
import { chipsByRun, type RunChip } from '../../src-shared/analysis/labels.ts';
import { loadLabels } from '../app/label-services.ts';
import { useTrajectoryMemo } from '../lib/use-trajectory-memo.ts';

const NO_CHIPS: ReadonlyMap<string, RunChip[]> = new Map();

function sameChips(a: readonly RunChip[], b: readonly RunChip[]): boolean {
  return a.length === b.length && a.every((c, i) => c.target === b[i]!.target && c.label === b[i]!.label);
}

const ROW_H = 26;

// memo: this view reads its own slices; App re-renders only when the panel, the active session or a title changes.
export const TreePanel = memo(function TreePanel({ sessionId }: { sessionId: string }) {
  const svc = useServices();
  const rev = useStudio((s) => viewRev(s, sessionId));
  const traj = useStudio((s) => viewTraj(s, sessionId));
  const ownDerived = useStudio((s) => viewDerivations(s, sessionId));
  const pause = useStudio((s) => pauseOf(s, sessionId));
  const selected = useStudio((s) => s.selection.get(sessionId)?.runId ?? null);
  const language = useStudio((s) => sessionLanguage(s.sessions.get(sessionId)));
  const { colourBy, treeMode, set: setPrefs } = usePrefs();
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(() => new Set());
  const labelsEntry = useLabels((s) => s.bySession.get(sessionId));
  useEffect(() => {
    void loadLabels(svc, sessionId);
  }, [svc, sessionId]);
  // Labels on a run, its iterations and its sub-calls, shown on its row. Recomputed as calls
  // arrive (a call's run is in the trajectory), but a row keeps its list while it is unchanged,
  // so that rows are not redrawn for it.
  const previousChips = useRef<ReadonlyMap<string, RunChip[]>>(NO_CHIPS);
  const runChips = useTrajectoryMemo(
    traj,
    rev,
    (t) => {
      if (labelsEntry?.kind !== 'loaded' || !t) return NO_CHIPS;
      const next = chipsByRun(labelsEntry.labels.targets, t);
      for (const [runId, chips] of next) {
        const was = previousChips.current.get(runId);
        if (was && sameChips(was, chips)) next.set(runId, was);
      }
      previousChips.current = next;
      return next;
    },
    [labelsEntry],
  );
  const [query, setQuery] = useState('');
  const deferredQuery = useDeferredValue(query);

  // A replay's trajectory moves back and forth: it gets fresh derivations per revision.
  const derived = useTrajectoryMemo(traj, rev, (t) => (t ? (ownDerived ?? new RunDerivations(t)) : null), [ownDerived]);
  // Recomputed per committed revision (once per frame at most while live).
  const metrics = useTrajectoryMemo(derived, rev, (d) => (d ? d.runMetrics() : new Map<RunId, RunMetrics>()));
  const visible = useTrajectoryMemo(traj, rev, (t) => (t ? runsMatching(t, deferredQuery) : null), [deferredQuery]);
  const rows = useTrajectoryMemo(derived, rev, (d) => (d ? treeRows(d, collapsed, visible) : []), [collapsed, visible]);
  // Batch rows group runs; they are not runs themselves.
  const shownRuns = useMemo(() => rows.reduce((n, r) => n + (r.kind === 'run' ? 1 : 0), 0), [rows]);
  const colour = useMemo(() => {
    let max = 0;
    for (const m of metrics.values()) max = Math.max(max, measureOf(m, colourBy));
    return scaleSequential(interpolateViridis).domain([0, max || 1]);
  }, [metrics, colourBy]);

  const graphLabel = useCallback(
    (id: RunId): string => {
      const run = traj?.runs.get(id);
      if (!traj || !run) return id;
      return derived ? derived.labelOf(run).short : runLabel(traj, run);
    },
    [traj, derived],
  );

  const select = useCallback(
    (runId: RunId) => {
      svc.store.getState().select(sessionId, { runId, iteration: null });
      svc.store.getState().setPanel('run');
    },
    [svc, sessionId],
  );
  const toggle = useCallback((key: string) => {
    setCollapsed((prev) => {
      const next = new Set(prev);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  }, []);

  if (!traj) return null;
  return (
    <div className="tree-panel">
      <div className="tree-tools">
        <input
          className="tree-search"
          type="search"
          placeholder="Filter runs…"
          aria-label="Filter runs"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <label>
          colour{' '}
          <select aria-label="Colour by" value={colourBy} onChange={(e) => setPrefs({ colourBy: e.target.value as Measure })}>
            {MEASURES.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          aria-pressed={treeMode === 'graph'}
          onClick={() => setPrefs({ treeMode: treeMode === 'graph' ? 'list' : 'graph' })}
          title="Switch between the list and the graph"
        >
          {treeMode === 'graph' ? 'List' : 'Graph'}
        </button>
      </div>
      <div className="tree-summary">
        {traj.runs.size} runs · {shownRuns} shown
      </div>
      {treeMode === 'graph' ? (
        <TreeGraph
          traj={traj}
          rev={rev}
          metrics={metrics}
          colourBy={colourBy}
          selected={selected}
          onSelect={select}
          pause={pause}
          labelOf={graphLabel}
        />
      ) : (
        <TreeList
          traj={traj}
          derived={derived}
          rows={rows}
          metrics={metrics}
          colour={colour}
          colourBy={colourBy}
          selected={selected}
          onSelect={select}
          onToggle={toggle}
          pause={pause}
          language={language}
          runChips={runChips}
        />
      )}
    </div>
  );
});

interface TreeListProps {
  traj: TrajectoryState;
  derived: RunDerivations | null;
  rows: TreeRow[];
  metrics: Map<RunId, RunMetrics>;
  colour: (v: number) => string;
  colourBy: Measure;
  selected: RunId | null;
  onSelect(id: RunId): void;
  onToggle(key: string): void;
  pause: PauseInfo | null;
  language: ReplLanguage;
  runChips: ReadonlyMap<string, RunChip[]>;
}

function TreeList({
  traj,
  derived,
  rows,
  metrics,
  colour,
  colourBy,
  selected,
  onSelect,
  onToggle,
  pause,
  language,
  runChips,
}: TreeListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const runMetricsOf = (row: TreeRow): RunMetrics | undefined => (row.kind === 'run' ? metrics.get(row.runId) : undefined);
  const labelFor = (row: TreeRow): { short: string; long: string } | undefined => {
    const run = row.kind === 'run' && derived ? traj.runs.get(row.runId) : undefined;
    return run && derived ? derived.labelOf(run) : undefined;
  };
  const swatchOf = (row: TreeRow): string => {
    if (row.kind !== 'run') return '';
    const m = metrics.get(row.runId);
    return measureKnown(m, colourBy) ? colour(measureOf(m, colourBy)) : UNKNOWN_MEASURE_COLOUR;
  };
  const [active, setActive] = useState(0);
  const virt = useVirtualizer({ count: rows.length, getScrollElement: () => scrollRef.current, estimateSize: () => ROW_H, overscan: 12 });

  // Keep the active row on the selected run when selection changes elsewhere.
  useEffect(() => {
    if (!selected) return;
    const i = rows.findIndex((r) => r.kind === 'run' && r.runId === selected);
    if (i >= 0) setActive(i);
  }, [selected, rows]);

  // Rows can shrink under the active index (a filter, a collapse): the keys act on the last row left.
  const at = Math.max(0, Math.min(active, rows.length - 1));
  const activeRow = rows[at];
  const move = (i: number): void => {
    const n = Math.max(0, Math.min(rows.length - 1, i));
    setActive(n);
    virt.scrollToIndex(n, { align: 'auto' });
  };

  const onKey = (e: KeyboardEvent<HTMLDivElement>): void => {
    const row = activeRow;
    if (!row) return;
    switch (e.key) {
      case 'ArrowDown':
        move(at + 1);
        break;
      case 'ArrowUp':
        move(at - 1);
        break;
      case 'Home':
        move(0);
        break;
      case 'End':
        move(rows.length - 1);
        break;
      case 'PageDown':
        move(at + 20);
        break;
      case 'PageUp':
        move(at - 20);
        break;
      case 'ArrowRight':
        if ((row.kind === 'batch' || row.hasChildren) && !row.expanded) onToggle(row.key);
        else if (row.expanded) move(at + 1);
        break;
      case 'ArrowLeft':
        if ((row.kind === 'batch' || row.hasChildren) && row.expanded) onToggle(row.key);
        else if (row.parentKey) {
          const p = rows.findIndex((r) => r.key === row.parentKey);
          if (p >= 0) move(p);
        }
        break;
      case 'Enter':
      case ' ':
        if (row.kind === 'run') onSelect(row.runId);
        else onToggle(row.key);
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  return (
    <div
      ref={scrollRef}
      className="tree-scroll"
      role="tree"
      aria-label="Recursion tree"
      tabIndex={0}
      aria-activedescendant={activeRow ? domId(activeRow.key) : undefined}
      onKeyDown={onKey}
    >
      <div style={{ height: virt.getTotalSize(), position: 'relative' }}>
        {virt.getVirtualItems().map((vi) => {
          const row = rows[vi.index] as TreeRow;
          return (
            <div
              key={row.key}
              style={{ position: 'absolute', top: 0, left: 0, right: 0, height: ROW_H, transform: `translateY(${vi.start}px)` }}
            >
              <TreeRowView
                row={row}
                index={vi.index}
                traj={traj}
                metrics={runMetricsOf(row)}
                swatch={swatchOf(row)}
                selected={row.kind === 'run' && row.runId === selected}
                active={vi.index === at}
                onSelect={onSelect}
                onToggle={onToggle}
                onFocusRow={setActive}
                pause={pause}
                language={language}
                labels={row.kind === 'run' ? runChips.get(row.runId) : undefined}
                label={labelFor(row)}
              />
            </div>
          );
        })}
      </div>
    </div>
  );
}

function domId(key: string): string {
  return `tree-${key.replace(/[^\w-]/g, '_')}`;
}

interface RowProps {
  row: TreeRow;
  index: number;
  traj: TrajectoryState;
  /** A new object whenever the run received events (RunDerivations.runMetrics), so it stands for the run's state. */
  metrics: RunMetrics | undefined;
  swatch: string;
  selected: boolean;
  active: boolean;
  onSelect(id: RunId): void;
  onToggle(key: string): void;
  onFocusRow(index: number): void;
  pause: PauseInfo | null;
  language: ReplLanguage;
  labels: RunChip[] | undefined;
  /** The run's label and its longer form for the title (RunDerivations.labelOf: they change with its siblings too). */
  label: { short: string; long: string } | undefined;
}

/**
 * Rows are redrawn when what they show changed, not at every commit: during a load most rows
 * are of runs that are over, and redrawing every visible row per commit (labels, numbers,
 * titles) was most of a commit's render.
 */
function sameRow(a: RowProps, b: RowProps): boolean {
  const ra = a.row;
  const rb = b.row;
  const sameShape =
    ra.key === rb.key &&
    ra.level === rb.level &&
    ra.expanded === rb.expanded &&
    (ra.kind === 'run' && rb.kind === 'run'
      ? ra.hasChildren === rb.hasChildren
      : ra.kind === 'batch' && rb.kind === 'batch' && ra.size === rb.size && ra.failed === rb.failed);
  return (
    sameShape &&
    a.index === b.index &&
    a.traj === b.traj &&
    a.metrics === b.metrics &&
    a.swatch === b.swatch &&
    a.selected === b.selected &&
    a.active === b.active &&
    a.onSelect === b.onSelect &&
    a.onToggle === b.onToggle &&
    a.onFocusRow === b.onFocusRow &&
    a.pause === b.pause &&
    a.language === b.language &&
    a.labels === b.labels &&
    a.label?.short === b.label?.short &&
    a.label?.long === b.label?.long
  );
}

const TreeRowView = memo(function TreeRowView({
  row,
  index,
  traj,
  metrics,
  swatch,
  selected,
  active,
  onSelect,
  onToggle,
  onFocusRow: focusRow,
  pause,
  language: sessionLang,
  labels,
  label,
}: RowProps) {
  const onFocusRow = (): void => focusRow(index);
  const indent = { paddingLeft: 6 + row.level * 14 };
  const expandable = row.kind === 'batch' || row.hasChildren;
  const twisty = (
    <span
      className="twisty"
      aria-hidden="true"
      onClick={(e) => {
        e.stopPropagation();
        if (expandable) onToggle(row.key);
      }}
    >
      {expandable ? (row.expanded ? '▾' : '▸') : '·'}
    </span>
  );
  if (row.kind === 'batch') {
    return (
      <div
        id={domId(row.key)}
        role="treeitem"
        aria-level={row.level + 1}
        aria-expanded={row.expanded}
        aria-selected={false}
        className={`tree-row batch${active ? ' active' : ''}`}
        style={indent}
        onClick={() => {
          onFocusRow();
          onToggle(row.key);
        }}
      >
        {twisty}
        <span className="batch-label">batch ×{row.size}</span>
        {row.failed > 0 ? <span className="status-failed"> {row.failed} not answered</span> : null}
      </div>
    );
  }
  const run = traj.runs.get(row.runId);
  if (!run) return null;
  const status = runStatus(run, pause);
  const { short: text, long } = label ?? { short: runLabel(traj, run), long: runLabel(traj, run, 300) };
  const language = runLanguage(run.start, sessionLang);
  return (
    <div
      id={domId(row.key)}
      role="treeitem"
      aria-level={row.level + 1}
      aria-expanded={row.hasChildren ? row.expanded : undefined}
      aria-selected={selected}
      data-run-id={run.id}
      data-status={status}
      data-repl={language}
      className={`tree-row${selected ? ' selected' : ''}${active ? ' active' : ''}`}
      style={indent}
      onClick={() => {
        onFocusRow();
        onSelect(run.id);
      }}
      title={`${run.id} · depth ${run.depth} · ${status} · ${REPL_LABEL[language]} REPL · ${run.start?.model ?? '?'}${run.start ? ` · context ${fmtInt(run.start.context.totalChars)} chars` : ''}\n${long}`}
    >
      {twisty}
      <span className={`dot status-${status}`} aria-label={status} />
      <span className="swatch" style={{ background: swatch }} />
      <span className="run-label">
        <b>d{run.depth}</b> {text}
      </span>
      <span className={`repl-tag repl-${language}`} aria-label={`${REPL_LABEL[language]} REPL`}>
        {REPL_TAG[language]}
      </span>
      {labels?.map((c) => (
        <span
          key={`${c.target}|${c.label}`}
          className={`label-chip${c.where ? ' label-chip-inner' : ''}`}
          data-testid="tree-label"
          title={c.where ? `${c.label} (on ${c.target})` : c.label}
        >
          {c.where ? `${c.where}: ${c.label}` : c.label}
        </span>
      ))}
      <span className="run-nums" title={metrics ? usageNote(metrics.total) : undefined}>
        {iterationCount(run)} it · {metrics ? fmtTokens(metrics.total.inputTokens + metrics.total.outputTokens, metrics.total, true) : 0}{' '}
        tok · {metrics ? fmtCost(metrics.total, { tight: true }) : fmtUsd(0)} · {fmtMs(metrics?.wallMs ?? 0)}
      </span>
    </div>
  );
}, sameRow);
