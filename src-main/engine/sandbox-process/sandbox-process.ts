// REPLs in a child Node process, for a process that runs on Node's startup snapshot and so may
// not run isolates itself (sandbox/isolate-host.ts). The command line's `run` and `chat` start
// that way: Node without its snapshot takes ~60 ms longer to start, and the child starts with
// the first REPL, i.e. once the first model call is out (engine/conversation.ts), instead of
// before it; for the Python REPL the command line starts it at once (`start`, `warmPython`:
// cli/python-prefetch.ts), so that call hides its interpreter's ~0.3 s start. Each `Repl` here
// forwards its operations to the child (sandbox-child.ts); the code's sub-calls and tool calls
// come back and are answered by the bridge and tools given to the REPL, in this process. A
// context file this process read is read again by the child (`shareContextFile`) rather than
// copied through the channel; the child lets go of its read once a REPL has the context, and
// reads the file again for a later REPL only if it is unchanged.
import { type ChildProcess, fork } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import type { ReplLanguage } from '../../../src-shared/events.ts';
import type {
  CallSite,
  ExecResult,
  HostFunction,
  Repl,
  ReplOptions,
  SandboxValue,
  SubcallBridge,
  VariableInfo,
} from '../../sandbox/types.ts';
import { withSandboxMalloc } from '../../sandbox/huge-pages.ts';
import { sandboxEnvironment } from '../../sandbox/sandbox-env.ts';
import { replCacheDir } from '../../sandbox/cache-dir.ts';
import { probeOsSandboxSoon } from '../../sandbox/os-sandbox/bwrap.ts';
import { nodeSandboxLayers, nodeSandboxUnavailable, spawnNodeSandboxed } from '../../sandbox/os-sandbox/node-sandbox.ts';
import { ISOLATE_LAYERS } from '../../sandbox/layers.ts';
import { jsonSourceOf } from '../../sandbox/json-source.ts';
import { markPhase } from '../../../src-shared/phase-timing.ts';
import { fromWire, toWire, type FromSandbox, type RemoteReplOptions, type ReplOp, type ToSandbox } from './messages.ts';

const EXEC_ARGV = ['--no-node-snapshot'];

// Beside this module: the source in the sources, the bundle's entry in dist/cli.
const CHILD_ENTRY = resolve(import.meta.dirname, import.meta.url.endsWith('.ts') ? 'sandbox-child.ts' : 'sandbox-child.mjs');

interface ReplFactory {
  (options: ReplOptions): Promise<Repl>;
  layers: readonly string[];
}

interface Local {
  bridge: SubcallBridge;
  tools: Map<string, HostFunction>;
}

/** The sandbox process failed or is gone; every operation of its REPLs rejects with this. */
export class SandboxProcessError extends Error {
  override name = 'SandboxProcessError';
}

export class SandboxProcess {
  readonly #entry: string;
  #child: ChildProcess | null = null;
  /** Why the child is gone, once it is. */
  #gone: string | null = null;
  #closed = false;
  #nextRepl = 0;
  #nextOp = 0;
  #nextFile = 0;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly #locals = new Map<number, Local>();
  /** Values this process read from files the child was asked to read too. */
  readonly #files: { value: SandboxValue; file: number }[] = [];
  /** What to tell the child first, asked for before it started. */
  readonly #early: ToSandbox[] = [];

  /** How the child ended (a code, or the signal that killed it), once it has. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #onExit: (how: { code: number | null; signal: NodeJS.Signals | null }) => void = () => undefined;

  /** Why the child runs without the OS sandbox, or null when it runs inside (node-sandbox.ts). */
  readonly osSandboxUnavailable: string | null;
  readonly #osSandboxed: boolean;
  /** Inside the OS sandbox: the context files the child reads itself, bound read-only at start. */
  readonly #boundFiles: string[] = [];
  #innerPid: number | undefined;
  #pidKnown: Promise<unknown> = Promise.resolve();

  constructor(entry: string = CHILD_ENTRY) {
    this.#entry = entry;
    this.exited = new Promise((resolve) => (this.#onExit = resolve));
    this.osSandboxUnavailable = nodeSandboxUnavailable(entry);
    this.#osSandboxed = this.osSandboxUnavailable === null;
    this.layers = [...ISOLATE_LAYERS, ...(this.#osSandboxed ? nodeSandboxLayers() : []), 'scrubbed-env'];
  }

  /** The child's process id, once started (inside the OS sandbox: Node's, once bwrap has said it; bwrap's until then). */
  get pid(): number | undefined {
    return this.#innerPid ?? this.#child?.pid;
  }

  /** The process id of the Node that runs the REPLs, once started and known (inside the OS sandbox bwrap says it after it started it). */
  async runnerPid(): Promise<number | undefined> {
    await this.#pidKnown;
    return this.pid;
  }

  /** Starts the child now; idempotent. Otherwise it starts with the first REPL. */
  start(): void {
    if (this.#child || this.#closed) return;
    // Not this process's API keys or other variables, nor its test-runner or debugger hooks.
    const env = withSandboxMalloc(sandboxEnvironment());
    let child: ChildProcess;
    if (this.#osSandboxed) {
      const spawned = spawnNodeSandboxed({ entry: this.#entry, execArgv: EXEC_ARGV, env, files: this.#boundFiles, cache: replCacheDir() });
      child = spawned.child;
      this.#pidKnown = spawned.pid.then((pid) => (this.#innerPid = pid ?? undefined));
    } else {
      child = fork(this.#entry, [], { execArgv: EXEC_ARGV, serialization: 'advanced', stdio: ['ignore', 'ignore', 'inherit', 'ipc'], env });
    }
    this.#child = child;
    markPhase('sandbox process spawned');
    child.on('message', (m) => this.#onMessage(m as FromSandbox));
    child.on('exit', (exitCode, exitSignal) => {
      const { code, signal } = this.#osSandboxed ? programEnd(exitCode, exitSignal) : { code: exitCode, signal: exitSignal };
      this.#lost(signal ? `was killed (${signal})` : `exited with code ${code}`);
      this.#onExit({ code, signal });
    });
    child.on('error', (err) => this.#lost(`failed: ${err.message}`));
    // Neither the process nor its channel keeps this one alive unless a REPL is open (#hold).
    child.unref();
    for (const m of this.#early.splice(0)) this.#send(m);
    this.#hold();
  }

  /**
   * What protects the code in the child's REPLs (run.start's `sandbox`): the isolate and its
   * memory limit, the OS sandbox where it runs in one, and the environment it is started with
   * (sandbox-env.ts).
   */
  readonly layers: string[];

  /** REPLs of a language in the child. */
  replFactory(language: ReplLanguage): ReplFactory {
    return Object.assign(
      async (options: ReplOptions) => new ProcessRepl(this, language, options, language === 'python' ? await parameterNames(options) : {}),
      { layers: this.layers },
    );
  }

  /**
   * The child reads `path` too (once started); a REPL given exactly `value` as a context gets
   * the child's copy instead of one sent over. `flat`: read for a Python REPL (ContextFileOptions).
   */
  shareContextFile(path: string, value: SandboxValue, flat = false): void {
    // The child's folder is not this one's (inside the OS sandbox it is /tmp).
    path = resolve(path);
    // Bound at start; a file named later cannot be, and its value goes over the channel.
    if (!this.canShareContextFile(path)) return;
    this.bindFile(path);
    const file = this.#nextFile++;
    this.#files.push({ value, file });
    const load: ToSandbox = { t: 'load', file, path, flat };
    if (this.#child) this.#send(load);
    else this.#early.push(load);
  }

  /**
   * Whether the child can read `path` itself: always outside the OS sandbox; inside it only a
   * file bound before the child started (a caller holding only a description of the file must
   * then read it and send its value instead).
   */
  canShareContextFile(path: string): boolean {
    return !this.#osSandboxed || this.#child === null || this.#boundFiles.includes(resolve(path));
  }

  /** Makes `path` readable inside the OS sandbox, when the child has not started yet. */
  bindFile(path: string): void {
    path = resolve(path);
    if (this.#osSandboxed && this.#child === null && !this.#boundFiles.includes(path)) this.#boundFiles.push(path);
  }

  /** Loads Python in the child ahead of its first REPL (once started). */
  warmPython(): void {
    if (this.#child) this.#send({ t: 'warm-python' });
    else this.#early.push({ t: 'warm-python' });
  }

  /** Lets the child go (it exits when its channel closes); REPLs still open reject from now on. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#child?.connected) this.#child.disconnect();
    // Inside the OS sandbox the child is pid 1 of its namespace, which cannot kill itself when
    // its channel closes (sandbox-child.ts): bwrap is killed, and the child with it (--die-with-parent).
    if (this.#osSandboxed) this.#child?.kill('SIGKILL');
    this.#lost('was closed');
  }

  /** @internal for ProcessRepl */
  open(language: ReplLanguage, options: ReplOptions, toolParameters: Record<string, string[]>): number {
    const repl = this.#nextRepl++;
    const tools = new Map<string, HostFunction>();
    const remote: RemoteReplOptions = { ...options, toolValues: {}, toolFunctions: [], toolParameters };
    delete (remote as Partial<ReplOptions>).bridge;
    delete (remote as Partial<ReplOptions>).tools;
    for (const [name, tool] of Object.entries(options.tools ?? {})) {
      if (typeof tool === 'function') {
        tools.set(name, tool);
        remote.toolFunctions.push(name);
      } else remote.toolValues[name] = tool;
    }
    this.#locals.set(repl, { bridge: options.bridge, tools });
    this.start();
    this.#send({ t: 'open', repl, language, options: remote });
    this.#hold();
    return repl;
  }

  /** @internal for ProcessRepl */
  request(repl: number, op: ReplOp): Promise<unknown> {
    if (op.op === 'addContext') {
      // Compared by identity first: the context this process read is the same string or array.
      const value = op.value;
      const shared = this.#files.find((f) => f.value === value);
      if (shared) op = { op: 'addContextFile', index: op.index, file: shared.file };
    }
    if (this.#gone !== null) return Promise.reject(new SandboxProcessError(`the sandbox process ${this.#gone}`));
    const id = this.#nextOp++;
    markPhase(`sandbox op ${id} (${op.op}) sent`);
    const reply = new Promise<unknown>((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    this.#send({ t: 'op', id, repl, ...op });
    this.#hold();
    return reply;
  }

  /** @internal for ProcessRepl */
  dispose(repl: number): void {
    if (!this.#locals.delete(repl)) return;
    this.#send({ t: 'dispose', repl });
    this.#hold();
  }

  #send(m: ToSandbox): void {
    this.start();
    if (this.#child?.connected) this.#child.send(m);
  }

  /** Keeps this process alive while it waits for the child, and only then. */
  #hold(): void {
    const child = this.#child as (ChildProcess & { channel?: { ref(): void; unref(): void } }) | null;
    if (!child?.channel) return;
    if (this.#locals.size > 0 || this.#pending.size > 0) child.channel.ref();
    else child.channel.unref();
  }

  #onMessage(m: FromSandbox): void {
    switch (m.t) {
      case 'done':
      case 'failed': {
        const p = this.#pending.get(m.id);
        this.#pending.delete(m.id);
        markPhase(`sandbox op ${m.id} ${m.t}`);
        if (m.t === 'done') p?.resolve(m.value);
        else p?.reject(fromWire(m.error));
        this.#hold();
        break;
      }
      case 'subcall':
        void this.#subcall(m);
        break;
      case 'tool':
        void this.#tool(m);
        break;
      case 'submitted':
        this.#locals.get(m.repl)?.bridge.submitted?.(m.text, m.site);
        break;
      case 'snapshot':
        void saveSnapshotFor(m.path, m.image, this.#osSandboxed);
        break;
    }
  }

  async #subcall(m: Extract<FromSandbox, { t: 'subcall' }>): Promise<void> {
    const bridge = this.#locals.get(m.repl)?.bridge;
    const one = typeof m.prompt === 'string' ? m.prompt : '';
    const many = typeof m.prompt === 'string' ? [m.prompt] : m.prompt;
    try {
      if (!bridge) throw new Error('the REPL is closed');
      let value: SandboxValue;
      if (m.name === 'llmQuery') value = await bridge.llmQuery(one, m.model, m.site);
      else if (m.name === 'rlmQuery') value = await bridge.rlmQuery(one, m.model, m.site);
      else if (m.name === 'llmQueryBatched') value = await bridge.llmQueryBatched(many, m.model, m.site);
      else value = await bridge.rlmQueryBatched(many, m.model, m.site);
      this.#send({ t: 'answer', id: m.id, value });
    } catch (err) {
      // The bridge promises never to reject; if it does, the code still gets an answer (host-calls.ts).
      this.#send({ t: 'answer-error', id: m.id, error: toWire(err) });
    }
  }

  async #tool(m: Extract<FromSandbox, { t: 'tool' }>): Promise<void> {
    const fn = this.#locals.get(m.repl)?.tools.get(m.name);
    try {
      if (!fn) throw new Error(`no tool ${m.name}`);
      this.#send({ t: 'answer', id: m.id, value: await fn(...m.args) });
    } catch (err) {
      this.#send({ t: 'answer-error', id: m.id, error: toWire(err) });
    }
  }

  #lost(how: string): void {
    if (this.#gone !== null) return;
    this.#gone = how;
    const err = new SandboxProcessError(`the sandbox process ${how}`);
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
  }
}

/** A REPL in the sandbox process; the same contract as the in-process ones. */
class ProcessRepl implements Repl {
  readonly #process: SandboxProcess;
  readonly #id: number;

  constructor(process: SandboxProcess, language: ReplLanguage, options: ReplOptions, toolParameters: Record<string, string[]>) {
    this.#process = process;
    this.#id = process.open(language, options, toolParameters);
  }

  async addContext(index: number, value: SandboxValue): Promise<void> {
    const json = jsonSourceOf(value);
    await this.#process.request(this.#id, json === undefined ? { op: 'addContext', index, value } : { op: 'addJsonContext', index, json });
  }

  async addHistory(index: number, messages: SandboxValue): Promise<void> {
    await this.#process.request(this.#id, { op: 'addHistory', index, messages });
  }

  async appendHistory(messages: SandboxValue[]): Promise<void> {
    await this.#process.request(this.#id, { op: 'appendHistory', messages });
  }

  async execute(code: string, site: CallSite): Promise<ExecResult> {
    return (await this.#process.request(this.#id, { op: 'execute', code, site })) as ExecResult;
  }

  async listVariables(): Promise<VariableInfo[]> {
    return (await this.#process.request(this.#id, { op: 'listVariables' })) as VariableInfo[];
  }

  dispose(): void {
    this.#process.dispose(this.#id);
  }
}

/**
 * The parameter names of the callable tools, read here where the functions are: the child
 * calls them through stand-ins, and Python's keyword arguments are placed by these names.
 */
async function parameterNames(options: ReplOptions): Promise<Record<string, string[]>> {
  const fns = Object.entries(options.tools ?? {}).filter((e): e is [string, HostFunction] => typeof e[1] === 'function');
  if (fns.length === 0) return {};
  // Only then: the parser is not loaded for a run without tools.
  const { toolParameterNames } = await import('../../sandbox/python/tool-arguments.ts');
  const names: Record<string, string[]> = {};
  for (const [name, fn] of fns) {
    const params = toolParameterNames(fn);
    if (params) names[name] = params;
  }
  return names;
}

/**
 * How the program inside bwrap ended: bwrap (as the monitor of a pid-1 program) exits with
 * 128 + the signal that killed it; its own death by a signal is the program's too.
 */
function programEnd(code: number | null, signal: NodeJS.Signals | null): { code: number | null; signal: NodeJS.Signals | null } {
  if (signal !== null || code === null || code <= 128) return { code, signal };
  const name = Object.entries(osConstants.signals).find(([, n]) => n === code - 128)?.[0] as NodeJS.Signals | undefined;
  return name ? { code: null, signal: name } : { code, signal };
}

/** Saves a snapshot the sandboxed child made, only as a snapshot file in the REPLs' cache folder. */
async function saveSnapshotFor(path: string, image: Uint8Array, sandboxed: boolean): Promise<void> {
  if (!sandboxed || !(image instanceof Uint8Array)) return;
  const { isSnapshotName, writeSnapshot } = await import('../../sandbox/python/snapshot-cache.ts');
  if (dirname(path) !== replCacheDir() || !isSnapshotName(basename(path))) return;
  await writeSnapshot(path, image).catch(() => undefined);
}

let shared: SandboxProcess | null = null;

/** The process-wide sandbox process, started on first use. */
export function sharedSandboxProcess(): SandboxProcess {
  shared ??= new SandboxProcess();
  return shared;
}

/**
 * The same, once the OS sandbox's probe has answered: made before, its constructor would wait
 * for bwrap with spawnSync. `run` and `chat` start the probe at launch (cli/main.ts), so it has
 * usually answered by now.
 */
export async function sharedSandboxProcessProbed(): Promise<SandboxProcess> {
  await probeOsSandboxSoon();
  return sharedSandboxProcess();
}
