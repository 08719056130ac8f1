// The worker's side of its channel to the host (see worker-launcher.ts for the host side).
// Forked by Node: the fork() IPC channel. Started by Electron as a utility process: the
// first parentPort message carries a MessagePort whose other end the host holds; the
// parentPort itself (to the main process) carries nothing else.
import type { PortLike } from './worker-launcher.ts';

export interface WorkerChannel {
  send(message: unknown): void;
  /** Resolves once the message is handed to the channel, so nothing is lost on exit. */
  sendAndWait(message: unknown): Promise<void>;
  onMessage(listener: (raw: unknown) => void): void;
  /** The host is gone (its end closed). */
  onDisconnect(listener: () => void): void;
  /** Closes our end; after a finished run this lets the process end. */
  disconnect(): void;
}

interface UtilityParentPort {
  once(event: 'message', listener: (e: { data: unknown; ports: readonly PortLike[] }) => void): unknown;
}

function processChannel(): WorkerChannel {
  return {
    // After the host is gone a send would throw, and an error on the way out can leave the
    // process hung in exit.
    send: (m) => {
      if (process.connected) process.send?.(m);
    },
    sendAndWait: (m) =>
      new Promise((resolve) => {
        if (!process.send || !process.connected) return resolve();
        process.send(m, undefined, {}, () => resolve());
      }),
    onMessage: (l) => void process.on('message', l),
    onDisconnect: (l) => void process.on('disconnect', l),
    disconnect: () => process.disconnect?.(),
  };
}

function portChannel(port: PortLike): WorkerChannel {
  let open = true;
  const closers: (() => void)[] = [];
  port.on('close', () => {
    if (!open) return;
    open = false;
    for (const c of closers) c();
  });
  return {
    send: (m) => {
      if (open) port.postMessage(m);
    },
    // A posted message is queued in the pipe and delivered even if our end closes after.
    sendAndWait: async (m) => {
      if (open) port.postMessage(m);
    },
    onMessage: (l) => {
      port.on('message', (e) => l(e.data));
      port.start();
    },
    onDisconnect: (l) => void closers.push(l),
    disconnect: () => {
      open = false;
      port.close();
      // A utility process does not end by itself when its port closes.
      setImmediate(() => process.exit(0));
    },
  };
}

/** The channel of this process: a utility process waits for its port first. */
export async function connectToHost(): Promise<WorkerChannel> {
  const parentPort = (process as unknown as { parentPort?: UtilityParentPort }).parentPort;
  if (!parentPort) return processChannel();
  const port = await new Promise<PortLike>((resolve) => {
    const wait = (): void =>
      void parentPort.once('message', (e) => {
        const p = e.ports[0];
        if (p) resolve(p);
        else wait();
      });
    wait();
  });
  return portChannel(port);
}
