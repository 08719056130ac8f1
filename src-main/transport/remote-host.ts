// A HostEndpoint whose host runs in a child process (host-process.ts), restarted if it
// dies. Used by the desktop shell; carriers cannot tell it from an in-process Host.
import { type ChildProcess, fork } from 'node:child_process';
import { resolve } from 'node:path';
import type { HostMessage } from '../../src-shared/protocol.ts';
import type { HostConnection, HostEndpoint } from '../host/endpoint.ts';

/** The little a supervisor needs of a process: fork() and Electron's utilityProcess both fit. */
export interface HostChild {
  readonly pid: number | undefined;
  send(message: unknown): void;
  onMessage(listener: (message: unknown) => void): void;
  onExit(listener: (reason: string) => void): void;
  kill(): void;
}

const HOST_PROCESS_ENTRY = resolve(import.meta.dirname, 'host-process.ts');

/** Starts host-process.ts with child_process.fork. */
function forkHostChild(entry: string, env: NodeJS.ProcessEnv, execPath?: string): HostChild {
  const child: ChildProcess = fork(entry, [], {
    execArgv: ['--no-node-snapshot'],
    execPath: execPath ?? process.execPath,
    env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return {
    get pid() {
      return child.pid;
    },
    send: (m) => {
      if (child.connected) child.send(m as object);
    },
    onMessage: (l) => void child.on('message', l),
    onExit: (l) => void child.on('exit', (code, signal) => l(signal ? `was killed (${signal})` : `exited with code ${code}`)),
    kill: () => void child.kill('SIGKILL'),
  };
}

export interface RemoteHostOptions {
  runsDir: string;
  settingsDir: string;
  demoLatencyMs?: number;
  /** The Node (or Electron run as Node) that runs the host. Default: this process's. */
  execPath?: string;
  /** The host process's environment; a function is asked again at each restart (keys stored since). */
  env?: NodeJS.ProcessEnv | (() => NodeJS.ProcessEnv);
  /** Called after the host process died and a new one started (sessions in it are gone). */
  onRestart?: (reason: string) => void;
  /** How to start the process (default: fork). The desktop shell passes utilityProcess. */
  launch?: (entry: string, env: NodeJS.ProcessEnv) => HostChild;
  /** The host process's entry (default host-process.ts beside this file; the bundled app: host-process.mjs). */
  entry?: string;
  /** The session worker's entry, when a forked host should not use worker.ts beside it. */
  workerEntry?: string;
}

export class RemoteHost implements HostEndpoint {
  private readonly opts: RemoteHostOptions;
  private child: HostChild | null = null;
  private exited: (() => void) | null = null;
  private nextConn = 1;
  private readonly conns = new Map<number, (m: HostMessage) => void>();
  private stopped = false;
  private restarts: number[] = [];

  constructor(opts: RemoteHostOptions) {
    this.opts = opts;
    this.spawn();
  }

  private spawn(): void {
    const env: NodeJS.ProcessEnv = {
      ...(typeof this.opts.env === 'function' ? this.opts.env() : (this.opts.env ?? process.env)),
      RLM_HOST_OPTIONS: JSON.stringify({
        runsDir: this.opts.runsDir,
        settingsDir: this.opts.settingsDir,
        demoLatencyMs: this.opts.demoLatencyMs,
        workerEntry: this.opts.workerEntry,
      }),
    };
    const entry = this.opts.entry ?? HOST_PROCESS_ENTRY;
    const child = this.opts.launch ? this.opts.launch(entry, env) : forkHostChild(entry, env, this.opts.execPath);
    this.child = child;
    child.onMessage((raw: unknown) => {
      if (typeof raw !== 'object' || raw === null || !('c' in raw) || !('m' in raw)) return;
      const { c, m } = raw as { c: unknown; m: unknown };
      if (typeof c === 'number') this.conns.get(c)?.(m as HostMessage);
    });
    // Connections opened before a crash are re-opened on the new host.
    for (const c of this.conns.keys()) child.send({ t: 'open', c });
    child.onExit((how) => {
      this.exited?.();
      if (this.stopped) return;
      const now = Date.now();
      this.restarts = [...this.restarts.filter((t) => now - t < 60_000), now];
      const reason = `the host process ${how}`;
      // A host that dies at once, again and again, is not restarted forever.
      if (this.restarts.length > 5) {
        this.child = null;
        this.opts.onRestart?.(`${reason}; restarted too often, giving up`);
        return;
      }
      this.spawn();
      this.opts.onRestart?.(reason);
    });
  }

  connect(send: (m: HostMessage) => void): HostConnection {
    const c = this.nextConn++;
    this.conns.set(c, send);
    this.child?.send({ t: 'open', c });
    return {
      receive: (raw) => this.child?.send({ t: 'msg', c, m: raw }),
      close: () => {
        this.conns.delete(c);
        this.child?.send({ t: 'close', c });
      },
    };
  }

  /** The host process's pid (tests kill it to check the restart). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  async close(): Promise<void> {
    this.stopped = true;
    const child = this.child;
    if (!child) return;
    // Killing the host process orphans its workers, which then stop themselves.
    await new Promise<void>((r) => {
      this.exited = r;
      child.kill();
    });
  }
}
