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
import { resolve } from 'node:path';
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
import { ISOLATE_LAYERS } from '../../sandbox/layers.ts';
import { jsonSourceOf } from '../../sandbox/json-source.ts';
import { fromWire, toWire, type FromSandbox, type RemoteReplOptions, type ReplOp, type ToSandbox } from './messages.ts';

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

  constructor(entry: string = CHILD_ENTRY) {
    this.#entry = entry;
    this.exited = new Promise((resolve) => (this.#onExit = resolve));
  }

  /** The child's process id, once started. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Starts the child now; idempotent. Otherwise it starts with the first REPL. */
  start(): void {
    if (this.#child || this.#closed) return;
    const child = fork(this.#entry, [], {
      execArgv: ['--no-node-snapshot'],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      // Not this process's API keys or other variables, nor its test-runner or debugger hooks.
      env: withSandboxMalloc(sandboxEnvironment()),
    });
    this.#child = child;
    child.on('message', (m) => this.#onMessage(m as FromSandbox));
    child.on('exit', (code, signal) => {
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
   * memory limit, and the environment it is started with (sandbox-env.ts).
   */
  readonly layers: string[] = [...ISOLATE_LAYERS, 'scrubbed-env'];

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
    const file = this.#nextFile++;
    this.#files.push({ value, file });
    const load: ToSandbox = { t: 'load', file, path, flat };
    if (this.#child) this.#send(load);
    else this.#early.push(load);
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

let shared: SandboxProcess | null = null;

/** The process-wide sandbox process, started on first use. */
export function sharedSandboxProcess(): SandboxProcess {
  shared ??= new SandboxProcess();
  return shared;
}
