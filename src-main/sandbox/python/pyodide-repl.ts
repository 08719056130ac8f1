// The Python REPL: CPython (Pyodide) inside an isolated-vm isolate, behind the same `Repl`
// interface and limits as the JavaScript one. See README.md for what the boundary guarantees.
import ivm from 'isolated-vm';
import { appendOutput, BlockRunner, disposedBlockResult, idleHostCallAnswer, submitAnswer } from '../block-runner.ts';
import { OUR_REPL_TEXTS, type ReplTexts } from '../../../src-shared/repl-texts.ts';
import { dispatchHostCall, errorMessage } from '../host-calls.ts';
import { checkIndex, listVariablesOf, replLimits, type ReplLimits, SerialQueue } from '../repl-support.ts';
import { jsonTextOf } from '../json-source.ts';
import type { CallSite, ExecResult, FinalVarRules, Repl, ReplOptions, SandboxValue, SubcallBridge, VariableInfo } from '../types.ts';
import { isolateMeter } from '../watchdog.ts';
import type { Interpreter } from './interpreter.ts';
import { takeInterpreter } from './pool.ts';
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

/** A context as the interpreter loads it: text, or JSON text that Python parses. */
interface LoadedContext {
  json: boolean;
  text: string;
}

class PythonRepl implements Repl {
  readonly #bridge: SubcallBridge;
  readonly #tools: PythonTools;
  readonly #contexts = new Map<number, LoadedContext>();
  readonly #histories = new Map<number, string>();
  /** `history` under compaction, as the JSON of each `appendHistory` call in turn. */
  readonly #historyAppends: string[] = [];
  readonly #limits: ReplLimits;
  readonly #finalVar: FinalVarRules | null;
  readonly #texts: ReplTexts;
  readonly #compaction: boolean;
  #interp: Interpreter | null = null;
  #memoryLimitBytes = 0;
  readonly #queue = new SerialQueue(() => this.#disposed);
  readonly #runner: BlockRunner;
  #disposed = false;

  constructor(options: ReplOptions) {
    this.#bridge = options.bridge;
    this.#limits = replLimits(options, PYTHON_DEFAULTS);
    this.#finalVar = options.finalVar ?? null;
    this.#texts = options.texts ?? OUR_REPL_TEXTS.python;
    this.#compaction = options.compaction === true;
    this.#tools = pythonTools(options.tools ?? {});
    this.#runner = new BlockRunner(this.#limits, () => this.#disposed);
  }

  addContext(index: number, value: SandboxValue): Promise<void> {
    checkIndex(index);
    return this.#queue.run(async () => {
      const json = typeof value !== 'string';
      // A parsed file's own text when there is one: Python's json keeps what JavaScript's numbers lost.
      this.#contexts.set(index, { json, text: json ? jsonTextOf(value) : value });
      const current = this.#live();
      // A fresh interpreter loads every context, this one included.
      if (!current) await this.#ensure();
      else {
        await this.#growLimit(current);
        await this.#loadContext(current, index);
      }
    });
  }

  addHistory(index: number, messages: SandboxValue): Promise<void> {
    checkIndex(index);
    return this.#queue.run(async () => {
      const json = JSON.stringify(messages);
      this.#histories.set(index, json);
      const current = this.#live();
      if (!current) await this.#ensure();
      else await this.#set(current, `history_${index}`, json);
    });
  }

  appendHistory(messages: SandboxValue[]): Promise<void> {
    return this.#queue.run(async () => {
      const json = JSON.stringify(messages);
      this.#historyAppends.push(json);
      const current = this.#live();
      if (!current) await this.#ensure();
      else await this.#appendHistory(current, json);
    });
  }

  execute(code: string, site: CallSite): Promise<ExecResult> {
    return this.#queue.run(() => this.#execute(code, site));
  }

  listVariables(): Promise<VariableInfo[]> {
    return this.#queue.run(async () => {
      const interp = this.#interp;
      if (!interp || this.#disposed || interp.isolate.isDisposed) return [];
      return listVariablesOf(interp.control, HOUSEKEEPING_TIMEOUT_MS);
    });
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#interp?.dispose();
    this.#interp = null;
    this.#contexts.clear();
    this.#histories.clear();
    this.#historyAppends.length = 0;
  }

  // ---- internals ------------------------------------------------------------------------------

  /** Wasm memory the interpreter may use: the base limit plus room for every loaded value. */
  #wantedLimitBytes(): number {
    let bytes = 0;
    // Reading a text context holds the file, the bytes read and the str at once; parsed JSON
    // takes several times its text in Python objects.
    for (const c of this.#contexts.values()) bytes += c.text.length * (c.json ? 8 : 4);
    for (const h of this.#histories.values()) bytes += h.length * 8;
    for (const h of this.#historyAppends) bytes += h.length * 8;
    return Math.min(MAX_WASM_BYTES, this.#limits.memoryLimitMb * MB + bytes);
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
    if (this.#disposed) throw new Error('The REPL has been disposed.');
    if (this.#interp && !this.#interp.isolate.isDisposed) return this.#interp;
    this.#interp = null;
    this.#memoryLimitBytes = this.#wantedLimitBytes();
    const interp = await takeInterpreter(this.#memoryLimitBytes);
    try {
      const current = () => (this.#interp === interp ? this.#runner.block : null);
      interp.hooks = {
        flush: (stream, text, dropped) => appendOutput(current(), stream, text, dropped),
        submit: (text) => submitAnswer(current(), text, this.#bridge),
        dispatch: async (kind, a, b) => {
          const block = current();
          if (!block || !block.active) return idleHostCallAnswer(kind, 'RuntimeError');
          block.enterBridge();
          try {
            return await dispatchHostCall(
              this.#bridge,
              (name, payload) => callPythonTool(this.#tools, name, payload),
              kind,
              a,
              b,
              block.site,
              this.#texts,
            );
          } finally {
            block.leaveBridge();
          }
        },
      };
      const config = pythonRuntimeConfig(this.#limits, this.#tools, this.#finalVar, this.#compaction, this.#texts);
      await interp.control.apply(undefined, ['setup', JSON.stringify(config)], { timeout: HOUSEKEEPING_TIMEOUT_MS });
      this.#interp = interp;
      for (const i of [...this.#contexts.keys()].sort((x, y) => x - y)) await this.#loadContext(interp, i);
      for (const i of [...this.#histories.keys()].sort((x, y) => x - y)) {
        await this.#set(interp, `history_${i}`, this.#histories.get(i)!);
      }
      for (const json of this.#historyAppends) await this.#appendHistory(interp, json);
      return interp;
    } catch (err) {
      interp.dispose();
      if (this.#interp === interp) this.#interp = null;
      throw err;
    }
  }

  /** Loads `context_{index}` into the namespace as the reference's loader block would. */
  async #loadContext(interp: Interpreter, index: number): Promise<void> {
    const ctx = this.#contexts.get(index)!;
    const name = `context_${index}`;
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

  async #set(interp: Interpreter, name: string, json: string): Promise<void> {
    await this.#growLimit(interp);
    await interp.control.apply(undefined, ['set', JSON.stringify({ name, json })], { timeout: HOUSEKEEPING_TIMEOUT_MS });
  }

  async #appendHistory(interp: Interpreter, json: string): Promise<void> {
    await this.#growLimit(interp);
    await interp.control.apply(undefined, ['history', json], { timeout: HOUSEKEEPING_TIMEOUT_MS });
  }

  async #execute(code: string, site: CallSite): Promise<ExecResult> {
    const interp = await this.#ensure();
    return this.#runner.run({
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
      terms: () => pythonResetTerms(this.#limits, Math.round(this.#memoryLimitBytes / MB)),
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
  return new PythonRepl(options);
}
