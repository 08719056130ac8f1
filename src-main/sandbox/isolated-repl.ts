// The JavaScript REPL in an isolated-vm isolate: host side. See README.md for the guarantees.
import ivm from 'isolated-vm';
import type { ReplResetReason } from '../../src-shared/events.ts';
import { assertCanHostIsolates } from './isolate-host.ts';
import { guardAllocations } from './allocation-guard.ts';
import { sandboxRuntime } from './runtime.ts';
import type { BlockOutcome, RuntimeConfig } from './runtime.ts';
import { appendOutput, BlockRunner, disposedBlockResult, idleHostCallAnswer, submitAnswer } from './block-runner.ts';
import { OUR_REPL_TEXTS, type ReplTexts } from '../../src-shared/repl-texts.ts';
import { dispatchHostCall, errorMessage, toolError } from './host-calls.ts';
import {
  checkIndex,
  checkToolNames,
  listVariablesOf,
  type OutcomeFields,
  parseOutcomeFields,
  replLimits,
  type ReplLimits,
  RESERVED_NAMES,
  SerialQueue,
} from './repl-support.ts';
import { sharedCopies } from './shared-strings.ts';
import { transformBlock, warmUpTransform } from './transform.ts';
import { isolateMeter } from './watchdog.ts';
import type {
  CallSite,
  ExecResult,
  FinalVarRules,
  HostFunction,
  Repl,
  ReplOptions,
  SandboxValue,
  SubcallBridge,
  VariableInfo,
} from './types.ts';

const SANDBOX_LIMIT_DEFAULTS = {
  memoryLimitMb: 256,
  cpuLimitMs: 10_000,
  wallLimitMs: 60_000,
  outputCapChars: 1_000_000,
} as const;

/** Paper-era functions, present only with `finalVar`. */
const FINAL_FUNCTIONS = ['FINAL_VAR', 'FINAL'] as const;

const FLUSH_CHARS = 64 * 1024;
const FLUSH_MS = 20;
/** Bound on the engine-facing ops that only run our own code (plus, at worst, a proxy trap). */
const HOUSEKEEPING_TIMEOUT_MS = 5_000;
const MB = 1024 * 1024;
const RUNTIME_SOURCE = String(sandboxRuntime);
/** Closes the allocation paths the memory limit does not see (allocation-guard.ts); runs first. */
const GUARD_SOURCE = String(guardAllocations);
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** One isolate with its context and the hooks bound to it. Replaced wholesale on a reset. */
interface Session {
  isolate: ivm.Isolate;
  context: ivm.Context;
  control: ivm.Reference<(op: string, arg: string) => string | Promise<string>>;
  dispatch: ivm.Reference<(kind: unknown, a: unknown, b: unknown) => Promise<string>>;
  memoryLimitMb: number;
  /** No block has run yet, so replacing the isolate loses nothing. */
  pristine: boolean;
}

interface Loaded {
  /** The value, or for an array of strings (a context too long for one string) each element. */
  copies: ivm.ExternalCopy<unknown>[];
  /** `copies` are the elements of one array. */
  parts: boolean;
  bytes: number;
  /** The copies belong to the value (`shared-strings.ts`), not to this REPL: never released here. */
  shared: boolean;
}

class IsolatedRepl implements Repl {
  readonly #bridge: SubcallBridge;
  readonly #toolFunctions = new Map<string, HostFunction>();
  readonly #toolValues = new Map<string, Loaded>();
  readonly #contexts = new Map<number, Loaded>();
  readonly #histories = new Map<number, Loaded>();
  /** `history` under compaction, as the JSON of each `appendHistory` call in turn. */
  readonly #historyAppends: string[] = [];
  readonly #limits: ReplLimits;
  readonly #finalVar: FinalVarRules | null;
  readonly #texts: ReplTexts;
  #session: Session | null = null;
  readonly #queue = new SerialQueue(() => this.#disposed);
  readonly #runner: BlockRunner;
  #disposed = false;

  constructor(options: ReplOptions) {
    assertCanHostIsolates('the JavaScript REPL');
    this.#bridge = options.bridge;
    this.#limits = replLimits(options, SANDBOX_LIMIT_DEFAULTS);
    this.#finalVar = options.finalVar ?? null;
    this.#texts = options.texts ?? OUR_REPL_TEXTS.javascript;
    this.#runner = new BlockRunner(this.#limits, () => this.#disposed);
    const reserved = new Set<string>(RESERVED_NAMES);
    if (this.#finalVar !== null) for (const name of FINAL_FUNCTIONS) reserved.add(name);
    const tools = options.tools ?? {};
    checkToolNames(Object.keys(tools), reserved, (name) => IDENTIFIER.test(name), 'JavaScript');
    for (const [name, tool] of Object.entries(tools)) {
      if (typeof tool === 'function') this.#toolFunctions.set(name, tool);
      else this.#toolValues.set(name, load(tool));
    }
    // The first block usually comes a model call later: the parser's code is compiled meanwhile.
    setImmediate(warmUpTransform);
  }

  addContext(index: number, value: SandboxValue): Promise<void> {
    checkIndex(index);
    return this.#queue.run(async () => {
      const entry = load(value);
      this.#contexts.set(index, entry);
      await this.#install(`context_${index}`, entry);
    });
  }

  addHistory(index: number, messages: SandboxValue): Promise<void> {
    checkIndex(index);
    return this.#queue.run(async () => {
      const entry = load(messages);
      this.#histories.set(index, entry);
      await this.#install(`history_${index}`, entry);
    });
  }

  appendHistory(messages: SandboxValue[]): Promise<void> {
    return this.#queue.run(async () => {
      const json = JSON.stringify(messages);
      this.#historyAppends.push(json);
      await this.#copyIn('history', (session) => session.control.apply(undefined, ['history', json], { timeout: HOUSEKEEPING_TIMEOUT_MS }));
    });
  }

  execute(code: string, site: CallSite): Promise<ExecResult> {
    return this.#queue.run(() => this.#execute(code, site));
  }

  listVariables(): Promise<VariableInfo[]> {
    return this.#queue.run(async () => {
      const session = this.#session;
      if (!session || this.#disposed) return [];
      return listVariablesOf(session.control, HOUSEKEEPING_TIMEOUT_MS);
    });
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    if (this.#session) disposeSession(this.#session);
    this.#session = null;
    for (const map of [this.#contexts, this.#histories, this.#toolValues]) {
      for (const entry of map.values()) if (!entry.shared) for (const c of entry.copies) c.release();
      map.clear();
    }
    this.#historyAppends.length = 0;
  }

  // ---- internals ------------------------------------------------------------------------------

  #memoryLimitMb(): number {
    let bytes = 0;
    for (const map of [this.#contexts, this.#histories, this.#toolValues]) {
      for (const entry of map.values()) bytes += entry.bytes;
    }
    for (const json of this.#historyAppends) bytes += json.length * 4;
    return this.#limits.memoryLimitMb + Math.ceil(bytes / MB);
  }

  /** Copies the value just loaded as `name` in (see `#copyIn`). */
  async #install(name: string, entry: Loaded): Promise<void> {
    await this.#copyIn(name, async (session) => {
      await install(session.context, name, entry);
      await session.control.apply(undefined, ['restore', name], { timeout: HOUSEKEEPING_TIMEOUT_MS });
    });
  }

  /**
   * Puts something just recorded (`what`) into the isolate with `copy`; grows the isolate first
   * if nothing would be lost by replacing it (a new isolate loads everything recorded instead).
   */
  async #copyIn(what: string, copy: (session: Session) => Promise<unknown>): Promise<void> {
    if (!this.#session || this.#session.isolate.isDisposed) {
      // No isolate yet (the first value): one sized for everything loads every value, this one
      // included, instead of a default-sized one that would be replaced at once.
      this.#session = null;
      await this.#ensureSession();
      return;
    }
    const needed = this.#memoryLimitMb();
    const session = this.#session;
    if (needed > session.memoryLimitMb && session.pristine) {
      // A fresh isolate re-loads everything, the new value included.
      disposeSession(session);
      this.#session = null;
      await this.#ensureSession();
      return;
    }
    // A used isolate keeps its limit (replacing it would lose the variables) and usually has room;
    // if the value does not fit after all, the isolate dies and a bigger one replaces it.
    try {
      await copy(session);
    } catch (err) {
      if (!session.isolate.isDisposed) throw err;
      disposeSession(session);
      this.#session = null;
      await this.#ensureSession();
      // Told with the next block.
      this.#runner.noteReset({ reason: memoryOrCrash(err), note: `loading ${what} did not fit in the REPL's memory` });
    }
  }

  async #ensureSession(): Promise<Session> {
    if (this.#disposed) throw new Error('The REPL has been disposed.');
    if (!this.#session || this.#session.isolate.isDisposed) {
      this.#session = await this.#createSession(this.#memoryLimitMb());
    }
    return this.#session;
  }

  async #createSession(memoryLimitMb: number): Promise<Session> {
    const isolate = new ivm.Isolate({ memoryLimit: memoryLimitMb });
    try {
      const context = await isolate.createContext();
      // Hooks check they belong to the current session, so a late call from a discarded isolate
      // (or a sub-call that resolves after a reset) cannot write into the next block.
      let self: Session | null = null;
      const current = () => (self !== null && this.#session === self ? this.#runner.block : null);
      const flush = new ivm.Callback((stream: unknown, text: unknown, dropped: unknown) => {
        if (typeof text === 'string' && typeof dropped === 'number') appendOutput(current(), stream, text, dropped);
      });
      const submit = new ivm.Callback((text: unknown) => {
        if (typeof text === 'string') submitAnswer(current(), text, this.#bridge);
      });
      const dispatch = new ivm.Reference(async (kind: unknown, a: unknown, b: unknown): Promise<string> => {
        const block = current();
        if (!block || !block.active) return idleHostCallAnswer(kind, 'Error');
        block.enterBridge();
        try {
          return await dispatchHostCall(
            this.#bridge,
            (name, args) => this.#callTool(name, args),
            String(kind),
            String(a),
            String(b),
            block.site,
            this.#texts,
          );
        } finally {
          block.leaveBridge();
        }
      });
      const config: RuntimeConfig = {
        outputCapChars: this.#limits.outputCapChars,
        flushChars: FLUSH_CHARS,
        flushMs: FLUSH_MS,
        toolFunctions: [...this.#toolFunctions.keys()],
        finalVar: this.#finalVar,
        texts: this.#texts,
      };
      const control = (await context.evalClosure(
        `(${GUARD_SOURCE})(globalThis, false); return (${RUNTIME_SOURCE})($0, $1, $2, $3);`,
        [flush, submit, dispatch, JSON.stringify(config)],
        { result: { reference: true }, timeout: HOUSEKEEPING_TIMEOUT_MS },
      )) as Session['control'];
      self = { isolate, context, control, dispatch, memoryLimitMb, pristine: true };
      // Same order as the reference REPL: tools, contexts, histories, then compaction's history.
      for (const [name, entry] of this.#toolValues) await install(context, name, entry);
      for (const i of sortedKeys(this.#contexts)) {
        await install(context, `context_${i}`, this.#contexts.get(i)!);
      }
      // `context` right after the contexts, as when they were first added (variable order).
      await control.apply(undefined, ['restore', ''], { timeout: HOUSEKEEPING_TIMEOUT_MS });
      for (const i of sortedKeys(this.#histories)) {
        await install(context, `history_${i}`, this.#histories.get(i)!);
      }
      for (const json of this.#historyAppends) {
        await control.apply(undefined, ['history', json], { timeout: HOUSEKEEPING_TIMEOUT_MS });
      }
      await control.apply(undefined, ['restore', ''], { timeout: HOUSEKEEPING_TIMEOUT_MS });
      return self;
    } catch (err) {
      if (!isolate.isDisposed) isolate.dispose();
      throw err;
    }
  }

  async #callTool(name: string, argsJson: string): Promise<string> {
    const fn = this.#toolFunctions.get(name);
    if (!fn) return JSON.stringify({ err: { name: 'ReferenceError', message: `${name} is not a tool` } });
    try {
      const args = JSON.parse(argsJson) as SandboxValue[];
      const value = await fn(...args);
      return value === undefined ? '{}' : JSON.stringify({ ok: value });
    } catch (err) {
      return toolError(err);
    }
  }

  async #execute(code: string, site: CallSite): Promise<ExecResult> {
    const started = performance.now();
    const transformed = transformBlock(code);
    const session = await this.#ensureSession();
    if (!transformed.ok) {
      const { name, message } = transformed.error;
      return this.#runner.refuse(site, async (block, replReset) => ({
        ...emptyResult(started),
        stderr: block.stderr.text(),
        error: { name, message },
        variables: await this.#variables(session),
        replReset,
      }));
    }
    const payload = JSON.stringify({ src: transformed.code, isAsync: transformed.isAsync, names: transformed.names });
    return this.#runner.run<OutcomeFields>({
      site,
      started,
      meter: isolateMeter(session.isolate),
      run: async () => {
        session.pristine = false;
        const raw = await session.control.apply(undefined, ['run', payload], { result: { promise: true } });
        return parseOutcomeFields(JSON.parse(String(raw)) as Partial<BlockOutcome>);
      },
      finished: (block, outcome, timing, replReset) => {
        block.stdout.noteDropped(outcome.dropped[0]);
        block.stderr.noteDropped(outcome.dropped[1]);
        return {
          stdout: block.stdout.text(),
          stderr: block.stderr.text(),
          ...timing,
          submitted: block.submitted,
          error: outcome.error,
          variables: outcome.variables,
          ...(outcome.locals ? { locals: outcome.locals } : {}),
          replReset,
        };
      },
      disposed: (block, timing) => disposedBlockResult(block, timing, 'Error', block.submitted),
      survived: async (failure, block, timing, replReset) => {
        if (session.isolate.isDisposed) return null;
        // Our runtime failed without the isolate dying (should not happen): report and re-arm it.
        try {
          await session.control.apply(undefined, ['restore', ''], { timeout: HOUSEKEEPING_TIMEOUT_MS });
        } catch {
          // the next block will still run; the scaffold may be missing until then
        }
        return {
          stdout: block.stdout.text(),
          stderr: block.stderr.text(),
          ...timing,
          submitted: block.submitted,
          error: { name: 'Error', message: `The REPL failed to run the block: ${errorMessage(failure)}` },
          variables: await this.#variables(session),
          replReset,
        };
      },
      failed: (_block, _outcome, failure) => memoryOrCrash(failure),
      terms: () => ({
        cpuLimitMs: this.#limits.cpuLimitMs,
        wallLimitMs: this.#limits.wallLimitMs,
        memoryLimitMb: session.memoryLimitMb,
        memoryError: 'RangeError',
        crashError: 'Error',
        crashed: 'The REPL',
      }),
      replace: async () => {
        disposeSession(session);
        if (this.#session === session) this.#session = null;
        return this.#variables(await this.#ensureSession());
      },
    });
  }

  async #variables(session: Session): Promise<string[]> {
    try {
      const raw = await session.control.apply(undefined, ['vars', ''], { timeout: HOUSEKEEPING_TIMEOUT_MS });
      const parsed = JSON.parse(String(raw)) as unknown;
      return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : [];
    } catch {
      return [];
    }
  }
}

/**
 * Creates a REPL; throws if a tool name is reserved. The isolate starts with the first
 * operation, so a context added first sizes it (one isolate rather than a default one that
 * the context's size would replace at once).
 */
export async function createIsolatedRepl(options: ReplOptions): Promise<Repl> {
  return new IsolatedRepl(options);
}

// ---- helpers ----------------------------------------------------------------------------------

/** Arrays of strings up to this many elements are copied element by element (see `load`). */
const MAX_PARTS = 65_536;

function load(value: SandboxValue): Loaded {
  // Strings are copied without a JSON round trip (V8 keeps large ones outside the heap); the
  // size estimate only feeds the memory limit: 2 bytes per char, more for structured values.
  const bytes = typeof value === 'string' ? value.length * 2 : jsonLength(value) * 4;
  // Strings already in external copies (a context file too large for one string) are not copied again.
  const shared = sharedCopies(value);
  if (shared) return { copies: [...shared], parts: true, bytes, shared: true };
  // An array of strings (how a context longer than V8's longest string arrives) as one copy per
  // string: the structured clone of the whole array writes every string into one serialisation
  // buffer and reads it back inside the isolate (two more passes over a 1 GB context), while a
  // string's copy is handed to the isolate as an external string, without copying it again.
  if (Array.isArray(value) && value.length <= MAX_PARTS && value.every((v) => typeof v === 'string'))
    return { copies: value.map((v) => new ivm.ExternalCopy(v)), parts: true, bytes, shared: false };
  return { copies: [new ivm.ExternalCopy(value)], parts: false, bytes, shared: false };
}

/** Sets global `name` of `context` to the loaded value (an array built from its parts, in one call). */
async function install(context: ivm.Context, name: string, entry: Loaded): Promise<void> {
  if (!entry.parts) {
    await context.global.set(name, entry.copies[0]!.copyInto());
    return;
  }
  // In calls of at most MAX_PARTS arguments (a shared array, e.g. a large JSON file's, may have more).
  for (let at = 0; at < entry.copies.length || at === 0; at += MAX_PARTS) {
    await context.evalClosure(
      at === 0
        ? 'globalThis[$0] = Array.prototype.slice.call(arguments, 1);'
        : 'Array.prototype.push.apply(globalThis[$0], Array.prototype.slice.call(arguments, 1));',
      [name, ...entry.copies.slice(at, at + MAX_PARTS).map((c) => c.copyInto())],
      { timeout: HOUSEKEEPING_TIMEOUT_MS },
    );
  }
}

/** JSON.stringify(value).length without building the string (which cannot exceed ~512 MB). */
function jsonLength(value: SandboxValue): number {
  if (typeof value === 'string') return value.length + 2;
  if (value === null || typeof value !== 'object') return String(value).length;
  let n = 2;
  if (Array.isArray(value)) {
    for (const v of value) n += jsonLength(v) + 1;
  } else {
    for (const [k, v] of Object.entries(value)) n += k.length + 4 + jsonLength(v);
  }
  return n;
}

function disposeSession(session: Session): void {
  try {
    session.dispatch.release();
  } catch {
    // already released
  }
  if (!session.isolate.isDisposed) session.isolate.dispose();
}

function emptyResult(started: number): Omit<ExecResult, 'error' | 'variables'> {
  return {
    stdout: '',
    stderr: '',
    durationMs: performance.now() - started,
    cpuMs: 0,
    submitted: null,
    replReset: null,
  };
}

/** Why an isolate died under an operation: its memory limit, or else a crash. */
function memoryOrCrash(failure: unknown): ReplResetReason {
  return /memory limit/i.test(errorMessage(failure)) ? 'memory_limit' : 'crash';
}

function sortedKeys(map: Map<number, Loaded>): number[] {
  return [...map.keys()].sort((a, b) => a - b);
}
