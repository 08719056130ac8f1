// Python sessions in one process share what they can (the compiled wasm, the packed snapshot
// each interpreter restores from, the start gate) and nothing a session could see: each has
// its own interpreter, namespace and wasm memory, and one session's memory error, reset or
// disposal leaves the others as they were. Memory is read from inside Python with ctypes,
// the way model code could.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startInterpreter } from '../../../src-main/sandbox/python/interpreter.ts';
import { coolPython } from '../../../src-main/sandbox/python/pool.ts';
import { createPythonRepl } from '../../../src-main/sandbox/python/pyodide-repl.ts';
import type { Repl, ReplOptions } from '../../../src-main/sandbox/types.ts';
import { fakeBridge, printedBy, SITE } from './helpers.ts';

const repls: Repl[] = [];
async function make(options: Partial<ReplOptions> = {}): Promise<Repl> {
  const repl = await createPythonRepl({ bridge: fakeBridge(), cpuLimitMs: 20_000, ...options });
  repls.push(repl);
  return repl;
}
afterEach(() => {
  for (const repl of repls.splice(0)) repl.dispose();
});
afterAll(() => coolPython());

/** Python that prints whether the interpreter's whole wasm memory holds `hex`'s bytes four times over. */
const SCAN = (hex: string): string =>
  [
    'import ctypes',
    // Read from address 1: ctypes reads a null pointer's bytes as zeros.
    '_mem = ctypes.string_at(1, ctypes.CDLL(None).emscripten_get_heap_size() - 1)',
    // The needle is made after the read, so the memory read holds only this code's hex text.
    `print(bytes.fromhex("${hex}") * 4 in _mem)`,
    'del _mem',
  ].join('\n');

describe('Python sessions sharing a process', () => {
  it('start together, each with its own namespace and memory', async () => {
    const [a, b, c] = await Promise.all([make(), make(), make()]);
    await Promise.all([a, b, c].map((r, i) => r.addContext(0, `context of ${i}`)));
    // Random bytes made inside A, repeated so a scan cannot miss them; A prints them as hex.
    const secret = (await printedBy(a, 'import os\nsecret = os.urandom(16)\nblob = secret * 4096\nprint(secret.hex())')).trim();
    expect(secret).toMatch(/^[0-9a-f]{32}$/);
    await printedBy(b, 'mine = "b"');
    // The scan finds what is there (A's own memory) and not what is another's (B's, C's).
    expect(await printedBy(a, SCAN(secret))).toBe('True\n');
    expect(await printedBy(b, SCAN(secret))).toBe('False\n');
    expect(await printedBy(c, SCAN(secret))).toBe('False\n');
    expect(await printedBy(b, 'print("secret" in globals(), "blob" in globals(), mine, context)')).toBe('False False b context of 1\n');
    expect(await printedBy(a, 'print("mine" in globals(), context)')).toBe('False context of 0\n');
  });

  it("keep their state when another's interpreter is replaced or disposed", async () => {
    const [a, b, c] = await Promise.all([make({ memoryLimitMb: 128 }), make(), make()]);
    await printedBy(b, 'kept = [1, 2, 3]');
    await printedBy(c, 'also = "c"');
    const bomb = await a.execute('x = 1\nbig = bytearray(1024 ** 3)', SITE);
    expect(bomb.error?.name).toBe('MemoryError');
    expect(bomb.replReset).toBe('memory_limit');
    await c.dispose();
    expect(await printedBy(b, 'kept.append(4)\nprint(kept)')).toBe('[1, 2, 3, 4]\n');
    expect(await printedBy(a, 'print("x" in globals())')).toBe('False\n');
  });

  it('restore only the nonzero pages of the snapshot into a fresh memory', async () => {
    const interp = await startInterpreter(2 ** 31);
    try {
      const restored = JSON.parse(String(await interp.control.apply(undefined, ['restored', ''], { timeout: 5_000 }))) as {
        bytes: number;
        of: number;
      };
      // Some pages copied (the interpreter's state), not all of them: the zero pages were skipped.
      expect(restored.of).toBeGreaterThan(0);
      expect(restored.bytes).toBeGreaterThan(0);
      expect(restored.bytes).toBeLessThan(restored.of);
    } finally {
      interp.dispose();
    }
  });
});
