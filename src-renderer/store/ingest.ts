// Per-frame batching of incoming events (perfetto's raf scheduler idea): events are queued
// as they arrive and folded into the trajectory once per animation frame, within a time
// budget, so a live session at 1,000 events/s or a 100 MB file costs one store update per
// frame and never a long main-thread task.
import type { TrajectoryEvent } from '../../src-shared/events.ts';

export interface Scheduler {
  request(cb: () => void): void;
  now(): number;
}

export const frameScheduler: Scheduler = {
  request: (cb) => {
    if (typeof requestAnimationFrame === 'function' && typeof document !== 'undefined' && document.visibilityState !== 'hidden') requestAnimationFrame(() => cb());
    else setTimeout(cb, 16);
  },
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
  /**
   * While a backlog remains after a frame (a big file loading), views are refreshed at most
   * this often: re-deriving the tree every frame would cost more than folding the events.
   * A live stream drains every frame and so commits every frame.
   */
  backlogCommitMs = 250;
  /** Frames processed and the longest one, for the performance panel. */
  stats = { frames: 0, events: 0, maxFrameMs: 0 };

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

  /** Applies everything queued now (tests, and before a command that needs current state). */
  flush(): void {
    this.run(Number.POSITIVE_INFINITY);
  }

  /** Drops queued events of a session (it was closed). */
  drop(sessionId: string): void {
    this.queue = this.queue.filter((p) => p.sessionId !== sessionId);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.scheduler.request(() => {
      this.scheduled = false;
      this.run(this.budgetMs);
      if (this.queue.length > 0) this.schedule();
    });
  }

  private run(budget: number): void {
    const t0 = this.scheduler.now();
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
    if (this.uncommitted.size > 0 && (!backlog || now - this.lastCommit >= this.backlogCommitMs)) {
      const ids = this.uncommitted;
      this.uncommitted = new Set();
      this.lastCommit = now;
      this.commit(ids);
    }
    if (touched.size > 0) {
      const ms = this.scheduler.now() - t0;
      this.stats.frames++;
      if (ms > this.stats.maxFrameMs && budget !== Number.POSITIVE_INFINITY) this.stats.maxFrameMs = ms;
    }
  }
}
