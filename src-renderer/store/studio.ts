// The app store, xyflow style: data and action types apart, an initial-state factory,
// entities in Maps by id, module-level selectors. A session's trajectory is the shared
// reducer's state, mutated in place by `applyEvent` (copying per event would be quadratic);
// each commit swaps in a new SessionEntry with a bumped `rev`, so views subscribe to one
// session's `rev` and recompute what they show from it. Where each kind of UI state lives:
// docs/adr/0001-where-ui-state-lives.md.
import { create } from 'zustand';
import type { LogHeader, RunId, TrajectoryEvent } from '../../src-shared/events.ts';
import type {
  Breakpoint,
  EndpointProfile,
  EvalOverview,
  PauseInfo,
  RecentRun,
  SessionSummary,
  VariableView,
} from '../../src-shared/protocol.ts';
import { applyEvent, createTrajectoryState, type TrajectoryState } from '../../src-shared/trajectory/index.ts';
import type { CarrierState } from '../../src-shared/protocol-client.ts';
import { EventIngest, frameScheduler, type Scheduler } from './ingest.ts';
import { createCoverageStore } from './coverage.ts';
import { createLabelsStore } from './labels.ts';
import { createLiveRepliesStore } from './live-replies.ts';
import { createPausedDraftsStore } from './paused-drafts.ts';
import { createPolicyStore } from './policy.ts';
import { RunDerivations } from '../lib/run-derivations.ts';
import { setAt, type Elision } from '../lib/elision.ts';
import type { Spent } from '../lib/parse-messages.ts';
import type { LogFormat } from '../../src-shared/codecs/detect.ts';

const samePath = (a: readonly (string | number)[], b: readonly (string | number)[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

export interface SessionEntry {
  id: string;
  /** 'host': lives in the host (subscribed); 'local': parsed in this page from a dropped file. */
  source: 'host' | 'local';
  title: string;
  summary: SessionSummary | null;
  header: LogHeader | null;
  /** The format a local file was read as (a host session's is in `summary`); null until known. */
  format: LogFormat | null;
  traj: TrajectoryState;
  /** What the views derive from `traj` and keep between commits (metrics, batches); lives and dies with the session. */
  derived: RunDerivations;
  /** Every event in seq order (the reducer's nodes point into these; kept for replay, compare, export). */
  events: TrajectoryEvent[];
  /** Bumped on every commit that touched this session. */
  rev: number;
  /**
   * Events of a big native log whose long strings were left out when it was read (each
   * holds a preview there), with where the whole texts are; `textsRev` is bumped when
   * texts come back. Mutable, like `events`.
   */
  elided: Map<TrajectoryEvent, Elision[]>;
  textsRev: number;
  /** Left-out texts that could not be read back (they keep their previews, also in exports). */
  textsLost: number;
  problems: string[];
  /**
   * Set while a log loads into the session (this page's parse worker, or the host reading a
   * saved log), until every event read is folded in: until then the session is not whole.
   */
  loading: { bytes: number; total: number } | null;
  /** Timings of a local load (ms since the drop). */
  timings: { firstViewMs: number | null; fullMs: number | null; parsedMs?: number | null; spent?: Spent } | null;
  /** Set when a local session was sent to the host (fork needs a host session). */
  hostSessionId: string | null;
}

interface Selection {
  runId: RunId | null;
  iteration: number | null;
}

export interface ReplayState {
  /** Number of events applied (0…events.length). */
  cursor: number;
  traj: TrajectoryState;
  playing: boolean;
  speed: number;
}

export type Panel = 'run' | 'charts' | 'compare' | 'search' | 'new' | 'eval' | 'policy' | 'runs' | 'findings' | 'sweep';

interface Notice {
  kind: 'error' | 'info';
  text: string;
  id: number;
}

export interface StudioData {
  sessions: Map<string, SessionEntry>;
  order: string[];
  activeId: string | null;
  selection: Map<string, Selection>;
  replay: Map<string, ReplayState>;
  connection: CarrierState | 'none';
  carrier: 'websocket' | 'electron' | 'memory' | null;
  recent: RecentRun[];
  profiles: EndpointProfile[];
  notices: Notice[];
  variables: { sessionId: string; runId: string; list: VariableView[] } | null;
  compare: { a: string | null; b: string | null };
  panel: Panel;
  /** Session-level breakpoints as last sent to the host, by session. */
  breakpoints: Map<string, Breakpoint[]>;
  /** Opened evaluations by directory (host-side data, replaced wholesale like summaries). */
  evals: Map<string, EvalOverview>;
  /** The evaluation shown, and the two compared (directories). */
  evalView: { active: string | null; a: string | null; b: string | null };
}

interface StudioActions {
  setPanel(p: Panel): void;
  setActive(id: string | null): void;
  select(sessionId: string, sel: Partial<Selection>): void;
  notify(kind: Notice['kind'], text: string): void;
  dismiss(id: number): void;
  /** Creates (or resets) a local session; events come through `ingestEvents`. */
  addLocalSession(id: string, title: string): void;
  setHeader(sessionId: string, header: LogHeader | null): void;
  setFormat(sessionId: string, format: LogFormat): void;
  addProblems(sessionId: string, problems: string[]): void;
  setLoading(sessionId: string, loading: SessionEntry['loading']): void;
  setTimings(sessionId: string, timings: Partial<NonNullable<SessionEntry['timings']>>): void;
  upsertSummary(summary: SessionSummary): void;
  ingestEvents(sessionId: string, events: TrajectoryEvent[], elided?: readonly [number, Elision[]][]): void;
  /** Puts whole texts back into events (in place; null: keep the preview, ask no more) and bumps `textsRev`. */
  fillTexts(
    sessionId: string,
    filled: readonly { event: TrajectoryEvent; path: readonly (string | number)[]; text: string | null }[],
  ): void;
  flushEvents(): void;
  closeSession(id: string): void;
  setCompare(c: Partial<StudioData['compare']>): void;
  setReplay(sessionId: string, replay: ReplayState | null): void;
  setConnection(state: CarrierState | 'none', carrier?: StudioData['carrier']): void;
  setRecent(recent: RecentRun[]): void;
  setProfiles(p: EndpointProfile[]): void;
  setVariables(v: StudioData['variables']): void;
  setBreakpoints(sessionId: string, b: Breakpoint[]): void;
  upsertEval(e: EvalOverview): void;
  setEvalView(v: Partial<StudioData['evalView']>): void;
}

export type StudioState = StudioData & StudioActions;

function initialStudioData(): StudioData {
  return {
    sessions: new Map(),
    order: [],
    activeId: null,
    selection: new Map(),
    replay: new Map(),
    connection: 'none',
    carrier: null,
    recent: [],
    profiles: [],
    notices: [],
    variables: null,
    compare: { a: null, b: null },
    panel: 'run',
    breakpoints: new Map(),
    evals: new Map(),
    evalView: { active: null, a: null, b: null },
  };
}

function newEntry(id: string, source: SessionEntry['source'], title: string): SessionEntry {
  const traj = createTrajectoryState();
  return {
    id,
    source,
    title,
    summary: null,
    header: null,
    format: null,
    traj,
    derived: new RunDerivations(traj),
    events: [],
    rev: 0,
    elided: new Map(),
    textsRev: 0,
    textsLost: 0,
    problems: [],
    loading: null,
    timings: null,
    hostSessionId: null,
  };
}

let noticeId = 1;

/** Follow mode: where the newest event of each touched session happened. */
type FollowHook = (sessionId: string, runId: RunId, iteration: number | null) => void;

export function createStudioStore(scheduler: Scheduler = frameScheduler) {
  let follow: FollowHook | null = null;
  const lastPlace = new Map<string, { runId: RunId; iteration: number | null }>();

  let ingest: EventIngest | null = null;
  // What is kept per session beside the trajectories, in stores of their own (their updates
  // re-render only their readers), owned here: closing a session clears its entries.
  const isOpen = (id: string): boolean => store.getState().sessions.has(id);
  const owned = {
    coverage: createCoverageStore(isOpen),
    labels: createLabelsStore(isOpen),
    drafts: createPausedDraftsStore(),
    liveReplies: createLiveRepliesStore(isOpen),
  };
  const store = create<StudioState>()((set, get) => {
    const ing = new EventIngest(
      (sessionId, events, from, to) => {
        const entry = get().sessions.get(sessionId);
        if (!entry) return;
        const { traj, derived } = entry;
        let last: TrajectoryEvent | null = null;
        for (let i = from; i < to; i++) {
          const e = events[i] as TrajectoryEvent;
          entry.events.push(e);
          applyEvent(traj, e);
          derived.markRunDirty(e.runId);
          last = e;
        }
        if (last) lastPlace.set(sessionId, { runId: last.runId, iteration: 'iteration' in last ? last.iteration : null });
        derived.settleOwnTotals();
      },
      (touched) => {
        const sessions = new Map(get().sessions);
        for (const id of touched) {
          const e = sessions.get(id);
          if (e) sessions.set(id, { ...e, rev: e.rev + 1 });
        }
        set({ sessions });
        if (follow)
          for (const id of touched) {
            const p = lastPlace.get(id);
            if (p) follow(id, p.runId, p.iteration);
          }
      },
      scheduler,
    );
    ingest = ing;

    const patchEntry = (id: string, patch: (e: SessionEntry) => SessionEntry): void => {
      const e = get().sessions.get(id);
      if (!e) return;
      const sessions = new Map(get().sessions);
      sessions.set(id, patch(e));
      set({ sessions });
    };

    return {
      ...initialStudioData(),
      setPanel: (panel) => set({ panel }),
      setActive: (activeId) => set({ activeId }),
      select: (sessionId, sel) => {
        const selection = new Map(get().selection);
        const prev = selection.get(sessionId) ?? { runId: null, iteration: null };
        selection.set(sessionId, { ...prev, ...sel });
        set({ selection });
      },
      notify: (kind, text) => set({ notices: [...get().notices.slice(-4), { kind, text, id: noticeId++ }] }),
      dismiss: (id) => set({ notices: get().notices.filter((n) => n.id !== id) }),
      addLocalSession: (id, title) => {
        ing.drop(id);
        const sessions = new Map(get().sessions);
        sessions.set(id, newEntry(id, 'local', title));
        const order = get().order.includes(id) ? get().order : [...get().order, id];
        set({ sessions, order, activeId: id });
      },
      setHeader: (id, header) =>
        patchEntry(id, (e) => {
          e.traj.header = header;
          return { ...e, header };
        }),
      setFormat: (id, format) => patchEntry(id, (e) => (e.format === format ? e : { ...e, format })),
      addProblems: (id, problems) => patchEntry(id, (e) => ({ ...e, problems: [...e.problems, ...problems].slice(0, 200) })),
      setLoading: (id, loading) => patchEntry(id, (e) => ({ ...e, loading })),
      setTimings: (id, t) => patchEntry(id, (e) => ({ ...e, timings: { firstViewMs: null, fullMs: null, ...e.timings, ...t } })),
      upsertSummary: (summary) => {
        const sessions = new Map(get().sessions);
        const prev = sessions.get(summary.sessionId);
        if (prev) sessions.set(summary.sessionId, { ...prev, summary, title: summary.title || prev.title });
        else sessions.set(summary.sessionId, { ...newEntry(summary.sessionId, 'host', summary.title), summary });
        const order = get().order.includes(summary.sessionId) ? get().order : [...get().order, summary.sessionId];
        set({ sessions, order });
      },
      ingestEvents: (id, events, elided) => {
        if (elided && elided.length > 0) {
          const map = get().sessions.get(id)?.elided;
          if (map) for (const [i, list] of elided) if (events[i]) map.set(events[i], list);
        }
        ing.push(id, events);
      },
      fillTexts: (id, filled) => {
        const entry = get().sessions.get(id);
        if (!entry || filled.length === 0) return;
        let lost = 0;
        for (const f of filled) {
          if (f.text !== null) setAt(f.event, f.path, f.text);
          else lost++;
          const left = entry.elided.get(f.event)?.filter((x) => !samePath(x.path, f.path));
          if (left && left.length > 0) entry.elided.set(f.event, left);
          else entry.elided.delete(f.event);
        }
        patchEntry(id, (e) => ({ ...e, textsRev: e.textsRev + 1, textsLost: e.textsLost + lost }));
      },
      flushEvents: () => ing.flush(),
      closeSession: (id) => {
        ing.drop(id);
        lastPlace.delete(id);
        const sessions = new Map(get().sessions);
        sessions.delete(id);
        const order = get().order.filter((x) => x !== id);
        set({ sessions, order, activeId: get().activeId === id ? (order[order.length - 1] ?? null) : get().activeId });
        for (const s of Object.values(owned)) s.getState().forgetSession(id);
      },
      setCompare: (c) => set({ compare: { ...get().compare, ...c } }),
      setReplay: (id, r) => {
        const replay = new Map(get().replay);
        if (r) replay.set(id, r);
        else replay.delete(id);
        set({ replay });
      },
      setConnection: (connection, carrier) => set({ connection, ...(carrier !== undefined ? { carrier } : {}) }),
      setRecent: (recent) => set({ recent }),
      setProfiles: (profiles) => set({ profiles }),
      setVariables: (variables) => set({ variables }),
      setBreakpoints: (id, b) => {
        const breakpoints = new Map(get().breakpoints);
        breakpoints.set(id, b);
        set({ breakpoints });
      },
      upsertEval: (e) => {
        const evals = new Map(get().evals);
        evals.set(e.dir, e);
        set({ evals });
      },
      setEvalView: (v) => set({ evalView: { ...get().evalView, ...v } }),
    };
  });

  return Object.assign(store, {
    ...owned,
    /** Policy metrics opened in this app (by path: nothing there belongs to a session). */
    policy: createPolicyStore(),
    /** Events received but not yet folded in (they wait for the next frames). */
    pendingEvents: (): number => ingest?.pendingEvents ?? 0,
    /** Nothing waits to be folded in or shown. */
    settled: (): boolean => ingest?.settled ?? true,
    /** A file load into session `id` begins (its views are refreshed spaced out) or ends. */
    beginBulk: (id: string): void => ingest?.beginBulk(id),
    endBulk: (id: string): void => ingest?.endBulk(id),
    ingestStats: () => ({ ...(ingest?.stats ?? { frames: 0, events: 0, maxFrameMs: 0 }) }),
    setFollowHook(h: FollowHook | null) {
      follow = h;
    },
  });
}

export type StudioStore = ReturnType<typeof createStudioStore>;

// --- module-level selectors (stable identities: no re-subscription per render) -------------

/** The trajectory a view should show: the replay's state when replaying, else the live one. */
export function viewTraj(s: StudioState, id: string | null): TrajectoryState | null {
  if (!id) return null;
  const r = s.replay.get(id);
  if (r) return r.traj;
  return s.sessions.get(id)?.traj ?? null;
}

/**
 * The derivations to use with `viewTraj`: the session's own, or for a replay (whose state
 * moves back and forth) a fresh one.
 */
export function viewDerivations(s: StudioState, id: string | null): RunDerivations | null {
  if (!id || s.replay.has(id)) return null;
  return s.sessions.get(id)?.derived ?? null;
}

/** A number that changes whenever `viewTraj` has new content. */
export function viewRev(s: StudioState, id: string | null): number {
  if (!id) return -1;
  const r = s.replay.get(id);
  if (r) return -1 - r.cursor;
  return s.sessions.get(id)?.rev ?? -1;
}

export function pauseOf(s: StudioState, id: string | null): PauseInfo | null {
  if (!id) return null;
  return s.sessions.get(id)?.summary?.pause ?? null;
}

export function hostIdOf(entry: SessionEntry | undefined): string | null {
  if (!entry) return null;
  return entry.source === 'host' ? entry.id : entry.hostSessionId;
}
