// A test double of the protocol's carrier, for tests on both sides (the shared client's own,
// and the renderer's with the app's services on top): it moves nothing, the test plays the
// host by hand (`deliver`, `reply`) and reads what went out (`sent`, `of`). DOM-free, so the
// shared tests compile without DOM types; its `kind` makes it a renderer `Carrier` as well.
import { CarrierBase } from '../../src-shared/carrier-base.ts';
import type { CarrierState, OutgoingMessage } from '../../src-shared/protocol-client.ts';
import type { HostMessage } from '../../src-shared/protocol.ts';

export class MemoryCarrier extends CarrierBase {
  readonly kind = 'memory' as const;
  readonly sent: OutgoingMessage[] = [];
  /** `close` was called (the client let go of its carrier). */
  closed = false;

  constructor() {
    super('connecting');
  }

  /** Records the message; the client must only send on an open carrier (it queues otherwise). */
  send(message: OutgoingMessage): void {
    if (this.state !== 'open') throw new Error(`${message.command.type} was sent while the carrier is ${this.state}`);
    this.sent.push(message);
  }
  /** A message from the host. */
  deliver(message: HostMessage): void {
    this.emitMessage(message);
  }
  /** A successful reply from the host to a message sent. */
  reply(to: OutgoingMessage, result: unknown): void {
    this.deliver({ kind: 'reply', id: to.id, ok: true, result } as HostMessage);
  }
  /** Plays the carrier's connection by hand. */
  override setState(s: CarrierState): void {
    super.setState(s);
  }
  close(): void {
    this.closed = true;
    this.setState('closed');
  }
  /** The messages sent of one command type. */
  of(type: string): OutgoingMessage[] {
    return this.sent.filter((m) => m.command.type === type);
  }
}
