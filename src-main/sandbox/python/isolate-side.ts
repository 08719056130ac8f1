// The half of the Python REPL that lives INSIDE the isolate: a browser-less, Node-less V8 where
// Pyodide runs. `bootPython` is never called on the host: its source text is evaluated in the
// isolate by a closure that receives the host hooks, so they stay in this closure. It must be
// self-contained: no imports, no references to module scope, only syntax that survives type
// stripping.
//
// The isolate has no `process`, `require`, `fetch`, sockets, timers or file system, so what
// Pyodide's JavaScript can reach from Python (`import js`, `run_js`, a JsProxy found through
// `gc`) is this isolate and nothing of the host. Pyodide is told it runs in a "shell": it
// reads its three files through `read`/`readbuffer`, which serve only the bytes we were given
// and are removed once it has loaded.

import type { AllocationGuard } from '../allocation-guard.ts';

/** Host → isolate configuration, as JSON. */
export interface PythonBootConfig {
  /** Wasm memory the interpreter may grow to, in bytes; changed later with the `limit` op. */
  memoryLimitBytes: number;
  /** Take a memory snapshot after loading (returned by the `snapshot` op) instead of serving. */
  makeSnapshot: boolean;
}

/** What the isolate returns from a block (`run` op), as JSON. */
export interface PythonBlockOutcome {
  stdout: string;
  stderr: string;
  dropped: [number, number];
  error: { name: string; message: string } | null;
  variables: string[];
  /** Every variable after the block, short (see runtime.py `_short_local`). */
  locals?: Record<string, unknown>;
  submitted: string | null;
  /** The block asked for more memory than the limit allows (the interpreter must be replaced). */
  outOfMemory: boolean;
}

interface HostDispatch {
  applySyncPromise(receiver: undefined, args: string[]): unknown;
}
type FlushHook = (stream: number, text: string, dropped: number) => void;

/** The flush hook's stream that carries a submitted answer (0 and 1 are stdout and stderr). */
export const SUBMITTED_STREAM = 2;
type RandomHook = (n: number) => Uint8Array;

/** The parts of Pyodide's API the glue uses. */
interface Pyodide {
  FS: { writeFile(path: string, data: string): void };
  pyimport(name: string): PyModule;
  makeMemorySnapshot(): Uint8Array;
  unregisterJsModule(name: string): void;
}
interface PyModule {
  setup(host: object, configJson: string): void;
  run(code: string): string;
  set_value(name: string, json: string): void;
  append_history(json: string): void;
  list_variables(): string;
  load_context(index: number, isJson: boolean, data: Uint8Array): void;
}
type LoadPyodide = (options: Record<string, unknown>) => Promise<Pyodide>;

type Control = (op: string, arg: string, data?: ArrayBuffer) => string | Uint8Array;

/** A snapshot without its zero pages (snapshot-pages.ts `PackedSnapshot`, structurally). */
interface PackedSnapshotIn {
  length: number;
  header: number;
  runs: Uint32Array;
  data: ArrayBuffer;
}

/**
 * Prepares the isolate for Pyodide (run before Pyodide's modules are evaluated: its loader
 * reads the environment when it is evaluated); returns the function that then loads it.
 */
export function bootPython(
  wasmModule: WebAssembly.Module,
  stdlibBuffer: ArrayBuffer,
  lockFile: string,
  runtimeSource: string,
  packedSnapshot: PackedSnapshotIn | null,
  randomHook: RandomHook,
  flushHook: FlushHook,
  dispatch: HostDispatch,
  configJson: string,
  guard: AllocationGuard,
): (loadPyodide: LoadPyodide, createModule: (settings: object) => Promise<object>) => Promise<Control> {
  'use strict';
  const G = globalThis as unknown as Record<string, unknown>;
  const config = JSON.parse(configJson) as PythonBootConfig;
  const stdlib = new Uint8Array(stdlibBuffer);
  // The image Pyodide reads: its header filled in, the rest left zero (a fresh buffer's pages
  // cost nothing until written); its memory pages go straight from the packed bytes into the
  // interpreter's memory (`restorePages`), the zero ones not at all.
  let packed = packedSnapshot;
  let snapshot: Uint8Array | null = null;
  if (packed) {
    snapshot = new Uint8Array(packed.length);
    snapshot.set(new Uint8Array(packed.data, 0, packed.header));
  }
  let memoryLimit = config.memoryLimitBytes;
  let outOfMemory = false;

  // ---- what Pyodide expects of its environment ------------------------------------------------
  const started = Date.now();
  G.performance = { now: () => Date.now() - started, timeOrigin: started };
  // WebCrypto's getRandomValues: integer typed arrays only, at most 65,536 bytes. The view's
  // length is read once, through the intrinsic getters (a getter of the code's cannot answer 8
  // to the check and N to the copy), and the host caps what it makes the same way.
  const typedArrayProto = Object.getPrototypeOf(Uint8Array.prototype) as object;
  const callBound = <A extends unknown[], R>(fn: (...args: A) => R): ((self: unknown, ...args: A) => R) => Function.prototype.call.bind(fn);
  const getter = (proto: object, name: PropertyKey): ((self: unknown) => unknown) =>
    callBound(Object.getOwnPropertyDescriptor(proto, name)!.get!);
  const viewBuffer = getter(typedArrayProto, 'buffer');
  const viewOffset = getter(typedArrayProto, 'byteOffset');
  const viewLength = getter(typedArrayProto, 'byteLength');
  const viewKind = getter(typedArrayProto, Symbol.toStringTag);
  const U8 = Uint8Array;
  const typedArraySet = callBound((typedArrayProto as { set(source: ArrayLike<number>, offset?: number): void }).set);
  const INTEGER_VIEWS: Record<string, boolean> = { __proto__: null } as unknown as Record<string, boolean>;
  for (const kind of [
    'Int8Array',
    'Uint8Array',
    'Uint8ClampedArray',
    'Int16Array',
    'Uint16Array',
    'Int32Array',
    'Uint32Array',
    'BigInt64Array',
    'BigUint64Array',
  ]) {
    INTEGER_VIEWS[kind] = true;
  }
  const RANDOM_MAX = 65536;
  G.crypto = {
    getRandomValues<T extends ArrayBufferView>(view: T): T {
      const kind = viewKind(view); // undefined for anything but a typed array
      if (typeof kind !== 'string' || INTEGER_VIEWS[kind] !== true)
        throw new TypeError('getRandomValues: an integer typed array is required');
      const length = viewLength(view) as number;
      if (length > RANDOM_MAX) throw new RangeError(`getRandomValues: ${length} bytes asked for, at most ${RANDOM_MAX}`);
      typedArraySet(new U8(viewBuffer(view) as ArrayBuffer, viewOffset(view) as number, length), randomHook(length));
      return view;
    },
  };
  // Makes Emscripten take its worker paths (crypto for randomness) while Pyodide's loader,
  // seeing `read` and `load`, takes the shell paths (no fetch, no import()).
  G.WorkerGlobalScope = function WorkerGlobalScope(): void {};
  let timerId = 0;
  // No event loop here: nothing Pyodide needs for synchronous code waits on a timer.
  G.setTimeout = (): number => ++timerId;
  G.clearTimeout = (): void => undefined;
  G.read = (path: string): string => {
    if (path.endsWith('pyodide-lock.json')) return lockFile;
    throw new Error(`read: no file ${path}`);
  };
  G.readbuffer = (path: string): Uint8Array => {
    if (path.endsWith('python_stdlib.zip')) return stdlib;
    if (path.endsWith('pyodide.asm.wasm')) return new Uint8Array(0);
    throw new Error(`readbuffer: no file ${path}`);
  };
  G.load = (): never => {
    throw new Error('load: no scripts in this sandbox');
  };
  installTextCodecs(G);

  // WebAssembly's promise forms compile and instantiate synchronously here. V8 settles the
  // asynchronous ones through a task posted to the isolate, and isolated-vm does not always run
  // that task while nothing else calls into the isolate: Pyodide's loader awaits such a compile
  // (a feature probe) and the interpreter's start then never finished, about once in ten starts
  // made while other interpreters ran. The wasm module itself was compiled on the host; the
  // loader asks for an empty file, and gets it.
  const settle = <T>(make: () => T): Promise<T> => {
    try {
      return Promise.resolve(make());
    } catch (err) {
      return Promise.reject(err);
    }
  };
  (WebAssembly as { compile: unknown }).compile = (bytes: ArrayBufferView | ArrayBuffer) => settle(() => new WebAssembly.Module(bytes));
  (WebAssembly as { instantiate: unknown }).instantiate = (
    source: WebAssembly.Module | ArrayBufferView | ArrayBuffer,
    imports?: WebAssembly.Imports,
  ) =>
    settle(() => {
      if (source instanceof WebAssembly.Module) return new WebAssembly.Instance(source, imports);
      const module = ArrayBuffer.isView(source) && source.byteLength === 0 ? wasmModule : new WebAssembly.Module(source);
      return { instance: new WebAssembly.Instance(module, imports), module };
    });
  // The memory limit: a refused grow makes malloc fail, which Python raises as MemoryError.
  // Code can run JavaScript in this isolate (a JsProxy's `constructor` is its Function), so the
  // check trusts nothing it could replace: the original grow and the memory's size are reached
  // through intrinsics bound here (a trapped Function.prototype.call once handed the original
  // grow to the code), the page count is read once, and once Pyodide has loaded no other memory,
  // module or instance can be made (allocation-guard.ts), so its memory is the only one.
  const memoryProto = WebAssembly.Memory.prototype;
  const originalGrow = callBound(memoryProto.grow);
  const memoryBuffer = getter(memoryProto, 'buffer');
  const bufferLength = getter(ArrayBuffer.prototype, 'byteLength');
  const NumberCtor = Number;
  const isInteger = Number.isInteger;
  const RangeErrorCtor = RangeError;
  Object.defineProperty(memoryProto, 'grow', {
    value: function limitedGrow(this: WebAssembly.Memory, pages: unknown): number {
      const n = NumberCtor(pages);
      if (!isInteger(n) || n < 0) throw new RangeErrorCtor('WebAssembly.Memory.grow: a page count is required');
      const size = bufferLength(memoryBuffer(this)) as number;
      if (size + n * 65536 > memoryLimit) {
        outOfMemory = true;
        throw new RangeErrorCtor('the REPL memory limit was reached');
      }
      return originalGrow(this, n);
    },
    writable: false,
    enumerable: false,
    configurable: false,
  });

  // Pyodide restores a snapshot with `Module.HEAP8.set(image.subarray(header))`; during the
  // load (before any code of the model's runs) that one call copies the nonzero pages instead.
  const int8Proto = Int8Array.prototype as unknown as Record<string, unknown>;
  const restorePages = function (this: Int8Array, source: unknown, offset?: unknown): void {
    const p = packed;
    const isImage =
      p !== null &&
      snapshot !== null &&
      typeof viewKind(source) === 'string' &&
      viewBuffer(source) === viewBuffer(snapshot) &&
      viewOffset(source) === p.header &&
      (offset === undefined || offset === 0);
    if (!isImage) {
      typedArraySet(this, source as ArrayLike<number>, offset as number);
      return;
    }
    let at = p.header;
    for (let i = 0; i < p.runs.length; i += 2) {
      const start = p.runs[i]!;
      const n = p.runs[i + 1]! - start;
      typedArraySet(this, new U8(p.data, at, n), start);
      at += n;
    }
    restoredPages = { bytes: at - p.header, of: p.length - p.header };
  };
  /** What the restore copied into memory, of the image's memory bytes (the `restored` op). */
  let restoredPages = { bytes: 0, of: 0 };
  // The bytes a start needed and no longer does, given back now rather than at a collection
  // an idle isolate may never have: the packed snapshot and its image (~15 MB), and the
  // standard library's zip (Pyodide's file system holds its own copy).
  const transfer = callBound((ArrayBuffer.prototype as unknown as { transfer(n: number): ArrayBuffer }).transfer);
  const release = (): void => {
    for (const b of [packed?.data, snapshot ? viewBuffer(snapshot) : undefined, stdlibBuffer]) {
      if (b) transfer(b, 0);
    }
    packed = null;
    snapshot = null;
  };

  return async (loadPyodide, createModule) => {
    if (snapshot) Object.defineProperty(int8Proto, 'set', { value: restorePages, writable: true, configurable: true });
    let py: Pyodide;
    try {
      py = await loadPyodide({
        indexURL: '/pyodide/',
        env: { HOME: '/home/user' },
        jsglobals: {},
        stdout: () => undefined,
        stderr: () => undefined,
        createPyodideModule: createModule,
        ...(snapshot ? { _loadSnapshot: snapshot } : {}),
        ...(config.makeSnapshot ? { _makeSnapshot: true } : {}),
      });
    } finally {
      delete int8Proto['set'];
    }
    const fromSnapshot = snapshot !== null;
    release();
    for (const name of ['read', 'readbuffer', 'load']) delete G[name];
    guard.lockWebAssembly();
    if (!fromSnapshot) {
      py.FS.writeFile('/lib/python3.14/site-packages/_rlm_runtime.py', runtimeSource);
    }
    const runtime = py.pyimport('_rlm_runtime');
    if (config.makeSnapshot) {
      const image = py.makeMemorySnapshot();
      return (op: string): Uint8Array => {
        if (op !== 'snapshot') throw new Error(`unknown op ${op}`);
        return image;
      };
    }
    for (const name of ['js', 'pyodide_js']) {
      try {
        py.unregisterJsModule(name);
      } catch {
        // not registered in this build
      }
    }
    const host = {
      call: (kind: string, a: string, b: string): string => String(dispatch.applySyncPromise(undefined, [kind, a, b])),
      flush: (stream: number, text: string, dropped: number): void => flushHook(stream, text, dropped),
      // The block's answer as soon as it is given, on the output's channel (SUBMITTED_STREAM;
      // this function's source runs in the isolate, where the constant is not in scope).
      submit: (text: string): void => flushHook(2, text, 0),
    };
    let setUp = false;
    return (op: string, arg: string, data?: ArrayBuffer): string => {
      switch (op) {
        case 'setup':
          if (setUp) throw new Error('already set up');
          setUp = true;
          runtime.setup(host, arg);
          return '';
        case 'run': {
          outOfMemory = false;
          const raw = runtime.run(arg);
          const outcome = JSON.parse(raw) as PythonBlockOutcome;
          outcome.outOfMemory = outOfMemory;
          return JSON.stringify(outcome);
        }
        case 'context': {
          const { index, json } = JSON.parse(arg) as { index: number; json: boolean };
          if (!data) throw new Error('context: no data');
          outOfMemory = false;
          try {
            runtime.load_context(index, json, new Uint8Array(data));
          } catch (err) {
            // A PythonError's message ends with the Python exception line.
            const text = err instanceof Error ? err.message.trim() : String(err);
            return JSON.stringify({ error: text.slice(text.lastIndexOf('\n') + 1), outOfMemory });
          }
          return JSON.stringify({ error: null, outOfMemory });
        }
        case 'set': {
          const { name, json } = JSON.parse(arg) as { name: string; json: string };
          runtime.set_value(name, json);
          return '';
        }
        case 'history':
          runtime.append_history(arg);
          return '';
        case 'list':
          return runtime.list_variables();
        case 'limit':
          memoryLimit = Number(arg);
          return '';
        case 'restored':
          return JSON.stringify(restoredPages);
        default:
          throw new Error(`unknown op ${op}`);
      }
    };
  };

  /** UTF-8 TextEncoder/TextDecoder, which V8 alone does not provide and Pyodide needs. */
  function installTextCodecs(g: Record<string, unknown>): void {
    const CHUNK = 8192;
    class Utf8Decoder {
      readonly encoding = 'utf-8';
      readonly fatal: boolean;
      constructor(_label?: string, options?: { fatal?: boolean }) {
        this.fatal = options?.fatal === true;
      }
      decode(input?: ArrayBufferView | ArrayBuffer): string {
        if (input === undefined) return '';
        const u8 = ArrayBuffer.isView(input) ? new Uint8Array(input.buffer, input.byteOffset, input.byteLength) : new Uint8Array(input);
        const n = u8.length;
        const parts: string[] = [];
        const codes = new Array<number>(CHUNK);
        let k = 0;
        let i = 0;
        const bad = (): number => {
          if (this.fatal) throw new TypeError('The encoded data was not valid utf-8');
          return 0xfffd;
        };
        const flush = (): void => {
          parts.push(String.fromCharCode.apply(null, k === CHUNK ? codes : codes.slice(0, k)));
          k = 0;
        };
        while (i < n) {
          let c = u8[i++]!;
          if (c >= 0x80) {
            const b1 = i < n ? u8[i]! : 0;
            const b2 = i + 1 < n ? u8[i + 1]! : 0;
            const b3 = i + 2 < n ? u8[i + 2]! : 0;
            if (c >= 0xc2 && c < 0xe0 && (b1 & 0xc0) === 0x80) {
              c = ((c & 0x1f) << 6) | (b1 & 0x3f);
              i += 1;
            } else if (c >= 0xe0 && c < 0xf0 && (b1 & 0xc0) === 0x80 && (b2 & 0xc0) === 0x80) {
              const cp = ((c & 0x0f) << 12) | ((b1 & 0x3f) << 6) | (b2 & 0x3f);
              if (cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff)) {
                c = cp;
                i += 2;
              } else c = bad();
            } else if (c >= 0xf0 && c < 0xf5 && (b1 & 0xc0) === 0x80 && (b2 & 0xc0) === 0x80 && (b3 & 0xc0) === 0x80) {
              const cp = ((c & 0x07) << 18) | ((b1 & 0x3f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f);
              if (cp >= 0x10000 && cp <= 0x10ffff) {
                i += 3;
                const v = cp - 0x10000;
                codes[k++] = 0xd800 + (v >> 10);
                if (k === CHUNK) flush();
                c = 0xdc00 + (v & 0x3ff);
              } else c = bad();
            } else c = bad();
          }
          codes[k++] = c;
          if (k === CHUNK) flush();
        }
        if (k > 0) flush();
        return parts.join('');
      }
    }
    class Utf8Encoder {
      readonly encoding = 'utf-8';
      encode(s = ''): Uint8Array {
        const buf = new Uint8Array(s.length * 3);
        return buf.slice(0, this.encodeInto(s, buf).written);
      }
      encodeInto(s: string, dest: Uint8Array): { read: number; written: number } {
        let w = 0;
        let r = 0;
        const n = s.length;
        const m = dest.length;
        for (; r < n; r++) {
          let c = s.charCodeAt(r);
          let units = 1;
          if (c >= 0xd800 && c < 0xdc00 && r + 1 < n) {
            const d = s.charCodeAt(r + 1);
            if (d >= 0xdc00 && d < 0xe000) {
              c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
              units = 2;
            } else c = 0xfffd;
          } else if (c >= 0xd800 && c < 0xe000) c = 0xfffd;
          if (c < 0x80) {
            if (w + 1 > m) break;
            dest[w++] = c;
          } else if (c < 0x800) {
            if (w + 2 > m) break;
            dest[w++] = 0xc0 | (c >> 6);
            dest[w++] = 0x80 | (c & 0x3f);
          } else if (c < 0x10000) {
            if (w + 3 > m) break;
            dest[w++] = 0xe0 | (c >> 12);
            dest[w++] = 0x80 | ((c >> 6) & 0x3f);
            dest[w++] = 0x80 | (c & 0x3f);
          } else {
            if (w + 4 > m) break;
            dest[w++] = 0xf0 | (c >> 18);
            dest[w++] = 0x80 | ((c >> 12) & 0x3f);
            dest[w++] = 0x80 | ((c >> 6) & 0x3f);
            dest[w++] = 0x80 | (c & 0x3f);
          }
          r += units - 1;
        }
        return { read: r, written: w };
      }
    }
    g.TextDecoder = Utf8Decoder;
    g.TextEncoder = Utf8Encoder;
  }
}
