// A HostEndpoint whose host runs in a child process (host-process.ts), restarted if it
// dies. Used by the desktop shell; carriers cannot tell it from an in-process Host.
import { type ChildProcess, fork } from 'node:child_process';
import { resolve } from 'node:path';
import type { HostMessage } from '../../src-shared/protocol.ts';
import type { HostConnection, HostEndpoint } from './connection.ts';

export interface RemoteHostOptions {
  runsDir: string;
  settingsDir: string;
  demoLatencyMs?: number;
  /** The Node (or Electron run as Node) that runs the host. Default: this process's. */
  execPath?: string;
  env?: NodeJS.ProcessEnv;
  /** Called after the host process died and a new one started (sessions in it are gone). */
  onRestart?: (reason: string) => void;
}

export class RemoteHost implements HostEndpoint {
  private readonly opts: RemoteHostOptions;
  private child: ChildProcess | null = null;
  private nextConn = 1;
  private readonly conns = new Map<number, (m: HostMessage) => void>();
  private stopped = false;
  private restarts: number[] = [];

  constructor(opts: RemoteHostOptions) {
    this.opts = opts;
    this.spawn();
  }

  private spawn(): void {
    const child = fork(resolve(import.meta.dirname, 'host-process.ts'), [], {
      execArgv: ['--no-node-snapshot'],
      execPath: this.opts.execPath ?? process.execPath,
      env: {
        ...(this.opts.env ?? process.env),
        RLM_HOST_OPTIONS: JSON.stringify({ runsDir: this.opts.runsDir, settingsDir: this.opts.settingsDir, demoLatencyMs: this.opts.demoLatencyMs }),
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child = child;
    child.on('message', (raw: unknown) => {
      if (typeof raw !== 'object' || raw === null || !('c' in raw) || !('m' in raw)) return;
      const { c, m } = raw as { c: unknown; m: unknown };
      if (typeof c === 'number') this.conns.get(c)?.(m as HostMessage);
    });
    // Connections opened before the crash are re-opened on the new host.
    for (const c of this.conns.keys()) child.send({ t: 'open', c });
    child.on('exit', (code, signal) => {
      if (this.stopped) return;
      const now = Date.now();
      this.restarts = [...this.restarts.filter((t) => now - t < 60_000), now];
      const reason = `the host process ${signal ? `was killed (${signal})` : `exited with code ${code}`}`;
      // A host that dies at once, again and again, is not restarted forever.
      if (this.restarts.length > 5) {
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
      receive: (raw) => {
        if (this.child?.connected) this.child.send({ t: 'msg', c, m: raw });
      },
      close: () => {
        this.conns.delete(c);
        if (this.child?.connected) this.child.send({ t: 'close', c });
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
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((r) => {
      child.once('exit', () => r());
      child.disconnect();
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
  }
}
