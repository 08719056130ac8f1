// The memory limit against every allocation path model code has in the JavaScript REPL: each
// probe tries to allocate far past the limit, and must end with an error the code's block
// reports, the REPL going on, and the sandbox process's peak resident size (read from /proc,
// not sampled) within the limit plus a fixed allowance. Before allocation-guard.ts, a
// WebAssembly memory, a resizable ArrayBuffer and a growable SharedArrayBuffer each took the
// process to ~880 MB under a 128 MB limit, and a large typed array in a variable to 3.2 GB.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxProcess } from '../../../src-main/engine/sandbox-process/sandbox-process.ts';
import type { Repl } from '../../../src-main/sandbox/types.ts';
import { fakeBridge, SITE } from './helpers.ts';
import { peakMb, residentMb, resetPeak } from './peak-memory.ts';

const LIMIT_MB = 128;
/** Beyond the limit: V8's own young generation, code, the runtime's output buffers. */
const ALLOWANCE_MB = 160;
/**
 * V8's heap, for one allocation too large for it: isolated-vm lets the heap run up to 1 GiB past
 * its limit while it ends the isolate (its NearHeapLimitCallback), rather than have V8 abort
 * the process. A documented bound, not an escape; nothing else here gets it.
 */
const HEAP_GRACE_MB = 1024;
/** What each probe asks for: several times the limit plus the allowance. */
const ASK = 1536 * 1024 * 1024;

let sandbox: SandboxProcess;
let repl: Repl;
let pid: number;

beforeAll(async () => {
  sandbox = new SandboxProcess();
  repl = await sandbox.replFactory('javascript')({ bridge: fakeBridge(), tools: {}, memoryLimitMb: LIMIT_MB, cpuLimitMs: 30_000 });
  await repl.addContext(0, 'the context');
  expect((await repl.execute('console.log(context)', SITE)).stdout).toBe('the context\n');
  pid = sandbox.pid!;
});
afterAll(() => sandbox.close());

const probes: [string, string, RegExp, number?][] = [
  [
    'a WebAssembly memory',
    `const m = new WebAssembly.Memory({ initial: ${ASK / 65536} }); new Uint8Array(m.buffer).fill(1);`,
    /WebAssembly is not defined/,
  ],
  [
    'a WebAssembly memory grown',
    `const m = new WebAssembly.Memory({ initial: 1 }); m.grow(${ASK / 65536 - 1}); new Uint8Array(m.buffer).fill(1);`,
    /WebAssembly is not defined/,
  ],
  ['a WebAssembly table grown', `new WebAssembly.Table({ initial: 1, element: 'anyfunc' }).grow(9_999_999);`, /WebAssembly is not defined/],
  [
    'a module declaring its own memory',
    // (memory (export "m") 24576): 1.5 GiB when instantiated
    `const b = new Uint8Array([0,97,115,109,1,0,0,0,5,4,1,0,128,192,1,7,5,1,1,109,2,0]); new WebAssembly.Instance(new WebAssembly.Module(b));`,
    /WebAssembly is not defined/,
  ],
  ['a large ArrayBuffer', `new Uint8Array(new ArrayBuffer(${ASK})).fill(1);`, /Array buffer allocation failed/],
  ['a large SharedArrayBuffer', `new Uint8Array(new SharedArrayBuffer(${ASK})).fill(1);`, /Array buffer allocation failed/],
  [
    'a resizable ArrayBuffer',
    `const a = new ArrayBuffer(0, { maxByteLength: ${ASK} }); a.resize(${ASK}); new Uint8Array(a).fill(1);`,
    /resizable ArrayBuffers \(maxByteLength\) are not available/,
  ],
  [
    'a resizable ArrayBuffer made through its prototype',
    `const AB = new Uint8Array(1).buffer.constructor; const a = new AB(0, { maxByteLength: ${ASK} }); a.resize(${ASK}); new Uint8Array(a).fill(1);`,
    /resizable ArrayBuffers \(maxByteLength\) are not available/,
  ],
  [
    'a growable SharedArrayBuffer',
    `const a = new SharedArrayBuffer(0, { maxByteLength: ${ASK} }); a.grow(${ASK}); new Uint8Array(a).fill(1);`,
    /resizable SharedArrayBuffers \(maxByteLength\) are not available/,
  ],
  [
    'typed arrays kept in a variable',
    `var kept = []; for (let i = 0; i < 24; i++) { const t = new Uint8Array(64 * 1024 * 1024); t.fill(1); kept.push(t); }`,
    /Array buffer allocation failed/,
  ],
  [
    'strings',
    `var strings = []; for (let i = 0; i < 200; i++) strings.push(('x'.repeat(1 << 23) + i).toUpperCase());`,
    /ran out of memory/,
  ],
  [
    'one string past the limit',
    `var big = 'é'.repeat(2 ** 29 - 24).toUpperCase();`,
    /ran out of memory|Invalid string length/,
    HEAP_GRACE_MB,
  ],
];

describe('JavaScript REPL: the memory limit holds against every allocation path', () => {
  it.each(probes)('%s', async (_name, code, error, grace = 0) => {
    resetPeak(pid);
    const before = residentMb(pid);
    const r = await repl.execute(code, SITE);
    expect(r.error, `the block should have failed; it printed ${r.stdout}`).not.toBeNull();
    expect(`${r.error!.name}: ${r.error!.message}`).toMatch(error);
    expect(peakMb(pid)).toBeLessThan(before + LIMIT_MB + ALLOWANCE_MB + grace);
    // The REPL goes on, with its context.
    const next = await repl.execute('console.log(context, 1 + 1)', SITE);
    expect(next.error).toBeNull();
    expect(next.stdout).toBe('the context 2\n');
  });

  it('prints a large typed array without listing its elements', async () => {
    resetPeak(pid);
    const before = residentMb(pid);
    const r = await repl.execute(
      'var bytes = new Uint8Array(64 * 1024 * 1024); bytes.fill(7); console.log(bytes, new String("abc"))',
      SITE,
    );
    expect(r.error).toBeNull();
    expect(r.stdout).toMatch(/^Uint8Array\(67108864\) \[7, 7, 7, .*\.\.\. 67108764 more items\] \[String: "abc"\]\n$/);
    expect((await repl.listVariables()).find((v) => v.name === 'bytes')).toMatchObject({ size: 67108864 });
    expect(peakMb(pid)).toBeLessThan(before + 64 + ALLOWANCE_MB);
  });
});
