// What every protocol carrier shares: its listeners, its state and the emitting of both. A
// carrier says only how messages move (`send`) and how it lets go (`close`); the shared
// ProtocolClient (protocol-client.ts) sits on top of any of them.
import { Listeners, type CarrierState, type OutgoingMessage, type ProtocolCarrier } from './protocol-client.ts';
import type { HostMessage } from './protocol.ts';

export abstract class CarrierBase implements ProtocolCarrier {
  private current: CarrierState;
  private readonly messages = new Listeners<HostMessage>();
  private readonly states = new Listeners<CarrierState>();

  protected constructor(initial: CarrierState) {
    this.current = initial;
  }

  get state(): CarrierState {
    return this.current;
  }

  abstract send(message: OutgoingMessage): void;
  abstract close(): void;

  onMessage(listener: (message: HostMessage) => void): () => void {
    return this.messages.add(listener);
  }
  onState(listener: (state: CarrierState) => void): () => void {
    return this.states.add(listener);
  }

  /** Hands a message from the host to the client. */
  protected emitMessage(message: HostMessage): void {
    this.messages.emit(message);
  }
  /** Moves to a state; listeners hear of changes only, never of the state it is already in. */
  protected setState(state: CarrierState): void {
    if (this.current === state) return;
    this.current = state;
    this.states.emit(state);
  }
}
