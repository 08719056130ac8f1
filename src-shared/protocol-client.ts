// The one protocol client, for the renderer and for Node alike: it correlates replies with
// commands, queues commands while its carrier is (re)connecting, resumes every subscription
// from the next sequence number after a reconnect (so no event is lost or seen twice), and
// hands pushes to listeners. What moves the messages is a `ProtocolCarrier`: WebSocket or
// Electron IPC in the page (src-renderer/transport), a socket or an in-process host in Node.
import type { z } from 'zod';
import type { TrajectoryEvent } from './events.ts';
import { PROTOCOL_VERSION, type Command, type CommandType, type ErrorCode, type HostMessage, type ReplyOf } from './protocol.ts';

export type CarrierState = 'connecting' | 'open' | 'closed';

/** A command as a caller writes it: fields with defaults may be left out (the host fills them). */
export type CommandInput<T extends CommandType = CommandType> = Extract<z.input<typeof Command>, { type: T }>;
/** A command's parameters, without its `type`. */
type ParamsOf<T extends CommandType> = Omit<CommandInput<T>, 'type'>;
/** What goes over a carrier: a command and the id its reply will carry. */
export interface OutgoingMessage {
  id: number;
  command: CommandInput;
}
/** A message the host sends without being asked. */
export type PushMessage = Exclude<HostMessage, { kind: 'reply' }>;

/** Moves protocol messages to and from a host, and nothing else. */
export interface ProtocolCarrier {
  /** Sends when open; the client queues while it is not. */
  send(message: OutgoingMessage): void;
  onMessage(listener: (message: HostMessage) => void): () => void;
  onState(listener: (state: CarrierState) => void): () => void;
  readonly state: CarrierState;
  close(): void;
}

export class ProtocolError extends Error {
  /** The host's error code, or `disconnected` when the carrier went away before the reply. */
  readonly code: ErrorCode | 'disconnected';
  constructor(code: ErrorCode | 'disconnected', message: string) {
    super(message);
    this.code = code;
    this.name = 'ProtocolError';
  }
}

/** Parameters are required exactly when the command has a field without a default. */
type ParamsArg<T extends CommandType> = object extends ParamsOf<T> ? [params?: ParamsOf<T>] : [params: ParamsOf<T>];

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  command: CommandInput;
}

/** A small listener set whose listeners may unsubscribe while it emits. */
export class Listeners<T> {
  private readonly set = new Set<(v: T) => void>();
  add(l: (v: T) => void): () => void {
    this.set.add(l);
    return () => this.set.delete(l);
  }
  emit(v: T): void {
    for (const l of [...this.set]) l(v);
  }
}

export class ProtocolClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private queue: { id: number; command: CommandInput }[] = [];
  /** Subscribed sessions → the last seq received (-1: none yet). */
  private readonly subscriptions = new Map<string, number>();
  private readonly pushes = new Listeners<PushMessage>();
  private readonly states = new Listeners<CarrierState>();
  private readonly offs: (() => void)[];
  private closed = false;
  /** The host's name from its `hello` reply (sent on every (re)connect). */
  hostName: string | null = null;

  readonly carrier: ProtocolCarrier;

  constructor(carrier: ProtocolCarrier) {
    this.carrier = carrier;
    this.offs = [carrier.onMessage((m) => this.receive(m)), carrier.onState((s) => this.stateChanged(s))];
    if (carrier.state === 'open') this.opened();
  }

  get state(): CarrierState {
    return this.carrier.state;
  }

  /**
   * Sends a command and resolves with its reply. `subscribe` and `unsubscribe` also keep the
   * client's record of subscriptions, which it resumes after a reconnect. A `subscribe` to a
   * session already followed never moves it backwards (events already passed on are not
   * passed on again); to read a session again from an earlier seq, unsubscribe first.
   */
  call<T extends CommandType>(type: T, ...[params]: ParamsArg<T>): Promise<ReplyOf<T>> {
    if (this.closed) return Promise.reject(new ProtocolError('disconnected', 'the client is closed'));
    // The spread cannot be proven to rebuild exactly the command of `type`.
    const command = { ...params, type } as CommandInput;
    if (command.type === 'subscribe') {
      const known = this.subscriptions.get(command.sessionId);
      this.subscriptions.set(command.sessionId, Math.max(known ?? -1, (command.fromSeq ?? 0) - 1));
    } else if (command.type === 'unsubscribe') this.subscriptions.delete(command.sessionId);
    const id = this.nextId++;
    return new Promise<ReplyOf<T>>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve, reject, command });
      if (this.carrier.state === 'open') this.carrier.send({ id, command });
      else this.queue.push({ id, command });
    });
  }

  /** The last seq received for a subscribed session (-1: none yet), or undefined when not subscribed. */
  lastSeq(sessionId: string): number | undefined {
    return this.subscriptions.get(sessionId);
  }

  /** Pushes: session statuses, load progress, and events (only new ones, of subscribed sessions). */
  onPush(listener: (message: PushMessage) => void): () => void {
    return this.pushes.add(listener);
  }

  /** The carrier's state, told after the client has resumed its subscriptions and sent what it queued. */
  onState(listener: (state: CarrierState) => void): () => void {
    return this.states.add(listener);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const off of this.offs) off();
    this.carrier.close();
    this.failPending('the client was closed');
    for (const q of this.queue.splice(0)) this.pending.get(q.id)?.reject(new ProtocolError('disconnected', 'the client was closed'));
  }

  private stateChanged(s: CarrierState): void {
    if (s === 'open') this.opened();
    // Commands in flight may or may not have run; the caller decides whether to retry.
    else if (s === 'closed') this.failPending('the connection to the host was lost');
    this.states.emit(s);
  }

  /** hello first; then the subscriptions to resume; then the commands queued while offline, in order. */
  private opened(): void {
    this.internal({ type: 'hello', protocol: PROTOCOL_VERSION }, (v) => {
      this.hostName = (v as ReplyOf<'hello'>).host;
    });
    const queued = this.queue;
    this.queue = [];
    // A subscribe still in the queue goes out below with its own caller; do not send it twice.
    const queuedSubscribes = new Set(queued.flatMap((q) => (q.command.type === 'subscribe' ? [q.command.sessionId] : [])));
    for (const [sessionId, last] of this.subscriptions)
      if (!queuedSubscribes.has(sessionId)) this.internal({ type: 'subscribe', sessionId, fromSeq: last + 1 }, () => {});
    for (const q of queued) this.carrier.send(q);
  }

  private internal(command: CommandInput, resolve: (v: unknown) => void): void {
    const id = this.nextId++;
    this.pending.set(id, { resolve, reject: () => {}, command });
    this.carrier.send({ id, command });
  }

  private failPending(why: string): void {
    const pending = [...this.pending].filter(([id]) => !this.queue.some((q) => q.id === id));
    for (const [id, p] of pending) {
      this.pending.delete(id);
      p.reject(new ProtocolError('disconnected', why));
    }
  }

  private receive(m: HostMessage): void {
    if (m.kind === 'reply') {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) return p.resolve(m.result);
      // A subscription the host refused is not one to resume.
      if (p.command.type === 'subscribe' && this.lastSeq(p.command.sessionId) === (p.command.fromSeq ?? 0) - 1)
        this.subscriptions.delete(p.command.sessionId);
      p.reject(new ProtocolError(m.error.code, m.error.message));
      return;
    }
    if (m.kind === 'events') {
      const last = this.subscriptions.get(m.sessionId);
      if (last === undefined) return;
      // Drop anything already seen (a resumed subscription may overlap what was in flight).
      let fresh: TrajectoryEvent[] = m.events;
      if (fresh.length > 0 && fresh[0]!.seq <= last) fresh = fresh.filter((e) => e.seq > last);
      if (fresh.length === 0) return;
      this.subscriptions.set(m.sessionId, fresh[fresh.length - 1]!.seq);
      this.pushes.emit(fresh === m.events ? m : { ...m, events: fresh });
      return;
    }
    this.pushes.emit(m);
  }
}
