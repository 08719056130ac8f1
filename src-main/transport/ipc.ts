// The Electron IPC carrier, written against the few methods of ipcMain / ipcRenderer it
// uses, so it runs (and is tested) in plain Node with a fake pair, and in Electron as is.
// Channels are declared here once; nothing else names them. As in electron/fiddle: a
// window's messages are accepted only from senders the shell trusts (its own windows, its
// own page), and pushes start only after the page says it is ready.
import type { HostMessage } from '../../src-shared/protocol.ts';
import type { HostConnection, HostEndpoint } from '../host/endpoint.ts';

const IPC_CHANNELS = {
  /** Renderer → main: the page can receive pushes now. */
  ready: 'rlm-host:ready',
  /** Renderer → main: one ClientMessage. */
  toHost: 'rlm-host:to-host',
  /** Main → renderer: one HostMessage. */
  fromHost: 'rlm-host:from-host',
} as const;

export interface IpcSenderLike {
  readonly id: number;
  send(channel: string, ...args: unknown[]): void;
  isDestroyed(): boolean;
  once(event: 'destroyed', listener: () => void): unknown;
}

export interface IpcMainEventLike {
  sender: IpcSenderLike;
  /** The frame that sent it (null when it is gone). */
  senderFrame: { url: string } | null;
}

export interface IpcMainLike {
  on(channel: string, listener: (event: IpcMainEventLike, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: IpcMainEventLike, ...args: unknown[]) => void): unknown;
}

export interface IpcRendererLike {
  send(channel: string, ...args: unknown[]): void;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

/**
 * Connects trusted windows to the host. Returns a function that detaches everything.
 * `trusted` decides per message (sender id and frame URL); anything else is dropped silently.
 */
export function attachIpcMain(ipcMain: IpcMainLike, endpoint: HostEndpoint, trusted: (event: IpcMainEventLike) => boolean): () => void {
  const conns = new Map<number, HostConnection>();
  const onReady = (event: IpcMainEventLike): void => {
    if (!trusted(event)) return;
    const sender = event.sender;
    // A reload sends `ready` again: start a fresh connection, the old subscriptions go.
    conns.get(sender.id)?.close();
    const conn = endpoint.connect((m: HostMessage) => {
      if (!sender.isDestroyed()) sender.send(IPC_CHANNELS.fromHost, m);
    });
    if (!conns.has(sender.id))
      sender.once('destroyed', () => {
        conns.get(sender.id)?.close();
        conns.delete(sender.id);
      });
    conns.set(sender.id, conn);
  };
  const onMessage = (event: IpcMainEventLike, ...args: unknown[]): void => {
    if (!trusted(event)) return;
    conns.get(event.sender.id)?.receive(args[0]);
  };
  ipcMain.on(IPC_CHANNELS.ready, onReady);
  ipcMain.on(IPC_CHANNELS.toHost, onMessage);
  return () => {
    ipcMain.removeListener(IPC_CHANNELS.ready, onReady);
    ipcMain.removeListener(IPC_CHANNELS.toHost, onMessage);
    for (const c of conns.values()) c.close();
    conns.clear();
  };
}

/** What the preload exposes to the page as `window.rlmHost`: the protocol client, nothing else. */
export interface RlmHostBridge {
  send(message: unknown): void;
  /** Listens for host messages; the first listener tells the host the page is ready. */
  onMessage(listener: (message: HostMessage) => void): () => void;
}

export function createRendererBridge(ipcRenderer: IpcRendererLike): RlmHostBridge {
  let readySent = false;
  return {
    send(message: unknown): void {
      ipcRenderer.send(IPC_CHANNELS.toHost, message);
    },
    onMessage(listener: (message: HostMessage) => void): () => void {
      // The event object is never handed to the page (it would expose `sender`).
      const wrapped = (_event: unknown, message: unknown): void => listener(message as HostMessage);
      ipcRenderer.on(IPC_CHANNELS.fromHost, wrapped);
      if (!readySent) {
        readySent = true;
        ipcRenderer.send(IPC_CHANNELS.ready);
      }
      return () => {
        ipcRenderer.removeListener(IPC_CHANNELS.fromHost, wrapped);
      };
    },
  };
}
