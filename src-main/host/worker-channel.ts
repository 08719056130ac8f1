// The worker's side of its channel to the host (see worker-launcher.ts for the host side):
// the fork() IPC channel of a Node child.
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

/** The channel of this process, which the host forked. */
export function connectToHost(): WorkerChannel {
  if (!process.send) throw new Error('the session worker must be started by the host (child_process.fork): it has no IPC channel');
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
