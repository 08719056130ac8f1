// What both Python REPLs are around their interpreter, wherever it runs (a Pyodide isolate, a
// sandboxed CPython process): the options read once, the values every interpreter loads
// (`LoadedValues`), operations run one at a time, a block's run (`BlockRunner`), and host calls
// sent to the bridge or the tools. Each REPL supplies its interpreter: how a value just added
// loads, how a block runs, how its variables are listed, how it ends. No isolated-vm here: the
// CPython REPL runs in processes that must not load it.
import { OUR_REPL_TEXTS, type ReplTexts } from '../../../src-shared/repl-texts.ts';
import { BlockRunner } from '../block-runner.ts';
import { dispatchHostCall } from '../host-calls.ts';
import { checkIndex, replLimits, type ReplLimits, SerialQueue } from '../repl-support.ts';
import type { CallSite, ExecResult, FinalVarRules, Repl, ReplOptions, SandboxValue, SubcallBridge, VariableInfo } from '../types.ts';
import { type LoadedValue, LoadedValues } from './loaded-values.ts';
import { callPythonTool, pythonRuntimeConfig, pythonTools, type PythonTools } from './python-block.ts';

export abstract class PythonReplBase implements Repl {
  protected readonly bridge: SubcallBridge;
  protected readonly limits: ReplLimits;
  /** What every interpreter loads, kept for the next one. */
  protected readonly values = new LoadedValues();
  protected readonly runner: BlockRunner;
  readonly #tools: PythonTools;
  readonly #finalVar: FinalVarRules | null;
  readonly #texts: ReplTexts;
  readonly #compaction: boolean;
  readonly #queue = new SerialQueue(() => this.#disposed);
  #disposed = false;

  /** Throws if a limit is not positive, or a tool name is reserved or not a Python identifier. */
  constructor(options: ReplOptions, defaults: ReplLimits) {
    this.bridge = options.bridge;
    this.limits = replLimits(options, defaults);
    this.#finalVar = options.finalVar ?? null;
    this.#texts = options.texts ?? OUR_REPL_TEXTS.python;
    this.#compaction = options.compaction === true;
    this.#tools = pythonTools(options.tools ?? {});
    this.runner = new BlockRunner(this.limits, () => this.#disposed);
  }

  addContext(index: number, value: SandboxValue): Promise<void> {
    checkIndex(index);
    return this.#queue.run(() => this.added(this.values.addContext(index, value)));
  }

  addHistory(index: number, messages: SandboxValue): Promise<void> {
    checkIndex(index);
    return this.#queue.run(() => this.added(this.values.addHistory(index, messages)));
  }

  appendHistory(messages: SandboxValue[]): Promise<void> {
    return this.#queue.run(() => this.added(this.values.appendHistory(messages)));
  }

  execute(code: string, site: CallSite): Promise<ExecResult> {
    return this.#queue.run(() => this.runBlock(code, site));
  }

  listVariables(): Promise<VariableInfo[]> {
    return this.#queue.run(() => this.liveVariables());
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.endInterpreter();
    this.values.clear();
  }

  protected get disposed(): boolean {
    return this.#disposed;
  }

  /** runtime.py's `setup` config. */
  protected runtimeConfig(): ReturnType<typeof pythonRuntimeConfig> {
    return pythonRuntimeConfig(this.limits, this.#tools, this.#finalVar, this.#compaction, this.#texts);
  }

  /** Answers a host call of the block at `site`: a sub-call through the bridge, or a tool call. */
  protected hostCall(kind: string, a: string, b: string, site: CallSite): Promise<string> {
    return dispatchHostCall(this.bridge, (name, payload) => callPythonTool(this.#tools, name, payload), kind, a, b, site, this.#texts);
  }

  /** A value just kept in `values`: loaded into the interpreter now, or by the next one to start. */
  protected abstract added(value: LoadedValue): Promise<void>;
  /** Runs a block through `runner`. */
  protected abstract runBlock(code: string, site: CallSite): Promise<ExecResult>;
  /** The live interpreter's variables; none without one. */
  protected abstract liveVariables(): Promise<VariableInfo[]>;
  /** Ends the interpreter for good (the REPL is disposed). */
  protected abstract endInterpreter(): void;
}
