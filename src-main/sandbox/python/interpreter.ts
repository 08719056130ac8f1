// Starting a Python interpreter: Pyodide (CPython compiled to WebAssembly, from the npm
// `pyodide` package) inside a fresh isolated-vm isolate. Nothing is fetched: the package's
// files are read from node_modules, the wasm is compiled once per process and shared by every
// isolate, and after the first start a memory snapshot of the loaded interpreter (kept on disk
// per Pyodide version and runtime source) lets later ones skip Python's own start-up
// (~2.3 s → ~0.3 s here).
import { randomBytes } from 'node:crypto';
import ivm from 'isolated-vm';
import { assertCanHostIsolates } from '../isolate-host.ts';
import { BOOT_SOURCE, GUARD_SOURCE, snapshotPath, takePyodideReads, type PyodideReads } from './pyodide-files.ts';
import { writeSnapshot } from './snapshot-cache.ts';
import { packSnapshot, type PackedSnapshot } from './snapshot-pages.ts';
import { interpreterStarts } from './start-gate.ts';
import { trackInterpreter, trackStart } from './lifecycle.ts';
import { type PythonBootConfig, SUBMITTED_STREAM } from './isolate-side.ts';

/** The isolate-side control function; ops are documented in isolate-side.ts. */
type Control = ivm.Reference<(op: string, arg: string, data?: ArrayBuffer) => string | Uint8Array>;

/** One isolate with Pyodide loaded, not yet bound to a REPL. */
export interface Interpreter {
  isolate: ivm.Isolate;
  context: ivm.Context;
  control: Control;
  /** Set by the REPL that adopts the interpreter: where flushed output and host calls go. */
  hooks: InterpreterHooks;
  dispose(): void;
}

interface InterpreterHooks {
  flush(stream: number, text: string, dropped: number): void;
  /** The running block submitted an answer (it may still be cut short). */
  submit(text: string): void;
  dispatch(kind: string, a: string, b: string): Promise<string>;
}

interface Assets {
  version: string;
  /** Copies made once per process; each isolate gets its own from them. */
  wasm: ivm.ExternalCopy<WebAssembly.Module>;
  stdlib: ivm.ExternalCopy<ArrayBuffer>;
  lockFile: string;
  runtimeSource: string;
  /** Identifies a snapshot's inputs: Pyodide's version, our runtime and our isolate code. */
  fingerprint: string;
}

/**
 * isolated-vm's `timeout` covers only the synchronous part of a call; a start whose promise
 * never settled would otherwise leave its session waiting for ever (an evaluation hung so,
 * before isolate-side.ts made WebAssembly's promises settle at once). Generous: making the
 * snapshot takes ~2.5 s here, several times that on a loaded machine.
 */
const START_TIMEOUT_MS = 120_000;

/** JavaScript heap of the isolate (Pyodide's own objects); the interpreter's memory is wasm. */
const ISOLATE_HEAP_MB = 256;
const HOUSEKEEPING_TIMEOUT_MS = 30_000;
/** WebCrypto's limit for one getRandomValues call. */
const RANDOM_BYTES_MAX = 65_536;

/**
 * Pyodide's files being turned into what an interpreter starts from: its two modules' sources,
 * known once the files are read, and the assets, once the wasm is compiled too.
 */
interface Loading {
  sources: Promise<{ asmSource: string; loaderSource: string }>;
  assets: Promise<Assets>;
}

let loading: Loading | null = null;
let snapshot: Promise<ivm.ExternalCopy<PackedSnapshot> | null> | null = null;
/** Reads not yet handed to their one consumer (which lets go of the bytes once copied). */
let unclaimed: Partial<PyodideReads> = {};

/** The files or the saved snapshot, from a prefetch if the command line started one. */
function claim<K extends keyof PyodideReads>(part: K): PyodideReads[K] {
  if (!unclaimed[part]) unclaimed = takePyodideReads();
  const read = unclaimed[part] as PyodideReads[K];
  delete unclaimed[part];
  return read;
}

/**
 * Pyodide's files, read and compiled off the main thread: a CLI run starts its interpreter
 * while its first model call is in flight, and a blocked main thread delays that call.
 */
function load(): Loading {
  if (loading) return loading;
  const files = claim('files');
  const sources = files.then((f) => ({ asmSource: f.asmSource, loaderSource: f.loaderSource }));
  sources.catch(() => undefined); // reported through `assets`
  const assets = (async (): Promise<Assets> => {
    const f = await files;
    return {
      version: f.version,
      wasm: new ivm.ExternalCopy(await WebAssembly.compile(f.wasmBytes)),
      stdlib: new ivm.ExternalCopy(ownBuffer(f.stdlib), { transferOut: true }),
      lockFile: f.lockFile,
      runtimeSource: f.runtimeSource,
      fingerprint: f.fingerprint,
    };
  })();
  const current: Loading = { sources, assets };
  assets.catch(() => {
    if (loading === current) loading = null;
  });
  return (loading = current);
}

function loadAssets(): Promise<Assets> {
  return load().assets;
}

/** The bytes of a freshly read Buffer as an ArrayBuffer of their own (to be moved, not copied). */
function ownBuffer(b: Buffer): ArrayBuffer {
  const whole = b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;
  return (whole ? b.buffer : b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)) as ArrayBuffer;
}

let saveSnapshot: (path: string, image: Uint8Array) => Promise<void> = writeSnapshot;

/** Who saves a snapshot this process made: inside the OS sandbox the cache is read-only, and the parent saves it. */
export function setSnapshotSaver(save: (path: string, image: Uint8Array) => Promise<void>): void {
  saveSnapshot = save;
}

/**
 * The snapshot, read from disk (beside the compile of the wasm, which it does not need) or
 * made (once per process) and saved for the next one.
 */
function getSnapshot(): Promise<ivm.ExternalCopy<PackedSnapshot> | null> {
  return (snapshot ??= (async () => {
    const saved = await claim('snapshot');
    if (saved) return packed(saved);
    const a = await loadAssets();
    let image: Uint8Array;
    try {
      image = await makeSnapshot();
    } catch {
      return null; // start interpreters the slow way rather than not at all
    }
    try {
      await saveSnapshot(snapshotPath(a), image);
    } catch {
      // a read-only cache only costs the next process the slow start
    }
    return packed(image);
  })());
}

/** The image without its zero pages, ready to copy into each isolate; null (the slow start) if it is malformed. */
function packed(image: Uint8Array): ivm.ExternalCopy<PackedSnapshot> | null {
  try {
    return new ivm.ExternalCopy(packSnapshot(image));
  } catch {
    return null;
  }
}

async function makeSnapshot(): Promise<Uint8Array> {
  const interp = await boot({ memoryLimitBytes: 2 ** 32, makeSnapshot: true }, Promise.resolve(null));
  try {
    const image = await interp.control.apply(undefined, ['snapshot', ''], {
      result: { copy: true },
      timeout: HOUSEKEEPING_TIMEOUT_MS,
    });
    if (!(image instanceof Uint8Array)) throw new Error('the snapshot is not a byte array');
    return image;
  } finally {
    interp.dispose();
  }
}

/** Starts an interpreter with the given wasm memory limit (a few at a time: start-gate.ts). */
export async function startInterpreter(memoryLimitBytes: number): Promise<Interpreter> {
  return interpreterStarts.run(() => boot({ memoryLimitBytes, makeSnapshot: false }, getSnapshot()));
}

/** Compiles the wasm and loads the snapshot now, so the first REPL does not wait for them. */
export async function preparePython(): Promise<void> {
  await Promise.all([loadAssets(), getSnapshot()]);
}

/**
 * Pyodide's modules are compiled in the new isolate as soon as their sources are read, beside
 * the wasm's compile and the snapshot's read (~45 ms that a CLI run's first block waited for).
 */
async function boot(config: PythonBootConfig, snapshotImage: Promise<ivm.ExternalCopy<PackedSnapshot> | null>): Promise<Interpreter> {
  assertCanHostIsolates('the Python REPL');
  const { sources: sourcesRead, assets: assetsLoaded } = load();
  snapshotImage.catch(() => undefined); // awaited below, after steps that may fail first
  const isolate = new ivm.Isolate({ memoryLimit: ISOLATE_HEAP_MB });
  let untrack: (() => void) | null = null;
  const disposeIsolate = (): void => {
    if (!isolate.isDisposed) isolate.dispose();
    untrack?.();
    untrack = null;
  };
  untrack = trackInterpreter(disposeIsolate);
  const startEnded = trackStart();
  try {
    const context = await isolate.createContext();
    const hooks: InterpreterHooks = {
      flush: () => undefined,
      submit: () => undefined,
      dispatch: async () => 'Error: host calls are only available while a block runs',
    };
    const interp: Interpreter = { isolate, context, control: null as unknown as Control, hooks, dispose: disposeIsolate };
    // Bytes for the isolate's crypto.getRandomValues. The count comes from code that may run
    // any JavaScript in the isolate: it is checked here as well, at WebCrypto's 65,536 bytes
    // (an unchecked count let it make this process allocate three times whatever it asked).
    const random = new ivm.Callback((n: unknown) => {
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > RANDOM_BYTES_MAX) {
        throw new RangeError(`getRandomValues: at most ${RANDOM_BYTES_MAX} bytes at a time`);
      }
      return new ivm.ExternalCopy(new Uint8Array(randomBytes(n))).copyInto({ release: true });
    });
    const flush = new ivm.Callback((stream: unknown, text: unknown, dropped: unknown) => {
      if (typeof text !== 'string' || typeof dropped !== 'number') return;
      if (stream === SUBMITTED_STREAM) interp.hooks.submit(text);
      else interp.hooks.flush(stream === 1 ? 1 : 0, text, dropped);
    });
    const dispatch = new ivm.Reference(async (kind: unknown, x: unknown, y: unknown): Promise<string> =>
      interp.hooks.dispatch(String(kind), String(x), String(y)),
    );
    const sources = await sourcesRead;
    const compiled = Promise.all([isolate.compileModule(sources.asmSource), isolate.compileModule(sources.loaderSource)]);
    compiled.catch(() => undefined); // awaited below, after what may fail first
    const [a, image] = await Promise.all([assetsLoaded, snapshotImage]);
    const start = (await context.evalClosure(
      `return (${BOOT_SOURCE})($0, $1, $2, $3, $4, $5, $6, $7, $8, (${GUARD_SOURCE})(globalThis, true));`,
      [
        a.wasm.copyInto(),
        a.stdlib.copyInto(),
        a.lockFile,
        a.runtimeSource,
        image ? image.copyInto() : null,
        random,
        flush,
        dispatch,
        JSON.stringify(config),
      ],
      { result: { reference: true }, timeout: HOUSEKEEPING_TIMEOUT_MS },
    )) as ivm.Reference<(load: unknown, create: unknown) => Promise<unknown>>;
    const [asm, loader] = await compiled;
    const noImports = (): never => {
      throw new Error('Pyodide modules import nothing');
    };
    await asm.instantiate(context, noImports);
    await loader.instantiate(context, noImports);
    await asm.evaluate();
    await loader.evaluate();
    const create = await asm.namespace.get('default', { reference: true });
    const load = await loader.namespace.get('loadPyodide', { reference: true });
    const started = start.apply(undefined, [load.derefInto(), create.derefInto()], {
      result: { reference: true, promise: true },
      timeout: HOUSEKEEPING_TIMEOUT_MS,
    });
    interp.control = (await settledWithin(started, START_TIMEOUT_MS, 'the Python interpreter')) as unknown as Control;
    return interp;
  } catch (err) {
    disposeIsolate();
    throw err;
  } finally {
    startEnded();
  }
}

/** `promise`, or an error naming `what` once `ms` have passed (the caller disposes what it started). */
async function settledWithin<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish starting within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
