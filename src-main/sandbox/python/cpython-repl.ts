// The CPython REPL (`--repl cpython`): the machine's own CPython, running runtime.py (the same
// Python runtime as the Pyodide REPL, so the same names and semantics) inside the OS sandbox
// (../os-sandbox/), behind the same `Repl` interface and limits as the other REPLs. Operations and
// host calls cross a socket (frames.ts); several host calls may be in flight at once, from the
// code's own threads. Past a limit the process is killed and a fresh one loaded with every
// context, as the other REPLs replace their isolates. No isolated-vm here: this REPL runs in any
// process, the command line's included.
import { appendOutput, BlockRunner, disposedBlockResult, idleHostCallAnswer, submitAnswer } from '../block-runner.ts';
import { OUR_REPL_TEXTS, type ReplTexts } from '../../../src-shared/repl-texts.ts';
import { dispatchHostCall, errorMessage } from '../host-calls.ts';
import { jsonTextOf } from '../json-source.ts';
import { checkIndex, parseListed, replLimits, type ReplLimits, SerialQueue } from '../repl-support.ts';
import type { CallSite, ExecResult, FinalVarRules, Repl, ReplOptions, SandboxValue, SubcallBridge, VariableInfo } from '../types.ts';
import type { CpuMeter } from '../watchdog.ts';
import {
  callPythonTool,
  finishedBlockResult,
  parseOutcome,
  pythonResetTerms,
  pythonRuntimeConfig,
  pythonTools,
  type PythonTools,
  SIMPLE_TYPES,
} from './python-block.ts';
import { osSandboxSupport } from '../os-sandbox/bwrap.ts';
import { replenishSpare, type Sandboxed, takeInterpreter } from './cpython-process.ts';
import { findPython, type PythonInstall } from './python-install.ts';

export const CPYTHON_DEFAULTS = {
  memoryLimitMb: 512,
  cpuLimitMs: 10_000,
  wallLimitMs: 60_000,
  outputCapChars: 1_000_000,
} as const;

export interface CPythonReplOptions extends ReplOptions {
  /** The interpreter (`python3` on PATH by default), CPython 3.10 or newer. */
  python?: string;
}

const MB = 1024 * 1024;
/** Address space the interpreter, its libraries (numpy's included) and its threads reserve beyond what the code allocates. */
const BASE_ADDRESS_SPACE = 320 * MB;

interface LoadedContext {
  json: boolean;
  text: string;
}

class CPythonRepl implements Repl {
  readonly #bridge: SubcallBridge;
  readonly #tools: PythonTools;
  readonly #python: string;
  readonly #contexts = new Map<number, LoadedContext>();
  readonly #histories = new Map<number, string>();
  readonly #historyAppends: string[] = [];
  readonly #limits: ReplLimits;
  readonly #finalVar: FinalVarRules | null;
  readonly #texts: ReplTexts;
  readonly #compaction: boolean;
  #install: PythonInstall | null = null;
  #proc: Sandboxed | null = null;
  /** Blocks run by the current process: a process that ran none is replaced without a word. */
  #blocksRun = 0;
  #callsInFlight = 0;
  readonly #queue = new SerialQueue(() => this.#disposed);
  readonly #runner: BlockRunner;
  #disposed = false;

  constructor(options: CPythonReplOptions) {
    this.#bridge = options.bridge;
    this.#limits = replLimits(options, CPYTHON_DEFAULTS);
    this.#finalVar = options.finalVar ?? null;
    this.#texts = options.texts ?? OUR_REPL_TEXTS.python;
    this.#compaction = options.compaction === true;
    this.#python = options.python ?? 'python3';
    this.#tools = pythonTools(options.tools ?? {});
    this.#runner = new BlockRunner(this.#limits, () => this.#disposed);
  }

  addContext(index: number, value: SandboxValue): Promise<void> {
    checkIndex(index);
    return this.#queue.run(async () => {
      const json = typeof value !== 'string';
      this.#contexts.set(index, { json, text: json ? jsonTextOf(value) : value });
      const proc = this.#live();
      // Loaded when the process starts (at the first block), with the address space it needs.
      if (!proc) return;
      await this.#loadOrReplace(`context_${index}`, () => this.#loadContext(proc, index));
    });
  }

  addHistory(index: number, messages: SandboxValue): Promise<void> {
    checkIndex(index);
    return this.#queue.run(async () => {
      const json = JSON.stringify(messages);
      this.#histories.set(index, json);
      const proc = this.#live();
      if (!proc) return;
      await this.#loadOrReplace(`history_${index}`, () => proc.op('set', `history_${index}`, Buffer.from(json, 'utf8')));
    });
  }

  appendHistory(messages: SandboxValue[]): Promise<void> {
    return this.#queue.run(async () => {
      const json = JSON.stringify(messages);
      this.#historyAppends.push(json);
      const proc = this.#live();
      if (!proc) return;
      await this.#loadOrReplace('history', () => proc.op('history', '', Buffer.from(json, 'utf8')));
    });
  }

  execute(code: string, site: CallSite): Promise<ExecResult> {
    return this.#queue.run(() => this.#execute(code, site));
  }

  listVariables(): Promise<VariableInfo[]> {
    return this.#queue.run(async () => {
      const proc = this.#live();
      if (!proc) return [];
      try {
        return parseListed(await proc.op('list', ''));
      } catch {
        return [];
      }
    });
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#proc?.kill('was disposed');
    this.#proc = null;
    this.#contexts.clear();
    this.#histories.clear();
    this.#historyAppends.length = 0;
  }

  // ---- internals ------------------------------------------------------------------------------

  #live(): Sandboxed | null {
    return this.#proc && this.#proc.gone === null ? this.#proc : null;
  }

  /** The address space the interpreter may use: its own, the limit, and room for every loaded value. */
  #wantedAddressSpace(): number {
    let bytes = 0;
    // The bytes sent, the bytes read and the str (or parsed JSON, several times its text) at once.
    for (const c of this.#contexts.values()) bytes += Buffer.byteLength(c.text, 'utf8') * (c.json ? 8 : 4);
    for (const h of this.#histories.values()) bytes += h.length * 8;
    for (const h of this.#historyAppends) bytes += h.length * 8;
    return BASE_ADDRESS_SPACE + this.#limits.memoryLimitMb * MB + bytes;
  }

  /**
   * Loads a value into a running interpreter. Its address-space limit is fixed when it starts
   * (the code cannot raise it), with room for the values known then: a value that no longer
   * fits makes it replaced by one with room for everything, as the JavaScript REPL replaces an
   * isolate, and the next block is told its variables are gone.
   */
  async #loadOrReplace(what: string, load: () => Promise<unknown>): Promise<void> {
    try {
      await load();
    } catch (err) {
      if (!/MemoryError|does not fit/.test(errorMessage(err))) throw err;
      this.#replace(what);
    }
  }

  #replace(what: string): void {
    const proc = this.#proc;
    this.#proc = null;
    proc?.kill('was replaced');
    if (this.#blocksRun > 0) this.#runner.noteReset({ reason: 'memory_limit', note: `loading ${what} needed a new interpreter` });
    this.#blocksRun = 0;
  }

  async #ensure(): Promise<Sandboxed> {
    if (this.#disposed) throw new Error('The REPL has been disposed.');
    const live = this.#live();
    if (live) return live;
    // It ended between blocks (killed from outside, or by a thread of the code's own): the
    // next block is told its variables are gone.
    const ended = this.#proc;
    if (ended && this.#blocksRun > 0 && !this.#runner.resetPending) {
      this.#runner.noteReset({ reason: 'crash', note: `the Python interpreter had ended (it ${ended.gone ?? 'was gone'})` });
    }
    this.#proc = null;
    this.#blocksRun = 0;
    this.#install ??= await findPython(this.#python);
    const addressSpace = this.#wantedAddressSpace();
    const proc = takeInterpreter(this.#install);
    const current = () => (this.#proc === proc ? this.#runner.block : null);
    proc.hooks = {
      call: (id, kind, a, b) => void this.#hostCall(proc, id, kind, a, b),
      output: (stream, text, dropped) => appendOutput(current(), stream, text, dropped),
      stray: (stream, text) => appendOutput(current(), stream, text, 0),
      submit: (text) => submitAnswer(current(), text, this.#bridge),
    };
    try {
      // Written at once: the socket holds them until runtime.py reads them.
      const started = proc.ready();
      const config = {
        ...pythonRuntimeConfig(this.#limits, this.#tools, this.#finalVar, this.#compaction, this.#texts),
        limits: { RLIMIT_AS: addressSpace },
      };
      // Sent together and answered in order: one round trip, not one per value.
      const loads: Promise<unknown>[] = [started, proc.op('setup', JSON.stringify(config))];
      for (const i of [...this.#contexts.keys()].sort((x, y) => x - y)) loads.push(this.#loadContext(proc, i));
      for (const i of [...this.#histories.keys()].sort((x, y) => x - y)) {
        loads.push(proc.op('set', `history_${i}`, Buffer.from(this.#histories.get(i)!, 'utf8')));
      }
      for (const json of this.#historyAppends) loads.push(proc.op('history', '', Buffer.from(json, 'utf8')));
      await Promise.all(loads);
      this.#proc = proc;
      replenishSpare(this.#install);
      return proc;
    } catch (err) {
      proc.kill('failed to start');
      throw err;
    }
  }

  async #loadContext(proc: Sandboxed, index: number): Promise<void> {
    const ctx = this.#contexts.get(index)!;
    try {
      await proc.op('context', JSON.stringify({ index, json: ctx.json }), Buffer.from(ctx.text, 'utf8'));
    } catch (err) {
      const message = errorMessage(err);
      if (message.startsWith('MemoryError')) {
        throw new Error(`context_${index} does not fit in the CPython REPL's memory limit (${this.#limits.memoryLimitMb} MB)`, {
          cause: err,
        });
      }
      throw new Error(`Loading context_${index} into the CPython REPL failed: ${message}`, { cause: err });
    }
  }

  async #hostCall(proc: Sandboxed, id: number, kind: string, a: string, b: string): Promise<void> {
    const block = this.#proc === proc ? this.#runner.block : null;
    if (!block || !block.active) {
      proc.reply(id, idleHostCallAnswer(kind, 'RuntimeError'));
      return;
    }
    // Several calls may be in flight (threads): the block is blocked while any is.
    if (this.#callsInFlight++ === 0) block.enterBridge();
    let answer: string;
    try {
      answer = await dispatchHostCall(
        this.#bridge,
        (name, payload) => callPythonTool(this.#tools, name, payload),
        kind,
        a,
        b,
        block.site,
        this.#texts,
      );
    } finally {
      if (--this.#callsInFlight === 0) block.leaveBridge();
    }
    proc.reply(id, answer);
  }

  async #execute(code: string, site: CallSite): Promise<ExecResult> {
    const proc = await this.#ensure();
    return this.#runner.run({
      site,
      started: performance.now(),
      meter: processMeter(proc),
      run: async () => {
        this.#callsInFlight = 0;
        this.#blocksRun++;
        return parseOutcome(await proc.op('run', String(this.#limits.cpuLimitMs), Buffer.from(code, 'utf8')));
      },
      finished: finishedBlockResult,
      disposed: (block, timing) => disposedBlockResult(block, timing, 'RuntimeError', null),
      // The process died or was killed: the CPU limit, if it used that much (RLIMIT_CPU ends it too).
      failed: (_block, _outcome, _failure, timing) => (timing.cpuMs > this.#limits.cpuLimitMs ? 'cpu_limit' : 'crash'),
      terms: () => pythonResetTerms(this.#limits, this.#limits.memoryLimitMb),
      replace: async () => {
        proc.kill('ended');
        if (this.#proc === proc) this.#proc = null;
        const fresh = await this.#ensure();
        return parseListed(await fresh.op('list', ''))
          .filter((v) => SIMPLE_TYPES.has(v.type))
          .map((v) => v.name);
      },
      replaceFailed: (err) => `loading the contexts failed (${errorMessage(err)})`,
    });
  }
}

/** A process's CPU time (the last reading while it cannot be read); stopping it kills it. */
function processMeter(proc: Sandboxed): CpuMeter {
  let last = 0;
  return {
    cpuMs() {
      last = proc.cpuMs() ?? last;
      return last;
    },
    stop(reason) {
      proc.kill(`was stopped (${reason})`);
    },
  };
}

/** Whether `--repl cpython` can run here: null when it can, else the reason. */
export function cpythonUnavailable(): string | null {
  const s = osSandboxSupport();
  return s.ok ? null : `the CPython REPL runs only inside an OS sandbox, and there is none here: ${s.reason}`;
}

/** Creates a CPython REPL; throws if there is no OS sandbox here or a tool name is not a Python name. */
export async function createCPythonRepl(options: CPythonReplOptions): Promise<Repl> {
  const missing = cpythonUnavailable();
  if (missing) throw new Error(missing);
  return new CPythonRepl(options);
}
