// Protocol carriers for Node (tests, benchmarks, scripts) under the shared ProtocolClient
// (src-shared/protocol-client.ts): a host in this process, a WebSocket to a served host, or
// any channel that is open from the start (a process's IPC, Electron's bridge).
import type { WebSocket } from 'ws';
import { CarrierBase } from '../../src-shared/carrier-base.ts';
import type { OutgoingMessage } from '../../src-shared/protocol-client.ts';
import type { HostMessage } from '../../src-shared/protocol.ts';
import type { HostEndpoint } from '../host/endpoint.ts';

/**
 * A carrier open from the start: `send` goes out through `out`, whatever the far end sends
 * is handed to `deliver`, and `drop` tells the client the far end went away (no reconnects).
 */
export class DirectCarrier extends CarrierBase {
  private readonly out: (message: OutgoingMessage) => void;
  private readonly onClose: () => void;

  constructor(out: (message: OutgoingMessage) => void, onClose: () => void = () => {}) {
    super('open');
    this.out = out;
    this.onClose = onClose;
  }

  send(message: OutgoingMessage): void {
    if (this.state === 'open') this.out(message);
  }
  deliver(message: HostMessage): void {
    if (this.state === 'open') this.emitMessage(message);
  }
  drop(): void {
    this.setState('closed');
  }
  close(): void {
    if (this.state === 'closed') return;
    this.drop();
    this.onClose();
  }
}

/** A host in this process; every message crosses JSON both ways, as over a real carrier. */
export function endpointCarrier(endpoint: HostEndpoint): DirectCarrier {
  const roundTrip = <T>(m: T): T => JSON.parse(JSON.stringify(m)) as T;
  let conn: ReturnType<HostEndpoint['connect']> | null = null;
  const carrier = new DirectCarrier(
    (m) => conn?.receive(roundTrip(m)),
    () => conn?.close(),
  );
  conn = endpoint.connect((m) => carrier.deliver(roundTrip(m)));
  return carrier;
}

/** A WebSocket to a served host (`/ws?token=…`), once it is open; rejects on a refused handshake. */
export async function openWebSocketCarrier(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ carrier: DirectCarrier; socket: WebSocket }> {
  const { WebSocket } = await import('ws');
  const socket = new WebSocket(url, { headers });
  const carrier = new DirectCarrier(
    (m) => socket.send(JSON.stringify(m)),
    () => socket.close(),
  );
  socket.on('message', (d) => carrier.deliver(JSON.parse(d.toString()) as HostMessage));
  socket.on('close', () => carrier.drop());
  await new Promise<void>((res, rej) => {
    socket.once('open', () => res());
    socket.once('unexpected-response', (_req, resp) => rej(new Error(`HTTP ${resp.statusCode}`)));
    socket.once('error', rej);
  });
  return { carrier, socket };
}
