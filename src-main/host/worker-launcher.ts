// How the host gets a session worker process. One interface, two implementations:
// - `forkLauncher`: child_process.fork under Node (web mode, tests, the CLI).
// - `brokeredLauncher`: the desktop host runs in an Electron utility process, where
//   child_process.fork needs ELECTRON_RUN_AS_NODE, which the packaged app's `runAsNode: false`
//   fuse disables (and newer Electron makes fork throw there). Only the main process can
//   start utility processes, so the host asks it to (`worker.spawn`), and the main process
//   hands the host one end of a MessageChannel whose other end went to the new worker.
//   Host ⇄ worker traffic then flows directly over that port, not through the main process.
// The worker entry (worker.ts) is the same for both; see worker-channel.ts for its side.
import { type ChildProcess, fork } from 'node:child_process';
import { resolve } from 'node:path';
import { BrokerToHost, type HostToBroker } from './broker-protocol.ts';
import type { ToWorker } from './worker-protocol.ts';

const WORKER_ENTRY = resolve(import.meta.dirname, 'worker.ts');

interface WorkerListeners {
  message(raw: unknown): void;
  stderr(text: string): void;
  /** Once, with how it ended in words ("exited with code 1", "was killed (SIGKILL)"). */
  exit(how: string): void;
}

export interface WorkerHandle {
  readonly pid: number | undefined;
  /** Messages can be sent (the channel is open and the process has not exited). */
  readonly connected: boolean;
  readonly exited: boolean;
  send(message: ToWorker): void;
  /** Replaces the listeners (a booted spare is handed from the pool to a session). */
  listen(listeners: WorkerListeners): void;
  /** Kills it the hard way: a worker stuck in native code answers nothing else. */
  kill(): void;
  /** Resolves after the process has exited. */
  whenExited(): Promise<void>;
}

export interface WorkerLauncher {
  launch(): WorkerHandle;
}

const NO_LISTENERS: WorkerListeners = { message: () => {}, stderr: () => {}, exit: () => {} };

/** Web mode: a Node child with the flags isolated-vm needs, talking over the fork() channel. */
export function forkLauncher(entry: string = WORKER_ENTRY): WorkerLauncher {
  return {
    launch(): WorkerHandle {
      const child: ChildProcess = fork(entry, [], {
        execArgv: ['--no-node-snapshot'],
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        // The worker must not inherit test-runner or debugger hooks meant for the host.
        env: { ...process.env, NODE_OPTIONS: '' },
      });
      let l = NO_LISTENERS;
      let exited = false;
      let exitReported = false;
      const exitedP = new Promise<void>((r) => child.once('exit', () => r()));
      const reportExit = (how: string): void => {
        exited = true;
        if (exitReported) return;
        exitReported = true;
        l.exit(how);
      };
      child.stderr?.setEncoding('utf8').on('data', (d: string) => l.stderr(d));
      child.on('message', (m: unknown) => l.message(m));
      child.on('exit', (code, signal) => reportExit(signal ? `was killed (${signal})` : `exited with code ${code}`));
      child.on('error', (err) => {
        // A failed spawn emits 'error' and maybe no 'exit'.
        if (child.pid === undefined) reportExit(`could not start: ${err.message}`);
      });
      return {
        get pid() {
          return child.pid;
        },
        get connected() {
          return child.connected && !exited;
        },
        get exited() {
          return exited || child.exitCode !== null || child.signalCode !== null;
        },
        send: (m) => {
          if (child.connected) child.send(m);
        },
        listen: (next) => void (l = next),
        kill: () => void child.kill('SIGKILL'),
        whenExited: () => (child.pid === undefined ? Promise.resolve() : exitedP),
      };
    },
  };
}

/** The main-process end of Electron's MessagePortMain, as the host process sees it. */
export interface PortLike {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (e: { data: unknown }) => void): unknown;
  on(event: 'close', listener: () => void): unknown;
  start(): void;
  close(): void;
}

/** `process.parentPort` of an Electron utility process. */
export interface ParentPortLike {
  on(event: 'message', listener: (e: { data: unknown; ports: readonly PortLike[] }) => void): unknown;
  postMessage(message: unknown): void;
}

/**
 * Desktop: workers are utility processes started by the main process on request. The
 * returned `handle` routes the main process's replies (call it for every parentPort
 * message; it returns false for messages that are not about workers).
 */
export function brokeredLauncher(
  post: (m: HostToBroker) => void,
): WorkerLauncher & { handle(data: unknown, ports: readonly PortLike[]): boolean } {
  let nextId = 1;
  const workers = new Map<
    number,
    { port: PortLike | null; queue: ToWorker[]; l: WorkerListeners; exited: boolean; pid: number | undefined; onExit: (() => void)[] }
  >();
  return {
    handle(data, ports) {
      const parsed = BrokerToHost.safeParse(data);
      if (!parsed.success) return false;
      const m = parsed.data;
      if (m.t === 'keys.result') return false;
      const w = workers.get(m.id);
      if (!w) return true;
      switch (m.t) {
        case 'worker.port': {
          const port = ports[0];
          if (!port) return true;
          w.port = port;
          w.pid = m.pid;
          port.on('message', (e) => w.l.message(e.data));
          port.start();
          for (const q of w.queue.splice(0)) port.postMessage(q);
          return true;
        }
        case 'worker.stderr':
          w.l.stderr(m.text);
          return true;
        case 'worker.exit':
          w.exited = true;
          w.port?.close();
          workers.delete(m.id);
          w.l.exit(m.how);
          for (const r of w.onExit.splice(0)) r();
          return true;
      }
    },
    launch(): WorkerHandle {
      const id = nextId++;
      const w = {
        port: null as PortLike | null,
        queue: [] as ToWorker[],
        l: NO_LISTENERS,
        exited: false,
        pid: undefined as number | undefined,
        onExit: [] as (() => void)[],
      };
      workers.set(id, w);
      post({ t: 'worker.spawn', id });
      return {
        get pid() {
          return w.pid;
        },
        // Messages sent before the port arrives are queued, so a booting worker is "connected".
        get connected() {
          return !w.exited;
        },
        get exited() {
          return w.exited;
        },
        send: (m) => {
          if (w.exited) return;
          if (w.port) w.port.postMessage(m);
          else w.queue.push(m);
        },
        listen: (next) => void (w.l = next),
        kill: () => {
          if (!w.exited) post({ t: 'worker.kill', id });
        },
        whenExited: () => (w.exited ? Promise.resolve() : new Promise<void>((r) => w.onExit.push(r))),
      };
    },
  };
}
