// A HostEndpoint whose host runs in a child process (host-process.ts), restarted if it
// dies. Used by the desktop shell, which runs it in the Node shipped with the app; carriers
// cannot tell it from an in-process Host.
import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { HostMessage } from '../../src-shared/protocol.ts';
import type { ZodType } from 'zod';
import type { HostConnection, HostEndpoint, SessionContext } from '../host/endpoint.ts';
import { answerKeychainRequest } from '../host/key-store.ts';
import { ContextValue, LogFileValue, type LookupReply, LookupReply as LookupReplySchema, type LookupRequest } from './host-lookups.ts';

interface HostChild {
  readonly pid: number | undefined;
  readonly exited: boolean;
  send(message: unknown): void;
  onMessage(listener: (message: unknown) => void): void;
  onExit(listener: (reason: string) => void): void;
  kill(): void;
}

// Beside this module: host-process.ts in the sources, host-process.mjs in the desktop bundle.
const HOST_PROCESS_ENTRY = resolve(import.meta.dirname, import.meta.url.endsWith('.ts') ? 'host-process.ts' : 'host-process.mjs');

/**
 * Starts host-process with `execPath` and the flags isolated-vm needs. spawn with an IPC
 * channel rather than fork: in Electron's main process fork() means "Electron run as Node",
 * which is exactly what must not run a sandbox.
 */
function spawnHostChild(execPath: string, entry: string, env: NodeJS.ProcessEnv): HostChild {
  const child: ChildProcess = spawn(execPath, ['--no-node-snapshot', entry], {
    // Hooks meant for the parent (test runners, debuggers) must not reach the host.
    env: { ...env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exitListeners: ((reason: string) => void)[] = [];
  let exited = false;
  const exit = (reason: string): void => {
    if (exited) return;
    exited = true;
    for (const l of exitListeners) l(reason);
  };
  child.on('exit', (code, signal) => exit(signal ? `was killed (${signal})` : `exited with code ${code}`));
  // A Node that is not there emits 'error' and no 'exit'.
  child.on('error', (err) => {
    if (child.pid === undefined) exit(`could not start ${execPath}: ${err.message}`);
  });
  return {
    get pid() {
      return child.pid;
    },
    get exited() {
      return exited;
    },
    send: (m) => {
      if (child.connected) child.send(m as object);
    },
    onMessage: (l) => void child.on('message', l),
    onExit: (l) => void exitListeners.push(l),
    kill: () => {
      if (child.pid === undefined) exit('did not start');
      else child.kill('SIGKILL');
    },
  };
}

export interface RemoteHostOptions {
  runsDir: string;
  settingsDir: string;
  demoLatencyMs?: number;
  /** The Node that runs the host and, through it, every session worker. Default: this process's. */
  execPath?: string;
  /** The host process's environment; a function is asked again at each restart (keys stored since). */
  env?: NodeJS.ProcessEnv | (() => NodeJS.ProcessEnv);
  /** Called after the host process died and a new one started (sessions in it are gone). */
  onRestart?: (reason: string) => void;
  /** The host process's entry (default host-process.ts beside this file; the bundled app: host-process.mjs). */
  entry?: string;
  /** The session worker's entry, when the host should not use worker.ts beside it. */
  workerEntry?: string;
  /**
   * Keys stored in the OS keychain, by reference, asked at each (re)start. The host gets them
   * in RLM_HOST_KEYS, which it takes out of its environment so its workers never inherit them.
   */
  keys?: () => Record<string, string>;
  /** Stores a key in the OS keychain (throws with a reason): given, `profiles.setKey` works and lands here. */
  setKey?: (ref: string, key: string | null) => void;
}

export class RemoteHost implements HostEndpoint {
  private readonly opts: RemoteHostOptions;
  private child: HostChild | null = null;
  private exited: (() => void) | null = null;
  private nextConn = 1;
  private readonly conns = new Map<number, (m: HostMessage) => void>();
  private stopped = false;
  private restarts: number[] = [];
  private nextLookup = 1;
  /** Lookups sent to the current host process, by `req`; a host that exits fails them. */
  private readonly lookups = new Map<number, (reply: LookupReply) => void>();

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
        keychain: this.opts.setKey ? true : undefined,
      }),
      ...(this.opts.keys ? { RLM_HOST_KEYS: JSON.stringify(this.opts.keys()) } : {}),
    };
    const entry = this.opts.entry ?? HOST_PROCESS_ENTRY;
    const child = spawnHostChild(this.opts.execPath ?? process.execPath, entry, env);
    this.child = child;
    child.onMessage((raw: unknown) => {
      if (this.keychainRequest(raw, child)) return;
      const reply = LookupReplySchema.safeParse(raw);
      if (reply.success) return this.lookups.get(reply.data.req)?.(reply.data);
      if (typeof raw !== 'object' || raw === null || !('c' in raw) || !('m' in raw)) return;
      const { c, m } = raw;
      if (typeof c === 'number') this.conns.get(c)?.(m as HostMessage);
    });
    // Connections opened before a crash are re-opened on the new host.
    for (const c of this.conns.keys()) child.send({ t: 'open', c });
    child.onExit((how) => {
      for (const [req, settle] of this.lookups) settle({ t: 'lookup.result', req, error: `the host process ${how}` });
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

  /** Answers the host's keychain requests; false for anything else. */
  private keychainRequest(raw: unknown, child: HostChild): boolean {
    const reply = answerKeychainRequest(raw, (ref, key) => {
      if (!this.opts.setKey) throw new Error('this host has no keychain');
      this.opts.setKey(ref, key);
    });
    if (reply === null) return false;
    child.send(reply);
    return true;
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

  /** The file a session's events are in, as the host process knows it (the desktop app's /api/log). */
  logFileOf(sessionId: string): Promise<string | null> {
    return this.lookup('logFile', sessionId, LogFileValue);
  }

  /** The context a session ran on, as the host process knows it (the desktop app's /api/context). */
  contextOf(sessionId: string): Promise<SessionContext | null> {
    return this.lookup('context', sessionId, ContextValue);
  }

  private lookup<T>(what: LookupRequest['what'], sessionId: string, value: ZodType<T>): Promise<T> {
    const child = this.child;
    if (!child || child.exited) return Promise.reject(new Error('the host process is not running'));
    const req = this.nextLookup++;
    return new Promise<T>((resolve, reject) => {
      this.lookups.set(req, (reply) => {
        this.lookups.delete(req);
        if (reply.error !== undefined) return reject(new Error(reply.error));
        const v = value.safeParse(reply.value ?? null);
        if (v.success) resolve(v.data);
        else reject(new Error(`the host process answered a ${what} lookup with something else: ${v.error.issues[0]?.message}`));
      });
      const request: LookupRequest = { t: 'lookup', req, what, sessionId };
      child.send(request);
    });
  }

  /** The host process's pid (tests kill it to check the restart). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  async close(): Promise<void> {
    this.stopped = true;
    const child = this.child;
    if (!child || child.exited) return;
    // Killing the host process orphans its workers, which then stop themselves.
    await new Promise<void>((r) => {
      this.exited = r;
      child.kill();
    });
  }
}
