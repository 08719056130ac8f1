// The runs browser's rows (`runs.watch` and the host's `runs` pushes), by path, and how the
// person sorts and filters them. Kept apart from the studio store: a row is not a session
// until it is opened. The extra folders are remembered across reloads.
import { create } from 'zustand';
import type { ListingStatus, RunListing, RunsListing } from '../../src-shared/protocol.ts';

export type RunsSortKey = 'name' | 'status' | 'model' | 'repl' | 'score' | 'cost' | 'duration' | 'date';
export type RunsKindFilter = 'all' | 'run' | 'evaluation';

export interface RunsState {
  rows: Map<string, RunListing>;
  runsDir: string | null;
  folders: string[];
  problems: string[];
  /** Whether the host has answered a `runs.watch` yet. */
  listed: boolean;
  /** Folders on the host added to the runs folder (kept in localStorage). */
  extraFolders: string[];
  sort: { key: RunsSortKey; desc: boolean };
  text: string;
  status: ListingStatus | 'all';
  kind: RunsKindFilter;
  replace(l: RunsListing): void;
  apply(changed: RunListing[], removed: string[], problems: string[]): void;
  setExtraFolders(folders: string[]): void;
  setView(v: Partial<Pick<RunsState, 'sort' | 'text' | 'status' | 'kind'>>): void;
}

const KEY = 'rlm-studio.runs-folders.v1';

function loadFolders(): string[] {
  try {
    const raw = typeof localStorage !== 'undefined' ? localStorage.getItem(KEY) : null;
    const v = raw ? (JSON.parse(raw) as unknown) : [];
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

export const useRuns = create<RunsState>()((set, get) => ({
  rows: new Map(),
  runsDir: null,
  folders: [],
  problems: [],
  listed: false,
  extraFolders: loadFolders(),
  sort: { key: 'date', desc: true },
  text: '',
  status: 'all',
  kind: 'all',
  replace: (l) =>
    set({ rows: new Map(l.entries.map((r) => [r.path, r])), runsDir: l.runsDir, folders: l.folders, problems: l.problems, listed: true }),
  apply: (changed, removed, problems) => {
    const rows = new Map(get().rows);
    for (const p of removed) rows.delete(p);
    for (const r of changed) rows.set(r.path, r);
    set(problems.length > 0 ? { rows, problems } : { rows });
  },
  setExtraFolders: (extraFolders) => {
    set({ extraFolders });
    try {
      localStorage.setItem(KEY, JSON.stringify(extraFolders));
    } catch {
      /* private mode: the folders just do not persist */
    }
  },
  setView: (v) => set(v),
}));

const STATUS_ORDER: ListingStatus[] = ['live', 'failed', 'interrupted', 'limit', 'cancelled', 'finished'];

function sortValue(r: RunListing, key: RunsSortKey): string | number | null {
  switch (key) {
    case 'name':
      return r.name;
    case 'status':
      return STATUS_ORDER.indexOf(r.status);
    case 'model':
      return r.model;
    case 'repl':
      return r.repl;
    case 'score':
      return r.score && r.score.finished > 0 ? r.score.correct / r.score.finished : null;
    case 'cost':
      return r.costUsd;
    case 'duration':
      return r.durationMs;
    case 'date':
      return r.startedAt;
  }
}

/** The rows shown: filtered by kind, status and text (name, model, path, detail), sorted; unknown values sort last either way. */
export function visibleRows(rows: ReadonlyMap<string, RunListing>, v: Pick<RunsState, 'sort' | 'text' | 'status' | 'kind'>): RunListing[] {
  const words = v.text.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const out = [...rows.values()].filter(
    (r) =>
      (v.kind === 'all' || r.kind === v.kind) &&
      (v.status === 'all' || r.status === v.status) &&
      words.every((w) => `${r.name} ${r.model ?? ''} ${r.repl ?? ''} ${r.path} ${r.detail ?? ''}`.toLowerCase().includes(w)),
  );
  const dir = v.sort.desc ? -1 : 1;
  return out.sort((a, b) => {
    const x = sortValue(a, v.sort.key);
    const y = sortValue(b, v.sort.key);
    if (x === null || y === null) return x === y ? a.path.localeCompare(b.path) : x === null ? 1 : -1;
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y));
    return c !== 0 ? c * dir : a.path.localeCompare(b.path);
  });
}
