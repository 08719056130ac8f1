// The memory limit against every allocation path model code has in the Python REPL, including
// the JavaScript of the interpreter's isolate, which Python reaches (a host hook's JsProxy leads
// to the isolate's Function). Each probe must end with an error the block reports, the REPL
// going on, and the sandbox process's peak resident size (from /proc) within the wasm limit,
// the isolate's own JavaScript heap and a fixed allowance. Before allocation-guard.ts and the
// hardened grow in isolate-side.ts, a Function.prototype.call trap restored the unguarded grow
// and a 1.5 GiB bytearray went through; new memories and modules were unchecked, and a
// getRandomValues whose view lied about its length made the process allocate ~3x N.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxProcess } from '../../../src-main/engine/sandbox-process/sandbox-process.ts';
import type { Repl } from '../../../src-main/sandbox/types.ts';
import { fakeBridge, SITE } from './helpers.ts';
import { peakMb, residentMb, resetPeak } from './peak-memory.ts';

const LIMIT_MB = 128;
/** The interpreter's JavaScript heap (python/interpreter.ts ISOLATE_HEAP_MB), which the code may fill too. */
const ISOLATE_HEAP_MB = 256;
/** A replaced interpreter, the next one started, V8's young generation. */
const ALLOWANCE_MB = 192;
const ASK_PAGES = 24576; // 1.5 GiB of wasm pages

let sandbox: SandboxProcess;
let repl: Repl;
let pid: number;

beforeAll(async () => {
  sandbox = new SandboxProcess();
  repl = await sandbox.replFactory('python')({ bridge: fakeBridge(), tools: {}, memoryLimitMb: LIMIT_MB, cpuLimitMs: 60_000 });
  await repl.addContext(0, 'the context');
  expect((await repl.execute('print(context)', SITE)).stdout).toBe('the context\n');
  pid = sandbox.pid!;
});
afterAll(() => sandbox.close());

/** Python that runs `js` (a function body) in the interpreter's isolate, the way an attacker gets there. */
const inIsolate = (js: string): string =>
  `import sys\nF = sys.modules['_rlm_runtime']._host.call.constructor\nprint(F(${JSON.stringify(js)})())`;

const probes: [string, string, RegExp][] = [
  ['a bytearray bomb', 'parts = []\nwhile True:\n    parts.append(bytearray(32 * 2**20))', /^MemoryError/],
  ['one bytearray past the limit', 'b = bytearray(1536 * 2**20)', /^MemoryError/],
  [
    "the wasm memory's grow, restored through a Function.prototype.call trap",
    [
      'import sys',
      "F = sys.modules['_rlm_runtime']._host.call.constructor",
      'F("const FP = Function.prototype; FP.call = function (...a) { if (!globalThis.cap && this && this.name === \'grow\') globalThis.cap = this; return Reflect.apply(this, a[0], a.slice(1)); };")()',
      'warm = bytearray(96 * 2**20)',
      'del warm',
      "print(F(\"if (globalThis.cap) { WebAssembly.Memory.prototype.grow = globalThis.cap; return 'restored'; } return 'no capture';\")())",
      'b = bytearray(1536 * 2**20)',
    ].join('\n'),
    /^MemoryError/,
  ],
  [
    'a grow whose buffer getter lies',
    inIsolate(
      `const P = WebAssembly.Memory.prototype; const g = P.grow; Object.defineProperty(P, 'buffer', { get() { return new ArrayBuffer(0); } }); return 'redefined'`,
    ) + '\nb = bytearray(1536 * 2**20)',
    /^MemoryError/,
  ],
  [
    'a new WebAssembly memory',
    inIsolate(`const m = new WebAssembly.Memory({ initial: ${ASK_PAGES} }); new Uint8Array(m.buffer).fill(1);`),
    /WebAssembly\.Memory is not available/,
  ],
  [
    "a memory made through an interpreter's prototype",
    inIsolate(
      `const M = WebAssembly.Memory.prototype.constructor; const m = new M({ initial: ${ASK_PAGES} }); new Uint8Array(m.buffer).fill(1);`,
    ),
    /WebAssembly\.Memory is not available/,
  ],
  [
    'a module declaring its own memory',
    inIsolate(
      'const b = new Uint8Array([0,97,115,109,1,0,0,0,5,4,1,0,128,192,1,7,5,1,1,109,2,0]); const i = new WebAssembly.Instance(new WebAssembly.Module(b)); new Uint8Array(i.exports.m.buffer).fill(1);',
    ),
    /WebAssembly\.Module: a module with a memory of its own/,
  ],
  [
    "a module importing the interpreter's memory",
    // (import "e" "m" (memory 1)): its memory.grow would bypass the grow check
    inIsolate('new WebAssembly.Module(new Uint8Array([0,97,115,109,1,0,0,0,2,8,1,1,101,1,109,2,0,1]));'),
    /WebAssembly\.Module: a module that imports a memory/,
  ],
  [
    "the interpreter's own module instantiated again",
    inIsolate('const p = WebAssembly.Module.prototype; const fake = Object.create(p); new WebAssembly.Instance(fake, {});'),
    /only modules made in this REPL may be instantiated/,
  ],
  ['a module compiled asynchronously', inIsolate('WebAssembly.compile(new Uint8Array(8));'), /WebAssembly\.compile is not available/],
  [
    'a resizable ArrayBuffer',
    inIsolate('const a = new ArrayBuffer(0, { maxByteLength: 2 ** 32 }); a.resize(1536 * 2 ** 20); new Uint8Array(a).fill(1);'),
    /resizable ArrayBuffers \(maxByteLength\) are not available/,
  ],
  ['a large ArrayBuffer', inIsolate('new Uint8Array(new ArrayBuffer(1536 * 2 ** 20)).fill(1);'), /Array buffer allocation failed/],
  [
    'getRandomValues with a view larger than WebCrypto allows',
    inIsolate('crypto.getRandomValues(new Uint8Array(65537));'),
    /RangeError: getRandomValues: 65537 bytes asked for, at most 65536/,
  ],
  [
    'getRandomValues with a DataView',
    inIsolate('crypto.getRandomValues(new DataView(new ArrayBuffer(8)));'),
    /TypeError: getRandomValues: an integer typed array is required/,
  ],
];

describe('Python REPL: the memory limit holds against every allocation path', () => {
  it.each(probes)('%s', async (_name, code, error) => {
    resetPeak(pid);
    const before = residentMb(pid);
    const r = await repl.execute(code, SITE);
    expect(r.error, `the block should have failed; it printed ${r.stdout}`).not.toBeNull();
    expect(`${r.error!.name}: ${r.error!.message}`).toMatch(error);
    expect(r.stdout).not.toContain('restored');
    expect(peakMb(pid)).toBeLessThan(before + LIMIT_MB + ISOLATE_HEAP_MB + ALLOWANCE_MB);
    const next = await repl.execute('print(context, 1 + 1)', SITE);
    expect(next.error).toBeNull();
    expect(next.stdout).toBe('the context 2\n');
  });

  it("reads getRandomValues' length once, through the intrinsics", async () => {
    resetPeak(pid);
    const before = residentMb(pid);
    const r = await repl.execute(
      inIsolate(
        `const v = new Uint8Array(8); let n = 0; Object.defineProperty(v, 'byteLength', { get() { return n++ === 0 ? 8 : 1200 * 2 ** 20; } }); crypto.getRandomValues(v); return v.length;`,
      ),
      SITE,
    );
    expect(r.error).toBeNull();
    expect(r.stdout).toBe('8\n');
    expect(peakMb(pid)).toBeLessThan(before + 64);
  });

  it('keeps ctypes working: its small modules with no memory are allowed', async () => {
    const r = await repl.execute('import ctypes\nlibc = ctypes.CDLL(None)\nprint(libc.abs(-5), libc.strlen(b"four"))', SITE);
    expect(r.error).toBeNull();
    expect(r.stdout).toBe('5 4\n');
  });

  it("keeps Python's own randomness working (chunks of at most 65,536 bytes)", async () => {
    const r = await repl.execute('import os, secrets\nprint(len(os.urandom(200000)), len(secrets.token_bytes(100000)))', SITE);
    expect(r.error).toBeNull();
    expect(r.stdout).toBe('200000 100000\n');
  });
});
