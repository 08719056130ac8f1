// The CPython REPL (`--repl cpython`): the shared Python REPL suite (python-repl.test.ts) run
// against the machine's CPython in the OS sandbox, so both Python REPLs show the model the same
// names and semantics; then what only real CPython has: threads, installed packages.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { coolCPython } from '../../../src-main/sandbox/python/cpython-process.ts';
import { createCPythonRepl } from '../../../src-main/sandbox/python/cpython-repl.ts';
import type { Repl, ReplOptions } from '../../../src-main/sandbox/types.ts';
import { fakeBridge, SITE } from './helpers.ts';
import { pythonBackend } from './python-backend.ts';

/** Debian's python3, where bin/lib/ensure-sandbox.sh installs numpy. */
export const TEST_PYTHON = '/usr/bin/python3';

pythonBackend.create = (options) => createCPythonRepl({ ...options, python: TEST_PYTHON });
await import('./python-repl.test.ts');

const repls: Repl[] = [];
async function make(options: Partial<ReplOptions> = {}): Promise<Repl> {
  const repl = await createCPythonRepl({ bridge: fakeBridge(), python: TEST_PYTHON, ...options });
  repls.push(repl);
  return repl;
}
afterEach(() => {
  for (const repl of repls.splice(0)) repl.dispose();
});
afterAll(() => coolCPython());

describe('CPython REPL: what only real CPython has', () => {
  it('runs real threads: a pool of 16 keeps 16 sub-calls in flight at once', async () => {
    let inFlight = 0;
    let most = 0;
    const bridge = fakeBridge();
    bridge.llmQuery = async (prompt) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 200));
      inFlight--;
      return `llm:${prompt}`;
    };
    const repl = await make({ bridge });
    const r = await repl.execute(
      'from concurrent.futures import ThreadPoolExecutor\nanswers = list(ThreadPoolExecutor(16).map(llm_query, [f"q{i}" for i in range(32)]))\nprint(answers[0], answers[31], len(answers))',
      SITE,
    );
    expect(r.error).toBeNull();
    expect(r.stdout).toBe('llm:q0 llm:q31 32\n');
    expect(most).toBe(16);
  });

  it('imports the packages installed for that Python (numpy)', async () => {
    const repl = await make();
    const r = await repl.execute('import numpy as np\nprint(int(np.arange(10).sum()), np.__file__.startswith("/usr/"))', SITE);
    expect(r.error).toBeNull();
    expect(r.stdout).toBe('45 True\n');
  });

  it('raises MemoryError past the memory limit and keeps the session', async () => {
    const repl = await make({ memoryLimitMb: 64 });
    await repl.addContext(0, 'ctx');
    expect((await repl.execute('kept = 1', SITE)).error).toBeNull();
    const r = await repl.execute('block = bytearray(512 * 1024 * 1024)', SITE);
    expect(r.error?.name).toBe('MemoryError');
    expect(r.replReset).toBeNull();
    expect((await repl.execute('print(kept, context)', SITE)).stdout).toBe('1 ctx\n');
  });

  it('stops an endless loop at the CPU limit and reloads the contexts in a fresh interpreter', async () => {
    const repl = await make({ cpuLimitMs: 300 });
    await repl.addContext(0, 'ctx');
    await repl.execute('gone = 1', SITE);
    const r = await repl.execute('while True:\n    pass', SITE);
    expect(r.error?.name).toBe('TimeoutError');
    expect(r.replReset).toBe('cpu_limit');
    expect((await repl.execute('print("gone" in dir(), context)', SITE)).stdout).toBe('False ctx\n');
  });

  it('stops a block that sleeps past the wall limit, not counting sub-calls', async () => {
    const bridge = fakeBridge(400);
    const repl = await make({ wallLimitMs: 300, bridge });
    const slowCalls = await repl.execute('print(llm_query("a"), llm_query("b"))', SITE);
    expect(slowCalls.error).toBeNull();
    const r = await repl.execute('import time\ntime.sleep(5)', SITE);
    expect(r.replReset).toBe('wall_limit');
  });

  it('keeps output printed before the process was killed', async () => {
    const repl = await make({ cpuLimitMs: 300 });
    const r = await repl.execute('print("before", flush=True)\nwhile True:\n    pass', SITE);
    expect(r.stdout).toBe('before\n');
    expect(r.replReset).toBe('cpu_limit');
  });

  it('tells the next block when the interpreter ended between blocks, and reloads the contexts', async () => {
    const repl = await make();
    await repl.addContext(0, 'ctx');
    // A thread of the code's own ends the process after its block has returned.
    const r = await repl.execute('import os, threading\nkept = 1\nthreading.Timer(0.2, lambda: os._exit(3)).start()', SITE);
    expect(r.error).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const next = await repl.execute('print("kept" in dir(), context)', SITE);
    expect(next.replReset).toBe('crash');
    expect(next.stdout).toBe('False ctx\n');
    expect(next.stderr).toMatch(/^\[Before this block, the Python interpreter had ended \(it .+\)\. The REPL was restarted/);
  });

  it('names a missing interpreter and an old one', async () => {
    const missing = await createCPythonRepl({ bridge: fakeBridge(), python: '/nonexistent/python3' });
    repls.push(missing);
    const r = await missing.execute('x = 1', SITE).catch((err: Error) => err.message);
    expect(r).toMatch(/\/nonexistent\/python3 was not found: the CPython REPL needs Python 3\.10 or newer/);
  });
});
