// One sandboxed CPython process running runtime.py (`_serve`), as the CPython REPL drives it:
// its operations one at a time, the host calls and output it sends, its CPU time, how it ended;
// and the spare kept started ahead of the next session (`warmCPython`), which is not yet bound to
// one: its session's address-space limit is set by `setup`, before any of the session's code runs.
import { fileURLToPath } from 'node:url';
import type { Readable, Writable } from 'node:stream';
import { processCpuMs, spawnSandboxed, type SandboxedChild } from '../os-sandbox/bwrap.ts';
import { cpythonEnvironment } from '../os-sandbox/environment.ts';
import { type Frame, readFrames, writeFrame } from './frames.ts';
import type { PythonInstall } from './python-install.ts';

const RUNTIME_PATH = fileURLToPath(new URL('./runtime.py', import.meta.url));
/** Where runtime.py is inside the sandbox, and its compiled form (python-install.ts), which starts without compiling. */
const RUNTIME_INSIDE = '/rlm/runtime.py';
const COMPILED_INSIDE = '/rlm/runtime.pyc';
const MB = 1024 * 1024;
/** Threads, counted by RLIMIT_NPROC (where it counts: not for a host user root). */
const MAX_THREADS = 256;
const MAX_FILE_BYTES = 64 * MB;
const MAX_OPEN_FILES = 256;
const START_TIMEOUT_MS = 30_000;
/** Last characters the interpreter wrote to its own stderr, for the message when it dies. */
const STDERR_TAIL = 2000;

export interface Hooks {
  call(id: number, kind: string, a: string, b: string): void;
  output(stream: number, text: string, dropped: number): void;
  stray(stream: number, text: string): void;
  /** The running block submitted its answer (heard at once, so a block killed later keeps it). */
  submit(text: string): void;
}

const NO_HOOKS: Hooks = { call: () => undefined, output: () => undefined, stray: () => undefined, submit: () => undefined };

/** One sandboxed interpreter: its process, the op in flight, how it ended. */
export class Sandboxed {
  readonly #spawned: SandboxedChild;
  readonly #socket: Readable & Writable;
  /** Who hears the interpreter's calls and output: its REPL, once one has taken it. */
  hooks: Hooks = NO_HOOKS;
  pid: number | null = null;
  /** Why the process is gone, once it is. */
  gone: string | null = null;
  #stderrTail = '';
  #ready: { resolve: () => void; reject: (e: Error) => void } | null = null;
  #started = false;
  /** Operations sent and not yet answered, oldest first: runtime.py answers them in order. */
  readonly #ops: { resolve: (v: string) => void; reject: (e: Error) => void }[] = [];

  constructor(spawned: SandboxedChild) {
    this.#spawned = spawned;
    this.#socket = spawned.fds[0]!;
    void spawned.pid.then((pid) => (this.pid = pid));
    readFrames(
      this.#socket,
      (f) => this.#onFrame(f),
      (why) => this.kill(`sent ${why}`),
    );
    this.#socket.on('error', () => undefined);
    spawned.stdout!.setEncoding('utf8').on('data', (t: string) => this.hooks.stray(0, t));
    spawned.stderr!.setEncoding('utf8').on('data', (t: string) => {
      this.#stderrTail = (this.#stderrTail + t).slice(-STDERR_TAIL);
      this.hooks.stray(1, t);
    });
    this.hold(false);
    spawned.child.on('error', (err) => this.#end(`could not be started (${err.message})`));
    spawned.child.on('exit', (code, signal) => this.#end(signal ? `was killed (${signal})` : `exited with code ${code}`));
  }

  /** Resolves once runtime.py answers; rejects if the process ends first or never answers. */
  ready(): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.gone !== null) return reject(this.#error());
      if (this.#started) return resolve();
      const timer = setTimeout(() => this.kill(`did not start within ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
      this.#ready = {
        resolve: () => (clearTimeout(timer), resolve()),
        reject: (e) => (clearTimeout(timer), reject(e)),
      };
    });
  }

  /** Sends an operation; several may be in flight (a session's setup and contexts go at once). */
  op(op: string, arg: string, body?: Buffer): Promise<string> {
    if (this.gone !== null) return Promise.reject(this.#error());
    return new Promise((resolve, reject) => {
      this.#ops.push({ resolve, reject });
      writeFrame(this.#socket, { t: 'op', op, arg }, body);
    });
  }

  reply(id: number, text: string): void {
    if (this.gone === null) writeFrame(this.#socket, { t: 'reply', id }, Buffer.from(text, 'utf8'));
  }

  cpuMs(): number | null {
    return this.pid === null ? null : processCpuMs(this.pid);
  }

  kill(why: string): void {
    if (this.gone === null) this.#end(why);
    const child = this.#spawned.child;
    // bwrap outlives the interpreter: once it has exited, the pid may be another process's.
    const running = child.exitCode === null && child.signalCode === null;
    child.kill('SIGKILL');
    if (running && this.pid !== null) {
      try {
        process.kill(this.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  /** Whether this process keeps Node's event loop alive: a spare waiting for a session does not. */
  hold(held: boolean): void {
    const handles = [this.#spawned.child, this.#socket, this.#spawned.stdout, this.#spawned.stderr] as unknown as {
      ref(): void;
      unref(): void;
    }[];
    for (const h of handles) {
      if (held) h.ref?.();
      else h.unref?.();
    }
  }

  #onFrame(f: Frame): void {
    const hooks = this.hooks;
    const h = f.header;
    switch (h.t) {
      case 'ready':
        this.#started = true;
        this.#ready?.resolve();
        this.#ready = null;
        break;
      case 'done': {
        const op = this.#ops.shift();
        if (!op) break;
        if (h.ok === true) op.resolve(f.body.toString('utf8'));
        else op.reject(new Error(typeof h.error === 'string' ? h.error : 'the operation failed'));
        break;
      }
      case 'call':
        if (typeof h.id === 'number' && typeof h.kind === 'string') {
          hooks.call(h.id, h.kind, f.body.toString('utf8'), typeof h.b === 'string' ? h.b : '');
        }
        break;
      case 'submit':
        hooks.submit(f.body.toString('utf8'));
        break;
      case 'out':
        hooks.output(
          h.s === 1 ? 1 : 0,
          f.body.toString('utf8'),
          typeof h.dropped === 'number' && Number.isFinite(h.dropped) ? h.dropped : 0,
        );
        break;
      default:
        break;
    }
  }

  #end(why: string): void {
    if (this.gone === null) {
      this.gone = why;
      const err = this.#error();
      this.#ready?.reject(err);
      this.#ready = null;
      for (const op of this.#ops.splice(0)) op.reject(err);
    }
  }

  #error(): Error {
    const said = this.#stderrTail.trim().split('\n').slice(-3).join(' | ');
    return new Error(`the Python process ${this.gone ?? 'is gone'}${said ? `: ${said}` : ''}`);
  }
}

/**
 * Starts runtime.py in the OS sandbox with the interpreter's folders bound and the limits that
 * do not depend on the session set; the session's address space is set by `setup`, before any
 * of its code runs.
 */
function startInterpreter(install: PythonInstall): Sandboxed {
  const userSites = install.readOnly.filter((p) => p.includes('/.local/lib/python'));
  const config = {
    fd: 3,
    import_path: install.importPath,
    site_dirs: userSites,
    limits: {
      RLIMIT_NPROC: MAX_THREADS,
      RLIMIT_FSIZE: MAX_FILE_BYTES,
      RLIMIT_NOFILE: MAX_OPEN_FILES,
      RLIMIT_CORE: 0,
    },
  };
  const files = [{ source: RUNTIME_PATH, dest: RUNTIME_INSIDE }];
  if (install.compiledRuntime) files.push({ source: install.compiledRuntime, dest: COMPILED_INSIDE });
  // -S: no `site` (runtime.py sets the import path it would have made); -E: no PYTHON* variables.
  const program = install.compiledRuntime ? COMPILED_INSIDE : RUNTIME_INSIDE;
  const spawned = spawnSandboxed({
    argv: [install.executable, '-E', '-S', '-B', '-X', 'utf8', program, JSON.stringify(config)],
    readOnly: install.readOnly,
    files,
    env: cpythonEnvironment(),
    extraFds: 1,
  });
  return new Sandboxed(spawned);
}

/** One started interpreter per executable, kept ready for the next session (`warmCPython`). */
const spares = new Map<string, Sandboxed>();
const warm = new Set<string>();

/** An interpreter for a session: the spare when there is one. */
export function takeInterpreter(install: PythonInstall): Sandboxed {
  const spare = spares.get(install.executable);
  spares.delete(install.executable);
  const proc = spare && spare.gone === null ? spare : startInterpreter(install);
  proc.hold(true);
  return proc;
}

/**
 * Starts the next spare, when spares are kept: called once a session has set up the one it
 * took, so the new process's start does not compete with that session's first block.
 */
export function replenishSpare(install: PythonInstall): void {
  if (!warm.has(install.executable)) return;
  const spare = spares.get(install.executable);
  if (!spare || spare.gone !== null) spares.set(install.executable, startInterpreter(install));
}

/** Keeps one interpreter of `install` started ahead of the next session, from now on. */
export function warmCPython(install: PythonInstall): void {
  warm.add(install.executable);
  if (!spares.get(install.executable) || spares.get(install.executable)!.gone !== null) {
    spares.set(install.executable, startInterpreter(install));
  }
}

/**
 * Starts one interpreter of `install` ahead of the next session, once (a command line's `run`,
 * while its first model call is out): not replaced when taken, as `warmCPython`'s spares are.
 */
export function prestartCPython(install: PythonInstall): void {
  const spare = spares.get(install.executable);
  if (!spare || spare.gone !== null) spares.set(install.executable, startInterpreter(install));
}

/** Ends the spares and stops keeping them. */
export function coolCPython(): void {
  warm.clear();
  for (const spare of spares.values()) spare.kill('was not needed');
  spares.clear();
}
