// Resource limits: a runaway block ends with an error the model sees and, where the isolate had
// to go, a fresh REPL with the contexts re-loaded. No test asserts a duration; vitest timeouts
// stand for "did not hang".
import { afterEach, describe, expect, it } from 'vitest';
import { createIsolatedRepl } from '../../../src-main/sandbox/isolated-repl.ts';
import type { Repl, ReplOptions } from '../../../src-main/sandbox/types.ts';
import { fakeBridge, SITE } from './helpers.ts';

const docs = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i, text: `document number ${i}`, tags: ['a'] }));

const repls: Repl[] = [];
async function make(options: Partial<ReplOptions> = {}): Promise<Repl> {
  const repl = await createIsolatedRepl({ bridge: fakeBridge(), cpuLimitMs: 500, wallLimitMs: 2_000, ...options });
  repls.push(repl);
  return repl;
}
afterEach(() => {
  for (const repl of repls.splice(0)) repl.dispose();
});

describe('CPU and wall limits', () => {
  it('stops an endless loop, resets the REPL and re-loads the contexts', async () => {
    const repl = await make({ tools: { VALUE: 7, twice: (n) => Number(n) * 2 } });
    await repl.addContext(0, 'the context');
    await repl.addHistory(0, ['turn one']);
    await repl.execute('const mine = 1', SITE);
    const r = await repl.execute('print("started"); while (true) {}', SITE);
    expect(r.replReset).toBe('cpu_limit');
    expect(r.error?.name).toBe('TimeoutError');
    expect(r.error?.message).toMatch(/CPU time/);
    expect(r.error?.message).toMatch(/variable you created is gone/);
    expect(r.stdout).toBe('started\n');
    expect(r.variables).toEqual(['answer', 'VALUE', 'context_0', 'context', 'history_0', 'history']);
    const next = await repl.execute('print(context, history[0], VALUE, twice(2), typeof mine)', SITE);
    expect(next.error).toBeNull();
    expect(next.replReset).toBeNull();
    expect(next.stdout).toBe('the context turn one 7 4 undefined\n');
  });

  it('stops an endless microtask loop', async () => {
    const repl = await make();
    const r = await repl.execute('(function spin() { Promise.resolve().then(spin) })()', SITE);
    expect(r.replReset).toBe('cpu_limit');
    expect((await repl.execute('print("alive")', SITE)).stdout).toBe('alive\n');
  });

  it('stops a block waiting forever on a promise at the wall limit', async () => {
    const repl = await make({ wallLimitMs: 500 });
    const r = await repl.execute('await new Promise(() => {})', SITE);
    expect(r.replReset).toBe('wall_limit');
    expect(r.error?.name).toBe('TimeoutError');
    expect(r.error?.message).toMatch(/not counting sub-calls/);
  });

  it('does not count time blocked in slow sub-calls against either limit', async () => {
    const repl = await make({ bridge: fakeBridge(1_500), cpuLimitMs: 500, wallLimitMs: 1_000 });
    const r = await repl.execute('const a = llm_query("slow"); const b = rlm_query("slower"); print(a, b)', SITE);
    expect(r.error).toBeNull();
    expect(r.replReset).toBeNull();
    expect(r.stdout).toBe('llm:slow rlm:slower\n');
    expect(r.cpuMs).toBeLessThan(500);
  });

  it('does not count time blocked in a slow async tool either', async () => {
    const repl = await make({
      wallLimitMs: 500,
      tools: { wait: () => new Promise((resolve) => setTimeout(() => resolve('waited'), 1_200)) },
    });
    const r = await repl.execute('print(wait())', SITE);
    expect(r.error).toBeNull();
    expect(r.stdout).toBe('waited\n');
  });
});

describe('memory', () => {
  it('ends an allocation bomb with an error and a fresh REPL; the host survives', { timeout: 60_000 }, async () => {
    const repl = await make({ memoryLimitMb: 64, cpuLimitMs: 30_000, wallLimitMs: 60_000 });
    await repl.addContext(0, 'still here');
    const r = await repl.execute('const hoard = []; while (true) hoard.push("x".repeat(1024) + hoard.length)', SITE);
    expect(r.replReset).toBe('memory_limit');
    expect(r.error?.name).toBe('RangeError');
    expect(r.error?.message).toMatch(/out of memory/);
    expect((await repl.execute('print(context)', SITE)).stdout).toBe('still here\n');
  });

  it('grows a fresh isolate to fit a large structured context', { timeout: 60_000 }, async () => {
    const repl = await make({ memoryLimitMb: 16, cpuLimitMs: 30_000, wallLimitMs: 60_000 });
    await repl.addContext(0, docs(300_000));
    const r = await repl.execute('print(context.length, context[299_999].text)', SITE);
    expect(r.error).toBeNull();
    expect(r.stdout).toBe('300000 document number 299999\n');
  });

  it('replaces a used isolate that a later context does not fit, and says so', { timeout: 60_000 }, async () => {
    const repl = await make({ memoryLimitMb: 16, cpuLimitMs: 30_000, wallLimitMs: 60_000 });
    await repl.addContext(0, 'small');
    await repl.execute('const mine = 1', SITE);
    await repl.addContext(1, docs(300_000));
    const r = await repl.execute('print(context_1.length, typeof mine, context)', SITE);
    expect(r.stdout).toBe('300000 undefined small\n');
    expect(r.replReset).toBe('memory_limit');
    expect(r.stderr).toMatch(/loading context_1 did not fit/);
    expect((await repl.execute('1', SITE)).replReset).toBeNull();
  });

  it('loads a 100 MB string context', { timeout: 120_000 }, async () => {
    const repl = await make({ cpuLimitMs: 30_000, wallLimitMs: 60_000 });
    const big = 'abcdefghij'.repeat(10_000_000);
    const needle = 'NEEDLE-42';
    const context = big.slice(0, 50_000_000) + needle + big.slice(50_000_000);
    await repl.addContext(0, context);
    const r = await repl.execute(
      'print(context.length, context.slice(50_000_000, 50_000_009), context.indexOf("NEEDLE"), context_0 === context)',
      SITE,
    );
    expect(r.error).toBeNull();
    expect(r.stdout).toBe(`${context.length} ${needle} 50000000 true\n`);
  });
});

describe('output cap', () => {
  it('caps huge stdout with a note and keeps host memory bounded', { timeout: 60_000 }, async () => {
    const repl = await make({ outputCapChars: 100_000, cpuLimitMs: 30_000, wallLimitMs: 60_000 });
    const before = process.memoryUsage().heapUsed;
    const r = await repl.execute(
      'const line = "y".repeat(99); for (let i = 0; i < 200_000; i++) print(line); console.error("e".repeat(5_000_000))',
      SITE,
    );
    expect(r.error).toBeNull();
    const note = '[... 19900000 more characters not captured]\n';
    expect(r.stdout.endsWith(note)).toBe(true);
    expect(r.stdout.length).toBe(100_000 + note.length);
    expect(r.stderr).toMatch(/^e{100000}\n\[\.\.\. 4900001 more characters not captured\]\n$/);
    // 20 M characters were printed; the host kept ~100 K of them.
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(64 * 1024 * 1024);
  });

  it('uses a 1,000,000-character cap by default', { timeout: 60_000 }, async () => {
    const repl = await make({ cpuLimitMs: 30_000, wallLimitMs: 60_000 });
    const r = await repl.execute('print("z".repeat(1_500_000))', SITE);
    expect(r.stdout.startsWith('z'.repeat(1_000_000))).toBe(true);
    expect(r.stdout.slice(1_000_000)).toBe('\n[... 500001 more characters not captured]\n');
  });
});
