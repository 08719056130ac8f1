// How the host gets a session worker process: child_process.fork of the Node running the
// host, with the flags isolated-vm needs. The host always runs in the project's own Node 24
// (web mode, the CLI, and the desktop app, whose shell starts the host in the Node shipped
// with it: see ../electron/session-node.ts), never in an Electron process, so a worker is
// never an Electron process either. An interface so tests can record or replace workers.
import { type ChildProcess, fork } from 'node:child_process';
import { resolve } from 'node:path';
import { withSandboxMalloc } from '../sandbox/huge-pages.ts';
import { networkVariables, sandboxEnvironment } from '../sandbox/sandbox-env.ts';
import type { ToWorker } from './worker-protocol.ts';

// Beside this module: worker.ts in the sources, worker.mjs in a bundle (dist/cli, dist/electron).
const WORKER_ENTRY = resolve(import.meta.dirname, import.meta.url.endsWith('.ts') ? 'worker.ts' : 'worker.mjs');

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

/** A Node child of this Node, with the flags isolated-vm needs, talking over the fork() channel. */
export function forkLauncher(entry: string = WORKER_ENTRY): WorkerLauncher {
  return {
    launch(): WorkerHandle {
      const child: ChildProcess = fork(entry, [], {
        execArgv: ['--no-node-snapshot'],
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        // The worker runs model code: none of the host's variables (API keys come over the
        // channel, for the session that needs them), nor test-runner or debugger hooks.
        env: withSandboxMalloc(sandboxEnvironment(process.env, networkVariables(process.env))),
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
