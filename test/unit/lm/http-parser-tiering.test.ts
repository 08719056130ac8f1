// The tiering hold of lm/http-parser-tiering.ts, checked on V8 itself: a hot WebAssembly
// function is optimised (TurboFan) in a process that does not ask for the hold, and stays on
// baseline code (Liftoff) in one that does, once the SDK is said to have loaded; asking alone
// changes nothing until then. Each case runs in a Node of its own, with V8's test natives.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const MODULE = fileURLToPath(new URL('../../../src-main/lm/http-parser-tiering.ts', import.meta.url));

// (func (export "f") (param i32) (result i32) (local i32) a loop that sums param-1 down to 0)
const WASM = [
  0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 6, 1, 0x60, 1, 0x7f, 1, 0x7f, 3, 2, 1, 0, 7, 5, 1, 1, 0x66, 0, 0, 0x0a, 27, 1, 25, 1, 1, 0x7f, 0x03,
  0x40, 0x20, 0, 0x41, 1, 0x6b, 0x22, 0, 0x20, 1, 0x6a, 0x21, 1, 0x20, 0, 0x0d, 0, 0x0b, 0x20, 1, 0x0b,
];

/** Where a hot function ends up after `calls` (code run before the module is instantiated). */
function tierAfter(calls: string): string {
  const script = `
    import * as tiering from ${JSON.stringify(MODULE)};
    ${calls}
    const { instance } = await WebAssembly.instantiate(new Uint8Array(${JSON.stringify(WASM)}));
    const f = instance.exports.f;
    let sum = 0;
    for (let i = 0; i < 2000; i++) sum += f(1000);
    if (sum !== 2000 * 499500) throw new Error('wrong sum ' + sum);
    console.log(%IsTurboFanFunction(f) ? 'turbofan' : %IsLiftoffFunction(f) ? 'liftoff' : 'other');
  `;
  const res = spawnSync(process.execPath, ['--allow-natives-syntax', '--wasm-sync-tier-up', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(res.status, res.stderr).toBe(0);
  return res.stdout.trim();
}

describe('http-parser-tiering', () => {
  it('leaves V8 alone unless asked: a hot function is optimised', () => {
    expect(tierAfter('')).toBe('turbofan');
  });

  it('holds WebAssembly on baseline code once asked and the SDK has loaded, in either order', () => {
    expect(tierAfter('tiering.keepHttpParserOnBaseline(); tiering.httpParserSdkLoaded();')).toBe('liftoff');
    expect(tierAfter('tiering.httpParserSdkLoaded(); tiering.keepHttpParserOnBaseline();')).toBe('liftoff');
  });

  it('waits for the SDK: asking alone sets no flag (it would spoil the code cache of what loads next)', () => {
    expect(tierAfter('tiering.keepHttpParserOnBaseline();')).toBe('turbofan');
    expect(tierAfter('tiering.httpParserSdkLoaded();')).toBe('turbofan');
  });
});
