// A test double of the protocol's carrier, for tests on both sides (the shared client's own,
// and the renderer's with the app's services on top): it moves nothing, the test plays the
// host by hand (`deliver`, `reply`) and reads what went out (`sent`, `of`). DOM-free, so the
// shared tests compile without DOM types; its `kind` makes it a renderer `Carrier` as well.
import { Listeners, type CarrierState, type OutgoingMessage, type ProtocolCarrier } from './protocol-client.ts';
import type { HostMessage } from './protocol.ts';

export class MemoryCarrier implements ProtocolCarrier {
  readonly kind = 'memory' as const;
  readonly sent: OutgoingMessage[] = [];
  state: CarrierState = 'connecting';
  /** `close` was called (the client let go of its carrier). */
  closed = false;
  private readonly messages = new Listeners<HostMessage>();
  private readonly states = new Listeners<CarrierState>();

  /** Records the message; the client must only send on an open carrier (it queues otherwise). */
  send(message: OutgoingMessage): void {
    if (this.state !== 'open') throw new Error(`${message.command.type} was sent while the carrier is ${this.state}`);
    this.sent.push(message);
  }
  /** A message from the host. */
  deliver(message: HostMessage): void {
    this.messages.emit(message);
  }
  /** A successful reply from the host to a message sent. */
  reply(to: OutgoingMessage, result: unknown): void {
    this.deliver({ kind: 'reply', id: to.id, ok: true, result } as HostMessage);
  }
  setState(s: CarrierState): void {
    this.state = s;
    this.states.emit(s);
  }
  onMessage(l: (m: HostMessage) => void): () => void {
    return this.messages.add(l);
  }
  onState(l: (s: CarrierState) => void): () => void {
    return this.states.add(l);
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
