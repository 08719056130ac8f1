// The host's clients and their subscriptions: session summaries and load progress pushed to
// everyone, events to each subscriber from its position, in order, in bounded messages, held
// back while a client's carrier is backed up.
import type { TrajectoryEvent } from '../../src-shared/events.ts';
import type { LiveReplyDelta } from '../../src-shared/live-reply.ts';
import type { HostMessage, SessionSummary } from '../../src-shared/protocol.ts';
import { readLogBatches } from '../logs/read-log.ts';
import { followUpState } from './follow-ups.ts';
import type { Session, SessionTable } from './session-state.ts';

export interface Client {
  send: (m: HostMessage) => void;
  buffered: () => number;
  /** Session id → index of the next event to send. */
  subs: Map<string, number>;
}

const EVENTS_PER_MESSAGE = 2000;
/** A client with more than this queued in its carrier gets no more events until it drains. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export class Subscribers {
  private readonly sessions: SessionTable;
  readonly clients = new Set<Client>();
  private readonly dirty = new Set<string>();
  private flushScheduled = false;
  private retryTimer: NodeJS.Timeout | null = null;
  /** Per client, the kept-on-disk sessions whose events are being streamed to it. */
  private readonly diskStreams = new WeakMap<Client, Set<string>>();

  constructor(sessions: SessionTable) {
    this.sessions = sessions;
  }

  safeSend(client: Client, m: HostMessage): void {
    try {
      client.send(m);
    } catch {
      // A carrier that cannot deliver closes itself; nothing to do here.
    }
  }

  summary(s: Session): SessionSummary {
    return {
      sessionId: s.id,
      title: s.title,
      status: s.status,
      logFile: s.logFile,
      format: s.format,
      readOnly: s.readOnly,
      createdAt: s.createdAt,
      model: s.model,
      pause: s.pause,
      forkOf: s.forkOf,
      eventCount: s.count,
      message: s.message,
      followUp: followUpState(s),
    };
  }

  broadcast(s: Session): void {
    const m: HostMessage = { kind: 'session', session: this.summary(s) };
    for (const c of this.clients) this.safeSend(c, m);
  }

  progress(s: Session, bytesRead: number, totalBytes: number): void {
    const m: HostMessage = { kind: 'progress', sessionId: s.id, bytesRead, totalBytes };
    for (const c of this.clients) this.safeSend(c, m);
  }

  /** A live session's streaming replies, to its subscribers only (after the events they already have). */
  live(s: Session, deltas: LiveReplyDelta[]): void {
    if (deltas.length === 0) return;
    this.flush();
    const m: HostMessage = { kind: 'live', sessionId: s.id, deltas };
    for (const c of this.clients) if (c.subs.has(s.id)) this.safeSend(c, m);
  }

  markDirty(sessionId: string): void {
    this.dirty.add(sessionId);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  /**
   * Sends every subscriber the events it has not had yet, in order, in bounded messages. A
   * client whose carrier is backed up is skipped and retried shortly (its position is kept),
   * so a slow browser on a 1 GB log does not make the host buffer the whole log.
   */
  private flush(): void {
    this.flushScheduled = false;
    const ids = [...this.dirty];
    this.dirty.clear();
    let backedUp = false;
    for (const c of this.clients) {
      for (const id of ids) {
        const from = c.subs.get(id);
        const s = this.sessions.find(id);
        if (from === undefined || !s || from >= s.count) continue;
        if (s.onDisk) {
          this.streamFromDisk(c, s, from);
          continue;
        }
        let i = from;
        while (i < s.events.length && c.buffered() < MAX_BUFFERED_BYTES) {
          const end = Math.min(i + EVENTS_PER_MESSAGE, s.events.length);
          this.safeSend(c, { kind: 'events', sessionId: id, events: s.events.slice(i, end) });
          i = end;
        }
        c.subs.set(id, i);
        if (i < s.events.length) {
          backedUp = true;
          this.dirty.add(id);
        }
      }
    }
    if (backedUp && !this.retryTimer) {
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        this.flush();
      }, 15);
    }
  }

  /** Streams a kept-on-disk log's events to one client from `from`, pacing on its carrier. */
  private streamFromDisk(c: Client, s: Session, from: number): void {
    const active = this.diskStreams.get(c) ?? new Set<string>();
    this.diskStreams.set(c, active);
    if (active.has(s.id) || s.logFile === null) return;
    active.add(s.id);
    const file = s.logFile;
    void (async () => {
      let index = 0;
      let next = from;
      let batch: TrajectoryEvent[] = [];
      const stillWanted = (): boolean => this.clients.has(c) && c.subs.get(s.id) !== undefined && !this.sessions.closed;
      const send = async (): Promise<void> => {
        while (c.buffered() >= MAX_BUFFERED_BYTES && stillWanted()) await new Promise((r) => setTimeout(r, 15));
        if (!stillWanted() || batch.length === 0) return;
        this.safeSend(c, { kind: 'events', sessionId: s.id, events: batch });
        next += batch.length;
        c.subs.set(s.id, next);
        batch = [];
      };
      try {
        for await (const items of readLogBatches(file)) {
          for (const item of items) {
            if (item.kind !== 'event') continue;
            if (index++ < next) continue;
            batch.push(item.event);
            if (batch.length >= EVENTS_PER_MESSAGE) await send();
          }
          if (!stillWanted()) return;
        }
        await send();
      } catch {
        // The file changed or vanished under us: the client has what could be read.
      } finally {
        active.delete(s.id);
      }
    })();
  }

  append(s: Session, events: TrajectoryEvent[]): void {
    s.count += events.length;
    if (s.onDisk) {
      if (events.length > 0) this.markDirty(s.id);
      return;
    }
    try {
      for (const e of events) {
        s.events.push(e);
        // One write per event: a host killed at any moment leaves a log readable up to here.
        s.log?.append(e);
        if (s.model === null && e.type === 'run.start') s.model = e.model;
      }
    } finally {
      // Clients get what was taken in, also when a write of the log failed (the caller ends the session).
      if (events.length > 0) this.markDirty(s.id);
    }
  }

  /** No more retries of backed-up clients (the host is closing). */
  stop(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
  }
}
