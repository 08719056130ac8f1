// Allocation paths that isolated-vm's memory limit does not see, closed INSIDE an isolate before
// any code runs there. The limit counts V8's heap and the ArrayBuffers V8 allocates through the
// isolate's allocator; it does not count WebAssembly memories (a `new WebAssembly.Memory` of
// 768 MiB, a memory grown, a module that declares its own) nor the pages a resizable ArrayBuffer
// or growable SharedArrayBuffer commits when it grows, which V8 reserves and commits itself.
// Model code took a sandbox process to 1.6 GB through them under a 256 MB limit.
//
// `guardAllocations` is never called on the host: its source text is evaluated in the isolate
// (like runtime.ts and python/isolate-side.ts), so it must be self-contained: no imports, no
// module scope, only syntax that survives type stripping. What it replaces is replaced for the
// whole realm and the originals stay only in this closure; the Python REPL's isolate keeps
// WebAssembly until Pyodide has loaded and then calls `lockWebAssembly`, after which no new
// memory, module or instance can be made there (its one memory's growth is limited by
// python/isolate-side.ts).

/** What the Python REPL's boot calls once Pyodide has loaded. */
export interface AllocationGuard {
  /** No new WebAssembly memories, tables, modules or instances from now on, by any route. */
  lockWebAssembly(): void;
}

/**
 * Installs the guards on `G` (the isolate's global object). `keepWebAssembly`: false removes
 * WebAssembly from the realm at once (the JavaScript REPL never needs it); true leaves it for
 * the caller to lock once its own modules are instantiated.
 */
export function guardAllocations(G: Record<string, unknown>, keepWebAssembly: boolean): AllocationGuard {
  'use strict';
  const defineProperty = Object.defineProperty;
  const getOwnDesc = Object.getOwnPropertyDescriptor;
  const reflectConstruct = Reflect.construct;
  const ObjectCtor = Object;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const WeakSetCtor = WeakSet;
  const Uint8ArrayCtor = Uint8Array;
  const ArrayBufferIsView = ArrayBuffer.isView;
  const callBound = <A extends unknown[], R>(fn: (...args: A) => R): ((self: unknown, ...args: A) => R) => Function.prototype.call.bind(fn);
  const typedArrayProto = Object.getPrototypeOf(Uint8Array.prototype) as object;
  const typedGetter = (name: string): ((self: unknown) => unknown) => callBound(getOwnDesc(typedArrayProto, name)!.get!);
  const typedBuffer = typedGetter('buffer');
  const typedOffset = typedGetter('byteOffset');
  const typedLength = typedGetter('byteLength');
  /** A module made after the interpreter loaded: Emscripten's are tens of bytes. */
  const MODULE_BYTES_MAX = 65_536;

  // Resizable ArrayBuffers and growable SharedArrayBuffers: refused. A plain buffer (its
  // length fixed when made) goes through the isolate's allocator and counts against the limit.
  // The options are read once, here, and never handed on: a getter cannot answer one thing to
  // this check and another to the constructor.
  const wrapBuffer = (name: 'ArrayBuffer' | 'SharedArrayBuffer'): void => {
    const Original = G[name] as (new (length: number) => object) | undefined;
    if (typeof Original !== 'function') return;
    const proto = Original.prototype as object;
    const Guarded = function (this: unknown, length?: unknown, options?: unknown): object {
      if (new.target === undefined) throw new TypeErrorCtor(`Constructor ${name} requires 'new'`);
      if (options !== undefined && options !== null && typeof options === 'object') {
        const max = (options as { maxByteLength?: unknown }).maxByteLength;
        if (max !== undefined) throw new TypeErrorCtor(`resizable ${name}s (maxByteLength) are not available in this REPL`);
      }
      return reflectConstruct(Original, [length], new.target) as object;
    };
    defineProperty(Guarded, 'prototype', { value: proto, writable: false, enumerable: false, configurable: false });
    defineProperty(Guarded, 'name', { value: name });
    defineProperty(Guarded, 'length', { value: 1 });
    const isView = getOwnDesc(Original, 'isView');
    if (isView) defineProperty(Guarded, 'isView', isView);
    const species = getOwnDesc(Original, Symbol.species);
    if (species) defineProperty(Guarded, Symbol.species, species);
    // The prototype's `constructor` is the other way to the original (`new Uint8Array(1).buffer.constructor`).
    defineProperty(proto, 'constructor', { value: Guarded, writable: false, enumerable: false, configurable: false });
    defineProperty(G, name, { value: Guarded, writable: true, enumerable: false, configurable: true });
  };
  wrapBuffer('ArrayBuffer');
  wrapBuffer('SharedArrayBuffer');

  const wasm = G.WebAssembly as Record<string, unknown> | undefined;
  if (!keepWebAssembly) delete G.WebAssembly;

  return {
    lockWebAssembly(): void {
      if (!wasm) return;
      const refuse = (what: string) =>
        function refused(): never {
          throw new TypeErrorCtor(`WebAssembly.${what} is not available in this REPL`);
        };
      const OriginalModule = wasm.Module as new (bytes: Uint8Array) => object;
      const OriginalInstance = wasm.Instance as new (module: object, imports?: object) => object;
      const approved = new WeakSetCtor<object>();
      const weakAdd = callBound(WeakSetCtor.prototype.add);
      const weakHas = callBound(WeakSetCtor.prototype.has);
      // Pyodide still makes modules after it has loaded: ctypes and other calls through a
      // function pointer of a new signature compile a tiny module that imports one function
      // (Emscripten's convertJsFunctionToWasm). Such modules are allowed: small, with no memory
      // of their own and none imported (a module importing the interpreter's memory could grow
      // it with its own memory.grow, past the check in python/isolate-side.ts). Only modules
      // made here may be instantiated: the interpreter's own module, instantiated again, would
      // bring a memory of its own each time.
      const GuardedModule = function Module(this: unknown, bytes: unknown): object {
        if (new.target === undefined) throw new TypeErrorCtor("Constructor WebAssembly.Module requires 'new'");
        const copy = copyBytes(bytes);
        const problem = moduleProblem(copy);
        if (problem) throw new TypeErrorCtor(`WebAssembly.Module: ${problem}; not available in this REPL`);
        const module: object = reflectConstruct(OriginalModule, [copy]);
        weakAdd(approved, module);
        return module;
      };
      const GuardedInstance = function Instance(this: unknown, module: unknown, imports?: unknown): object {
        if (new.target === undefined) throw new TypeErrorCtor("Constructor WebAssembly.Instance requires 'new'");
        if (typeof module !== 'object' || module === null || !weakHas(approved, module)) {
          throw new TypeErrorCtor('WebAssembly.Instance: only modules made in this REPL may be instantiated');
        }
        return reflectConstruct(OriginalInstance, [module, imports]) as object;
      };
      const replace = (name: string, stand: (...args: never[]) => unknown): void => {
        const Original = wasm[name] as ((...args: never[]) => unknown) | undefined;
        if (typeof Original !== 'function') return;
        const proto = Original.prototype as object;
        defineProperty(stand, 'prototype', { value: proto, writable: false, enumerable: false, configurable: false });
        // An interpreter's memory, table or instance leads to its constructor this way too.
        defineProperty(proto, 'constructor', { value: stand, writable: false, enumerable: false, configurable: false });
        defineProperty(wasm, name, { value: stand, writable: false, enumerable: false, configurable: false });
      };
      for (const name of ['Memory', 'Table', 'Global']) replace(name, refuse(name));
      replace('Module', GuardedModule);
      replace('Instance', GuardedInstance);
      for (const name of ['compile', 'instantiate', 'compileStreaming', 'instantiateStreaming']) {
        if (name in wasm) defineProperty(wasm, name, { value: refuse(name), writable: false, enumerable: false, configurable: false });
      }
      ObjectCtor.freeze(wasm);
    },
  };

  /** The bytes of a buffer or view, copied once (what is checked is what is compiled). */
  function copyBytes(bytes: unknown): Uint8Array {
    let view: Uint8Array;
    try {
      view = ArrayBufferIsView(bytes)
        ? new Uint8ArrayCtor(typedBuffer(bytes) as ArrayBuffer, typedOffset(bytes) as number, typedLength(bytes) as number)
        : new Uint8ArrayCtor(bytes as ArrayBuffer);
    } catch {
      throw new TypeErrorCtor('WebAssembly.Module: an ArrayBuffer or a typed array of the module is required');
    }
    if (view.length > MODULE_BYTES_MAX)
      throw new TypeErrorCtor(`WebAssembly.Module: ${view.length} bytes, at most ${MODULE_BYTES_MAX} in this REPL`);
    const copy = new Uint8ArrayCtor(view.length);
    for (let i = 0; i < view.length; i++) copy[i] = view[i]!;
    return copy;
  }

  /** Why a module may not be made here (a memory of its own or imported, or bytes not read as a module), or null. */
  function moduleProblem(b: Uint8Array): string | null {
    let at = 8;
    const byte = (): number => {
      if (at >= b.length) throw new RangeErrorCtor('truncated');
      return b[at++]!;
    };
    const leb = (): number => {
      let result = 0;
      for (let shift = 0; shift < 35; shift += 7) {
        const x = byte();
        result += (x & 0x7f) * 2 ** shift;
        if ((x & 0x80) === 0) return result;
      }
      throw new RangeErrorCtor('bad LEB128');
    };
    const skip = (n: number): void => {
      if (n > b.length - at) throw new RangeErrorCtor('truncated');
      at += n;
    };
    const valueType = (): void => {
      const t = byte();
      if (t === 0x63 || t === 0x64) leb(); // (ref null? heaptype)
    };
    const limits = (): void => {
      const flags = byte();
      leb();
      if (flags & 1) leb();
    };
    try {
      if (b.length < 8 || b[0] !== 0 || b[1] !== 0x61 || b[2] !== 0x73 || b[3] !== 0x6d) return 'not a WebAssembly module';
      while (at < b.length) {
        const id = byte();
        const size = leb();
        const end = at + size;
        if (end > b.length) return 'a section runs past the end';
        if (id === 5) return 'a module with a memory of its own';
        if (id === 2) {
          const count = leb();
          for (let i = 0; i < count; i++) {
            skip(leb()); // module name
            skip(leb()); // field name
            const kind = byte();
            if (kind === 2) return 'a module that imports a memory';
            if (kind === 0) leb();
            else if (kind === 1) {
              valueType();
              limits();
            } else if (kind === 3) {
              valueType();
              byte();
            } else if (kind === 4) {
              byte();
              leb();
            } else return 'an import of an unknown kind';
          }
          if (at !== end) return 'an import section not read to its end';
        }
        at = end;
      }
      return null;
    } catch {
      return 'bytes that are not read as a module';
    }
  }
}
