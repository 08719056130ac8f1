// Inside a Python interpreter's isolate, WebAssembly's promise forms settle without waiting for
// a task. V8 settles its own asynchronous compile through a task posted to the isolate, which
// isolated-vm did not always run while nothing else called into the isolate; Pyodide's loader
// awaits such a compile, so about one interpreter start in ten made beside running ones never
// finished (an evaluation hung on its next session's first block). The check below runs only
// microtasks: V8's own promises cannot settle in it, the replacements must.
import { afterAll, describe, expect, it } from 'vitest';
import { coolPython, takeInterpreter } from '../../../src-main/sandbox/python/pool.ts';

afterAll(() => coolPython());

/** A module with one exported function `f` returning 42 (the smallest useful wasm). */
const MODULE = [0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 127, 3, 2, 1, 0, 7, 5, 1, 1, 102, 0, 0, 10, 6, 1, 4, 0, 65, 42, 11];

describe('the Python interpreter isolate: WebAssembly promises', () => {
  it('compile and instantiate settle within microtasks, with the values the standard gives', async () => {
    const interp = await takeInterpreter(64 * 1024 * 1024);
    try {
      const result = await interp.context.eval(
        `(async () => {
          const bytes = new Uint8Array(${JSON.stringify(MODULE)});
          const seen = {};
          WebAssembly.compile(bytes).then((m) => { seen.compiled = m instanceof WebAssembly.Module; });
          WebAssembly.instantiate(bytes).then((r) => { seen.fromBytes = r.module instanceof WebAssembly.Module && r.instance.exports.f(); });
          WebAssembly.instantiate(new WebAssembly.Module(bytes)).then((i) => { seen.fromModule = i instanceof WebAssembly.Instance && i.exports.f(); });
          WebAssembly.compile(new Uint8Array([1, 2, 3])).catch((e) => { seen.rejected = e instanceof WebAssembly.CompileError; });
          for (let i = 0; i < 20; i++) await null;
          return JSON.stringify(seen);
        })()`,
        { promise: true, timeout: 5_000 },
      );
      expect(JSON.parse(String(result))).toEqual({ compiled: true, fromBytes: 42, fromModule: 42, rejected: true });
    } finally {
      interp.dispose();
    }
  });
});
