// A protocol client over any carrier: correlates replies with commands, validates nothing
// it does not have to (the host is trusted by the client), and hands pushes to a listener.
// Used by tests, the CLI and anything in Node that drives a host; the renderer has its own.
import type { z } from 'zod';
import type { Command, CommandType, HostMessage, Replies } from '../../src-shared/protocol.ts';

export class ProtocolError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

/** A command's parameters as a caller writes them (fields with defaults may be left out). */
export type ParamsOf<T extends CommandType> = Omit<Extract<z.input<typeof Command>, { type: T }>, 'type'>;

export class ProtocolClient {
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly listeners = new Set<(m: HostMessage) => void>();
  private readonly sendRaw: (message: unknown) => void;

  constructor(sendRaw: (message: unknown) => void) {
    this.sendRaw = sendRaw;
  }

  /** Feed every message the carrier delivers. */
  deliver(m: HostMessage): void {
    if (m.kind === 'reply') {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (m.ok) w.resolve(m.result);
      else w.reject(new ProtocolError(m.error.code, m.error.message));
      return;
    }
    for (const l of this.listeners) l(m);
  }

  onPush(listener: (m: HostMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Rejects every pending command (the carrier closed). */
  fail(reason: string): void {
    for (const [, w] of this.waiting) w.reject(new ProtocolError('internal', reason));
    this.waiting.clear();
  }

  call<T extends CommandType>(type: T, params: Partial<ParamsOf<T>> = {}): Promise<Replies[T]> {
    const id = this.nextId++;
    return new Promise<Replies[T]>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.sendRaw({ id, command: { type, ...params } });
    });
  }
}
