// Python REPL limits: a runaway block ends with an error the model sees and a fresh interpreter
// with the contexts re-loaded. No test asserts a duration; vitest timeouts stand for "did not hang".
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { coolPython } from '../../../src-main/sandbox/python/pool.ts';
import { createPythonRepl } from '../../../src-main/sandbox/python/pyodide-repl.ts';
import type { Repl, ReplOptions } from '../../../src-main/sandbox/types.ts';
import { fakeBridge, SITE } from './helpers.ts';

const repls: Repl[] = [];
async function make(options: Partial<ReplOptions> = {}): Promise<Repl> {
  const repl = await createPythonRepl({ bridge: fakeBridge(), cpuLimitMs: 500, wallLimitMs: 2_000, memoryLimitMb: 128, ...options });
  repls.push(repl);
  return repl;
}
afterEach(() => {
  for (const repl of repls.splice(0)) repl.dispose();
});
afterAll(() => coolPython());

describe('Python REPL limits', () => {
  it('stops an endless loop, keeps what it printed first, and re-loads contexts, histories and tools', async () => {
    const repl = await make({ tools: { VALUE: 7, twice: (n) => Number(n) * 2 } });
    await repl.addContext(0, 'the context');
    await repl.addHistory(0, ['turn one']);
    await repl.appendHistory(['compacted one']);
    await repl.execute('mine = 1', SITE);
    await repl.appendHistory(['compacted two']);
    const r = await repl.execute('print("started")\nwhile True:\n    pass', SITE);
    expect(r.replReset).toBe('cpu_limit');
    expect(r.error?.name).toBe('TimeoutError');
    expect(r.error?.message).toMatch(/CPU time/);
    expect(r.error?.message).toMatch(/variable you created is gone/);
    expect(r.stdout).toBe('started\n');
    expect(r.variables).toEqual(['answer', 'VALUE', 'context_0', 'context', 'history_0', 'history']);
    const next = await repl.execute('print(context, history_0[0], "+".join(history), VALUE, twice(2), "mine" in dir())', SITE);
    expect(next.error).toBeNull();
    expect(next.replReset).toBeNull();
    expect(next.stdout).toBe('the context turn one compacted one+compacted two 7 4 False\n');
  });

  it('ends an allocation bomb with MemoryError and a fresh interpreter', async () => {
    const repl = await make({ cpuLimitMs: 20_000 });
    await repl.addContext(0, 'still here');
    const single = await repl.execute('x = 1\nb = bytearray(1024 ** 3)', SITE);
    expect(single.error?.name).toBe('MemoryError');
    expect(single.replReset).toBe('memory_limit');
    const growing = await repl.execute('chunks = []\nwhile True:\n    chunks.append("x" * 1_000_000)', SITE);
    expect(growing.error?.name).toBe('MemoryError');
    expect(growing.error?.message).toMatch(/out of memory .*variable you created is gone/);
    expect(growing.replReset).toBe('memory_limit');
    expect((await repl.execute('print(context)', SITE)).stdout).toBe('still here\n');
  });

  it('does not count time blocked in sub-calls against the wall limit', async () => {
    const repl = await make({ bridge: fakeBridge(400), wallLimitMs: 250 });
    const r = await repl.execute('print(llm_query("slow"), len(llm_query_batched(["a", "b"])))', SITE);
    expect(r.error).toBeNull();
    expect(r.stdout).toBe('llm:slow 2\n');
  });

  it('stops a block that sleeps past the wall limit', async () => {
    const repl = await make({ wallLimitMs: 300, cpuLimitMs: 20_000 });
    const r = await repl.execute('import time\ntime.sleep(30)', SITE);
    expect(r.replReset === 'wall_limit' || r.replReset === 'cpu_limit').toBe(true);
    expect(r.error?.name).toBe('TimeoutError');
  });

  it('caps output and says how much was dropped', async () => {
    const repl = await make({ outputCapChars: 1000 });
    const r = await repl.execute('for i in range(500):\n    print("line", i)', SITE);
    expect(r.stdout.length).toBeLessThan(1100);
    expect(r.stdout).toMatch(/\[\.\.\. \d+ more characters not captured\]\n$/);
  });

  // Generous timeout: the overflow allocates ~100 MB of wasm memory, and beside the suite's other
  // files on a 2-core machine that took more than 30 s once (about 1.5 s alone).
  it('refuses a context that does not fit in memory with an error naming it', { timeout: 120_000 }, async () => {
    const repl = await make({ memoryLimitMb: 48 });
    // An empty dict takes well over the 8 times its JSON that the REPL allows for parsed JSON;
    // a small base limit keeps the overflow, and the test, cheap.
    const dicts = Array.from({ length: 3_000_000 }, () => ({}));
    await expect(repl.addContext(0, dicts)).rejects.toThrow(/context_0 does not fit in the Python REPL's memory limit/);
  });

  // Room is made for a text context's UTF-8 bytes (what the interpreter reads), not its UTF-16
  // length: counted by length, 16 M CJK characters (48 MB read, a 32 MB str) were refused as
  // not fitting a 93 MB limit.
  it('loads a non-ASCII text context with room for its UTF-8 bytes', { timeout: 120_000 }, async () => {
    const repl = await make({ memoryLimitMb: 32, cpuLimitMs: 10_000 });
    await repl.addContext(0, '中'.repeat(16_000_000));
    const r = await repl.execute('print(len(context), context[:2], context.count("中"))', SITE);
    expect(r.error).toBeNull();
    expect(r.stdout).toBe('16000000 中中 16000000\n');
  });
});
