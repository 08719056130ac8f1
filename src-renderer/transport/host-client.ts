// The protocol client: correlates replies to commands, queues commands while the carrier
// is (re)connecting, and resumes every subscription from the next sequence number after a
// reconnect so no event is lost or applied twice.
import type { TrajectoryEvent } from '../../src-shared/events.ts';
import {
  PROTOCOL_VERSION,
  type Command,
  type CommandType,
  type HostMessage,
  type ReplyOf,
  type SessionSummary,
  type ErrorCode,
} from '../../src-shared/protocol.ts';
import type { Carrier, CarrierState } from './carrier.ts';

export type CommandOf<T extends CommandType> = Extract<Command, { type: T }>;

export class HostError extends Error {
  readonly code: ErrorCode | 'disconnected';
  constructor(code: ErrorCode | 'disconnected', message: string) {
    super(message);
    this.code = code;
    this.name = 'HostError';
  }
}

export interface HostClientEvents {
  events(sessionId: string, events: TrajectoryEvent[]): void;
  session(session: SessionSummary): void;
  progress(sessionId: string, bytesRead: number, totalBytes: number): void;
  state(state: CarrierState): void;
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  type: CommandType;
}

export class HostClient {
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private queue: { id: number; command: Command }[] = [];
  /** Subscribed sessions → the last seq received (-1: none yet). */
  private subscriptions = new Map<string, number>();
  private readonly offs: (() => void)[] = [];
  hostName: string | null = null;

  private readonly carrier: Carrier;
  private readonly on: Partial<HostClientEvents>;

  constructor(carrier: Carrier, on: Partial<HostClientEvents> = {}) {
    this.carrier = carrier;
    this.on = on;
    this.offs.push(carrier.onMessage((m) => this.receive(m)));
    this.offs.push(carrier.onState((s) => this.stateChanged(s)));
    if (carrier.state === 'open') this.stateChanged('open');
  }

  get kind(): Carrier['kind'] {
    return this.carrier.kind;
  }
  get state(): CarrierState {
    return this.carrier.state;
  }

  request<T extends CommandType>(command: CommandOf<T>): Promise<ReplyOf<T>> {
    const id = this.nextId++;
    return new Promise<ReplyOf<T>>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, type: command.type });
      if (this.carrier.state === 'open') this.carrier.send({ id, command });
      else this.queue.push({ id, command });
    });
  }

  /** Subscribes from `fromSeq`; after a reconnect the client resumes by itself. */
  async subscribe(sessionId: string, fromSeq = 0): Promise<ReplyOf<'subscribe'>> {
    const known = this.subscriptions.get(sessionId);
    this.subscriptions.set(sessionId, Math.max(known ?? -1, fromSeq - 1));
    return this.request({ type: 'subscribe', sessionId, fromSeq });
  }

  async unsubscribe(sessionId: string): Promise<void> {
    this.subscriptions.delete(sessionId);
    await this.request({ type: 'unsubscribe', sessionId });
  }

  lastSeq(sessionId: string): number | undefined {
    return this.subscriptions.get(sessionId);
  }

  close(): void {
    for (const off of this.offs) off();
    this.carrier.close();
    this.failPending('client closed');
  }

  private stateChanged(s: CarrierState): void {
    this.on.state?.(s);
    if (s === 'open') {
      // hello first; then resubscriptions; then commands queued while offline, in order.
      const hello = this.nextId++;
      this.pending.set(hello, {
        resolve: (v) => {
          this.hostName = (v as ReplyOf<'hello'>).host;
        },
        reject: () => {},
        type: 'hello',
      });
      this.carrier.send({ id: hello, command: { type: 'hello', protocol: PROTOCOL_VERSION } });
      for (const [sessionId, last] of this.subscriptions) {
        const id = this.nextId++;
        this.pending.set(id, { resolve: () => {}, reject: () => {}, type: 'subscribe' });
        this.carrier.send({ id, command: { type: 'subscribe', sessionId, fromSeq: last + 1 } });
      }
      const queued = this.queue;
      this.queue = [];
      for (const q of queued) this.carrier.send(q);
    } else if (s === 'closed') {
      // Commands in flight may or may not have run; the caller decides whether to retry.
      this.failPending('the connection to the host was lost');
    }
  }

  private failPending(why: string): void {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(new HostError('disconnected', why));
  }

  private receive(m: HostMessage): void {
    switch (m.kind) {
      case 'reply': {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.ok) p.resolve(m.result);
        else p.reject(new HostError(m.error.code, m.error.message));
        return;
      }
      case 'events': {
        const last = this.subscriptions.get(m.sessionId);
        if (last === undefined) return;
        // Drop anything already seen (a resubscribe may overlap what was in flight).
        let fresh = m.events;
        if (fresh.length > 0 && (fresh[0] as TrajectoryEvent).seq <= last) fresh = fresh.filter((e) => e.seq > last);
        if (fresh.length === 0) return;
        this.subscriptions.set(m.sessionId, (fresh[fresh.length - 1] as TrajectoryEvent).seq);
        this.on.events?.(m.sessionId, fresh);
        return;
      }
      case 'session':
        this.on.session?.(m.session);
        return;
      case 'progress':
        this.on.progress?.(m.sessionId, m.bytesRead, m.totalBytes);
        return;
    }
  }
}
