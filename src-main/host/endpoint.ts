// The host's side of the seam with its carriers (transport/): a carrier (WebSocket,
// Electron IPC, a test) connects once per client and gets a HostConnection: it hands over whatever the client
// sent (still untrusted: the host validates it) and receives HostMessages to deliver.
import type { HostMessage } from '../../src-shared/protocol.ts';

export interface HostConnection {
  /** One message from the client, already JSON-decoded but not validated. */
  receive(raw: unknown): void;
  /** The client went away: drop its subscriptions. */
  close(): void;
}

export interface ConnectOptions {
  /**
   * Bytes the carrier has queued but not yet delivered. When it reports a lot, the host
   * holds back further event pushes for this client instead of piling them up in memory.
   */
  buffered?: () => number;
}

export interface HostEndpoint {
  connect(send: (message: HostMessage) => void, options?: ConnectOptions): HostConnection;
}

/** A session's context as the web server serves it (`/api/context`): a file on the host, or text its recipe holds. */
export type SessionContext = { kind: 'file'; path: string; name: string } | { kind: 'text'; text: string; name: string };
