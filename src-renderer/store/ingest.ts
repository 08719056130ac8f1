// Per-frame batching of incoming events (perfetto's raf scheduler idea): events are queued
// as they arrive and folded into the trajectory once per animation frame, within a time
// budget, so a live session at 1,000 events/s or a 100 MB file costs one store update per
// frame and never a long main-thread task.
import type { TrajectoryEvent } from '../../src-shared/events.ts';

export interface Scheduler {
  /** Runs `cb` before the next frame (a live stream: one fold + commit per frame). */
  request(cb: () => void): void;
  /**
   * Runs `cb` in a new task as soon as possible (a backlog: back-to-back slices that still
   * let input, worker messages and frames in between). Without it, backlogs go per frame.
   */
  soon?(cb: () => void): void;
  now(): number;
}

/** A macrotask without setTimeout's 4 ms clamp (the React scheduler's trick). */
function makeSoon(): ((cb: () => void) => void) | undefined {
  if (typeof MessageChannel !== 'function') return undefined;
  const ch = new MessageChannel();
  const queue: (() => void)[] = [];
  ch.port1.onmessage = () => queue.shift()?.();
  return (cb) => {
    queue.push(cb);
    ch.port2.postMessage(null);
  };
}

const soon = typeof document !== 'undefined' ? makeSoon() : undefined;

export const frameScheduler: Scheduler = {
  request: (cb) => {
    if (typeof requestAnimationFrame === 'function' && typeof document !== 'undefined' && document.visibilityState !== 'hidden')
      requestAnimationFrame(() => cb());
    else setTimeout(cb, 16);
  },
  ...(soon ? { soon } : {}),
  now: () => performance.now(),
};

interface Pending {
  sessionId: string;
  events: TrajectoryEvent[];
  offset: number;
}

export type ApplyFn = (sessionId: string, events: TrajectoryEvent[], from: number, to: number) => void;
export type CommitFn = (touched: ReadonlySet<string>) => void;

export class EventIngest {
  private queue: Pending[] = [];
  private scheduled = false;
  private lastCommit = Number.NEGATIVE_INFINITY;
  private uncommitted = new Set<string>();
  /** A backlog remained after the last slice: the next one runs as soon as possible. */
  private backlog = false;
  /** When the last backlog commit started (its render is measured at the next slice). */
  private renderProbe: number | null = null;
  /**
   * While a backlog remains after a frame (a big file loading), views are refreshed at most
   * this often: re-deriving the tree every frame would cost more than folding the events.
   * A live stream drains every frame and so commits every frame.
   */
  backlogCommitMs = 250;
  /** The current backlog commit interval: at least `backlogCommitMs`, and at least 4× the last render, so rendering stays under a fifth of a load. */
  private commitEvery = 250;
  /** Frames processed and the longest one, for the performance panel. */
  stats = { frames: 0, events: 0, maxFrameMs: 0 };
  /**
   * Sessions loading from a file (see `beginBulk`), and when each was last committed. While
   * the parse worker is the slower side the queue drains at every batch, and committing at
   * each (as for a live stream) re-rendered the views ~50 times over a 100 MB load; such a
   * session is committed at most every `commitEvery` ms instead, its first batch at once.
   */
  private readonly bulk = new Map<string, number>();

  private readonly apply: ApplyFn;
  private readonly commit: CommitFn;
  private readonly scheduler: Scheduler;
  /** Milliseconds of reducer work per frame; the rest of the frame is React's. */
  private readonly budgetMs: number;

  constructor(apply: ApplyFn, commit: CommitFn, scheduler: Scheduler = frameScheduler, budgetMs = 8) {
    this.apply = apply;
    this.commit = commit;
    this.scheduler = scheduler;
    this.budgetMs = budgetMs;
  }

  push(sessionId: string, events: TrajectoryEvent[]): void {
    if (events.length === 0) return;
    this.queue.push({ sessionId, events, offset: 0 });
    this.schedule();
  }

  get pendingEvents(): number {
    let n = 0;
    for (const p of this.queue) n += p.events.length - p.offset;
    return n;
  }

  /** Nothing queued and every folded event committed (the views show it all). */
  get settled(): boolean {
    return this.queue.length === 0 && this.uncommitted.size === 0;
  }

  /** Session `id` is loading from a file: its commits are spaced out until `endBulk`. */
  beginBulk(id: string): void {
    this.bulk.set(id, Number.NEGATIVE_INFINITY);
  }

  /** The file is read: whatever of it is folded in is committed at the next slice. */
  endBulk(id: string): void {
    if (!this.bulk.delete(id)) return;
    if (this.uncommitted.has(id)) this.schedule();
  }

  /** The uncommitted sessions to commit now: all but file loads between their spaced commits. */
  private due(now: number): Set<string> {
    const ids = new Set<string>();
    for (const id of this.uncommitted) {
      const last = this.bulk.get(id);
      if (last === undefined || now - last >= this.commitEvery) ids.add(id);
    }
    return ids;
  }

  /** Applies everything queued now (tests, and before a command that needs current state). */
  flush(): void {
    this.run(Number.POSITIVE_INFINITY);
  }

  /** Drops queued events of a session (it was closed). */
  drop(sessionId: string): void {
    this.queue = this.queue.filter((p) => p.sessionId !== sessionId);
    this.bulk.delete(sessionId);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const go = (): void => {
      this.scheduled = false;
      this.run(this.budgetMs);
      if (this.queue.length > 0 || this.uncommitted.size > 0) this.schedule();
    };
    if (this.backlog && this.scheduler.soon) this.scheduler.soon(go);
    else this.scheduler.request(go);
  }

  private doCommit(now: number, ids: Set<string> = this.uncommitted): void {
    if (ids.size === 0) return;
    if (ids === this.uncommitted) this.uncommitted = new Set();
    else for (const id of ids) this.uncommitted.delete(id);
    this.lastCommit = now;
    for (const id of ids) if (this.bulk.has(id)) this.bulk.set(id, now);
    this.commit(ids);
  }

  private run(budget: number): void {
    const t0 = this.scheduler.now();
    const sliced = this.scheduler.soon !== undefined && budget !== Number.POSITIVE_INFINITY;
    if (this.renderProbe !== null) {
      // The previous slice was a commit: the time since is what React took to render it.
      this.commitEvery = Math.min(2000, Math.max(this.backlogCommitMs, (t0 - this.renderProbe) * 4));
      this.renderProbe = null;
    } else if (!this.backlog) this.commitEvery = this.backlogCommitMs;
    // A due commit during a backlog gets a task of its own, so folding and rendering never
    // add up to one long task.
    if (sliced && this.backlog && this.uncommitted.size > 0 && t0 - this.lastCommit >= this.commitEvery) {
      this.doCommit(t0);
      this.renderProbe = t0;
      return;
    }
    const touched = new Set<string>();
    const STRIDE = 512; // look at the clock every STRIDE events
    while (this.queue.length > 0) {
      const p = this.queue[0] as Pending;
      const to = Math.min(p.events.length, p.offset + STRIDE);
      this.apply(p.sessionId, p.events, p.offset, to);
      this.stats.events += to - p.offset;
      p.offset = to;
      touched.add(p.sessionId);
      if (p.offset >= p.events.length) this.queue.shift();
      if (this.scheduler.now() - t0 >= budget) break;
    }
    for (const id of touched) this.uncommitted.add(id);
    const now = this.scheduler.now();
    const backlog = this.queue.length > 0 && budget !== Number.POSITIVE_INFINITY;
    this.backlog = backlog;
    if (this.uncommitted.size > 0) {
      if (!backlog) this.doCommit(now, this.due(now));
      else if (!sliced && now - this.lastCommit >= this.commitEvery) this.doCommit(now);
    }
    if (touched.size > 0) {
      const ms = this.scheduler.now() - t0;
      this.stats.frames++;
      if (ms > this.stats.maxFrameMs && budget !== Number.POSITIVE_INFINITY) this.stats.maxFrameMs = ms;
    }
  }
}
