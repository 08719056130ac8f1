// Code in the sandbox must not reach the host: no Node globals, no ivm objects, no shared
// prototypes. Each probe prints what it found; the host-side asserts check nothing leaked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIsolatedRepl } from '../../../src-main/sandbox/isolated-repl.ts';
import type { Repl } from '../../../src-main/sandbox/types.ts';
import { fakeBridge, SITE } from './helpers.ts';

let repl: Repl;
beforeAll(async () => {
  repl = await createIsolatedRepl({ bridge: fakeBridge(), tools: { hostTool: () => ({ made: 'on host' }) } });
  await repl.addContext(0, { nested: { list: [1] } });
});
afterAll(() => repl.dispose());

async function run(code: string): Promise<string> {
  const r = await repl.execute(code, SITE);
  if (r.error) return `${r.stdout}!${r.error.name}: ${r.error.message}`;
  return r.stdout;
}

describe('sandbox boundary', () => {
  it('has no require, process, module, Buffer or timers', async () => {
    expect(
      await run(
        'print([typeof require, typeof process, typeof module, typeof Buffer, typeof setTimeout, typeof fetch, typeof globalThis.global].join(","))',
      ),
    ).toBe('undefined,undefined,undefined,undefined,undefined,undefined,undefined\n');
  });

  it('calling require or process throws a ReferenceError inside the block', async () => {
    expect(await run('require("fs")')).toMatch(/!ReferenceError: require is not defined/);
    expect(await run('process.exit(1)')).toMatch(/!ReferenceError: process is not defined/);
  });

  it('Function-constructor tricks stay inside the isolate', async () => {
    const out = await run(
      [
        "print(this.constructor.constructor('return typeof process')())",
        "print(typeof ({}).constructor.constructor('return this')().process)",
        "print(typeof eval('typeof require') , eval('typeof process'))",
        "print(llm_query.constructor('return typeof process')())",
        "print(typeof Object.getPrototypeOf(llm_query).constructor('return globalThis.process')())",
      ].join('\n'),
    );
    expect(out).toBe('undefined\nundefined\nstring undefined\nundefined\nundefined\n');
    expect(await run("this.constructor.constructor('return process')()")).toBe('!ReferenceError: process is not defined');
  });

  it('dynamic import fails cleanly', async () => {
    const out = await run('try { await import("fs"); print("imported") } catch (e) { print("refused", e.name) }');
    expect(out).toMatch(/^refused /);
    const sync = await run('import("node:child_process").then(() => print("imported"), () => print("refused"))');
    expect(sync).toBe('refused\n');
  });

  it('injected functions and bridge results have the isolate own prototypes', async () => {
    const out = await run(
      [
        'const chains = [llm_query, print, SHOW_VARS, hostTool, console.log, llm_query("x"), llm_query_batched(["a"]), hostTool(), context, answer];',
        'const ok = chains.every((v) => {',
        '  let p = Object(v);',
        '  for (let i = 0; i < 10 && p; i++) {',
        '    if (p === Object.prototype || p === Function.prototype || p === Array.prototype || p === String.prototype) return true;',
        '    p = Object.getPrototypeOf(p);',
        '  }',
        '  return false;',
        '});',
        'print(ok, Object.getPrototypeOf(hostTool()) === Object.prototype, Array.isArray(llm_query_batched(["a"])))',
        'print(Object.getOwnPropertyNames(globalThis).filter((n) => /^(ivm|Reference|ExternalCopy|Callback|Isolate|Context|Script|NativeModule)$|^\\$/.test(n)).join(",") || "none")',
      ].join('\n'),
    );
    expect(out).toBe('true true true\nnone\n');
  });

  it('prototype pollution inside the isolate does not reach the host', async () => {
    const out = await run(
      [
        'Object.prototype.polluted = 1;',
        'Array.prototype.push = () => { throw new Error("hijacked") };',
        'Array.prototype.map = null; String.prototype.slice = null; JSON.stringify = () => "x";',
        'Function.prototype.call = null; Object.defineProperty = null;',
        'print("still printing", [1, 2])',
      ].join('\n'),
    );
    expect(out).toBe('still printing [1, 2]\n');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const arr: number[] = [];
    arr.push(1);
    expect(arr.map((n) => n * 2)).toEqual([2]);
    expect(JSON.stringify({ a: 1 })).toBe('{"a":1}');
    // The REPL itself keeps working for later blocks.
    const next = await repl.execute('print(llm_query("still"))', SITE);
    expect(next.stdout).toBe('llm:still\n');
    expect(next.variables).toContain('context');
    // Clean up for the other tests sharing this REPL.
    await repl.execute('delete Object.prototype.polluted', SITE);
  });

  it('values handed to host tools arrive as plain copies', async () => {
    const received: unknown[] = [];
    const r2 = await createIsolatedRepl({
      bridge: fakeBridge(),
      tools: {
        grab: (v) => {
          received.push(v);
          return 'ok';
        },
      },
    });
    try {
      const r = await r2.execute(
        'grab({toString() { return "x" }, get g() { return 1 }, nested: {fn: () => 1}}); grab(globalThis.nothing)',
        SITE,
      );
      expect(r.error).toBeNull();
      expect(received).toEqual([{ g: 1, nested: {} }, null]);
      expect(Object.getPrototypeOf(received[0])).toBe(Object.prototype);
    } finally {
      r2.dispose();
    }
  });
});
