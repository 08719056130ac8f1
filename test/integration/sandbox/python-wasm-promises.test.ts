// Inside a Python interpreter's isolate, WebAssembly's promise forms settled without waiting for
// a task while Pyodide loaded (V8 settles its own asynchronous compile through a task isolated-vm
// did not always run; about one start in ten hung). Once the interpreter has loaded, its
// allocation guard (sandbox/allocation-guard.ts) takes the promise forms away altogether, and
// only small modules made in the REPL run, synchronously: what ctypes needs. So an interpreter
// that started at all went through the loader's compile, and the forms are refused after it.
import { afterAll, describe, expect, it } from 'vitest';
import { coolPython, takeInterpreter } from '../../../src-main/sandbox/python/pool.ts';

afterAll(() => coolPython());

/** A module with one exported function `f` returning 42 (the smallest useful wasm). */
const MODULE = [0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 127, 3, 2, 1, 0, 7, 5, 1, 1, 102, 0, 0, 10, 6, 1, 4, 0, 65, 42, 11];

describe('the Python interpreter isolate: WebAssembly after the interpreter loaded', () => {
  it('the promise forms are refused with a clear error; a small module made here still runs', async () => {
    const interp = await takeInterpreter(64 * 1024 * 1024);
    try {
      const result = await interp.context.eval(
        `(() => {
          const bytes = new Uint8Array(${JSON.stringify(MODULE)});
          const seen = {};
          for (const name of ['compile', 'instantiate']) {
            try {
              WebAssembly[name](bytes);
              seen[name] = 'allowed';
            } catch (e) {
              seen[name] = e instanceof TypeError ? e.message : String(e);
            }
          }
          seen.sync = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports.f();
          return JSON.stringify(seen);
        })()`,
        { timeout: 5_000 },
      );
      expect(JSON.parse(String(result))).toEqual({
        compile: 'WebAssembly.compile is not available in this REPL',
        instantiate: 'WebAssembly.instantiate is not available in this REPL',
        sync: 42,
      });
    } finally {
      interp.dispose();
    }
  });
});
