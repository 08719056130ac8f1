// The Python REPL: CPython (Pyodide) inside an isolated-vm isolate, behind the same `Repl`
// interface and limits as the JavaScript one. See README.md for what the boundary guarantees.
import ivm from 'isolated-vm';
import { appendOutput, disposedBlockResult, idleHostCallAnswer, submitAnswer } from '../block-runner.ts';
import { errorMessage } from '../host-calls.ts';
import { listVariablesOf } from '../repl-support.ts';
import type { CallSite, ExecResult, Repl, ReplOptions, VariableInfo } from '../types.ts';
import { isolateMeter } from '../watchdog.ts';
import type { Interpreter } from './interpreter.ts';
import type { LoadedContext, LoadedValue } from './loaded-values.ts';
import { takeInterpreter } from './pool.ts';
import { finishedBlockResult, parseOutcome, pythonResetTerms, SIMPLE_TYPES } from './python-block.ts';
import { PythonReplBase } from './python-repl-base.ts';

export const PYTHON_DEFAULTS = {
  memoryLimitMb: 512,
  cpuLimitMs: 10_000,
  wallLimitMs: 60_000,
  outputCapChars: 1_000_000,
} as const;

const HOUSEKEEPING_TIMEOUT_MS = 10_000;
const MB = 1024 * 1024;
/** wasm32 cannot address more. */
const MAX_WASM_BYTES = 4 * 1024 * MB - 64 * 1024;

class PyodideRepl extends PythonReplBase {
  #interp: Interpreter | null = null;
  #memoryLimitBytes = 0;

  constructor(options: ReplOptions) {
    super(options, PYTHON_DEFAULTS);
  }

  /** Loads a value just kept: into the live interpreter, or with every other into a fresh one. */
  protected async added(value: LoadedValue): Promise<void> {
    const current = this.#live();
    if (!current) await this.#ensure();
    else await this.#load(current, value);
  }

  protected async liveVariables(): Promise<VariableInfo[]> {
    const interp = this.#interp;
    if (!interp || this.disposed || interp.isolate.isDisposed) return [];
    return listVariablesOf(interp.control, HOUSEKEEPING_TIMEOUT_MS);
  }

  protected endInterpreter(): void {
    this.#interp?.dispose();
    this.#interp = null;
  }

  // ---- internals ------------------------------------------------------------------------------

  /** Wasm memory the interpreter may use: the base limit plus room for every loaded value. */
  #wantedLimitBytes(): number {
    return Math.min(MAX_WASM_BYTES, this.limits.memoryLimitMb * MB + this.values.roomBytes());
  }

  async #growLimit(interp: Interpreter): Promise<void> {
    const wanted = this.#wantedLimitBytes();
    if (wanted <= this.#memoryLimitBytes) return;
    this.#memoryLimitBytes = wanted;
    await interp.control.apply(undefined, ['limit', String(wanted)], { timeout: HOUSEKEEPING_TIMEOUT_MS });
  }

  #live(): Interpreter | null {
    return this.#interp && !this.#interp.isolate.isDisposed ? this.#interp : null;
  }

  /** The current interpreter, or a fresh one with every context, history and global loaded. */
  async #ensure(): Promise<Interpreter> {
    if (this.disposed) throw new Error('The REPL has been disposed.');
    if (this.#interp && !this.#interp.isolate.isDisposed) return this.#interp;
    this.#interp = null;
    this.#memoryLimitBytes = this.#wantedLimitBytes();
    const interp = await takeInterpreter(this.#memoryLimitBytes);
    try {
      const current = () => (this.#interp === interp ? this.runner.block : null);
      interp.hooks = {
        flush: (stream, text, dropped) => appendOutput(current(), stream, text, dropped),
        submit: (text) => submitAnswer(current(), text, this.bridge),
        dispatch: async (kind, a, b) => {
          const block = current();
          if (!block || !block.active) return idleHostCallAnswer(kind, 'RuntimeError');
          block.enterBridge();
          try {
            return await this.hostCall(kind, a, b, block.site);
          } finally {
            block.leaveBridge();
          }
        },
      };
      await interp.control.apply(undefined, ['setup', JSON.stringify(this.runtimeConfig())], { timeout: HOUSEKEEPING_TIMEOUT_MS });
      this.#interp = interp;
      for (const value of this.values.all()) await this.#load(interp, value);
      return interp;
    } catch (err) {
      interp.dispose();
      if (this.#interp === interp) this.#interp = null;
      throw err;
    }
  }

  /** Loads one value, with the memory limit first raised to make room for it. */
  async #load(interp: Interpreter, value: LoadedValue): Promise<void> {
    await this.#growLimit(interp);
    if (value.kind === 'context') return this.#loadContext(interp, value);
    const op: [string, string] =
      value.kind === 'history' ? ['set', JSON.stringify({ name: value.name, json: value.json })] : ['history', value.json];
    await interp.control.apply(undefined, op, { timeout: HOUSEKEEPING_TIMEOUT_MS });
  }

  /** Loads `context_{index}` into the namespace as the reference's loader block would. */
  async #loadContext(interp: Interpreter, ctx: LoadedContext): Promise<void> {
    const { index, name } = ctx;
    // Encoded anew at each load (a reset reloads) and moved, not copied, into the isolate.
    const bytes = Buffer.from(ctx.text, 'utf8');
    const buffer =
      bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
        ? bytes.buffer
        : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    const data = new ivm.ExternalCopy(buffer, { transferOut: true }).copyInto({ release: true, transferIn: true });
    const raw = await interp.control.apply(undefined, ['context', JSON.stringify({ index, json: ctx.json }), data], {
      timeout: HOUSEKEEPING_TIMEOUT_MS,
    });
    const result = JSON.parse(String(raw)) as { error: string | null; outOfMemory: boolean };
    if (result.outOfMemory) {
      throw new Error(`${name} does not fit in the Python REPL's memory limit (${Math.round(this.#memoryLimitBytes / MB)} MB)`);
    }
    if (result.error !== null) throw new Error(`Loading ${name} into the Python REPL failed: ${result.error}`);
  }

  protected async runBlock(code: string, site: CallSite): Promise<ExecResult> {
    const interp = await this.#ensure();
    return this.runner.run({
      site,
      // Timed from here: starting an interpreter is not the block's time.
      started: performance.now(),
      meter: isolateMeter(interp.isolate),
      run: async () => parseOutcome(await interp.control.apply(undefined, ['run', code])),
      finished: (block, outcome, timing, replReset) =>
        outcome.outOfMemory ? null : finishedBlockResult(block, outcome, timing, replReset),
      disposed: (block, timing) => disposedBlockResult(block, timing, 'RuntimeError', null),
      failed: (block, outcome) => {
        if (!outcome) return 'crash';
        // Out of memory: what the block printed is kept; the interpreter's memory cannot shrink.
        block.stdout.append(outcome.stdout, outcome.dropped[0]);
        block.stderr.append(outcome.stderr, outcome.dropped[1]);
        // Submitted before the limit killed the block: the host heard of it then.
        if (outcome.submitted !== null) block.submitted = outcome.submitted;
        return 'memory_limit';
      },
      terms: () => pythonResetTerms(this.limits, Math.round(this.#memoryLimitBytes / MB)),
      replace: async () => {
        interp.dispose();
        if (this.#interp === interp) this.#interp = null;
        await this.#ensure();
        return this.#variables();
      },
      replaceFailed: (err) => `loading the contexts (${errorMessage(err)}) failed`,
    });
  }

  /** The simple variables of a fresh interpreter (what a block's result lists). */
  async #variables(): Promise<string[]> {
    const interp = this.#interp;
    if (!interp) return [];
    return (await listVariablesOf(interp.control, HOUSEKEEPING_TIMEOUT_MS)).filter((v) => SIMPLE_TYPES.has(v.type)).map((v) => v.name);
  }
}

/** Creates a Python REPL; throws if a tool name is reserved or not a Python identifier. */
export async function createPythonRepl(options: ReplOptions): Promise<Repl> {
  return new PyodideRepl(options);
}
