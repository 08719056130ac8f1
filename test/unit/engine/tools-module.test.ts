// `--tools FILE.mjs`: exports become tools; bad files fail with a message naming the problem.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadToolsModule, ToolsModuleError } from '../../../src-main/engine/tools-module.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlm-tools-'));
let n = 0;
function moduleFile(source: string, ext = 'mjs'): string {
  const path = join(dir, `tools-${n++}.${ext}`);
  writeFileSync(path, source);
  return path;
}

describe('loadToolsModule', () => {
  it('turns values, functions and { fn, description } exports into tools', async () => {
    const tools = await loadToolsModule(
      moduleFile(`
export const EXCHANGE_NOTE = 'EUR->USD at 1.08';
export const rates = { EUR: 1.08, list: [1, 2, null] };
export function double(x) { return x * 2; }
export const convert_currency = {
  fn: (amount, to = 'USD') => { if (to !== 'USD') throw new Error('only USD'); return Math.round(amount * 108) / 100; },
  description: 'converts EUR to USD',
};
export const glossary = { value: ['a', 'b'], description: 'two letters' };
`),
    );
    expect(Object.keys(tools).sort()).toEqual(['EXCHANGE_NOTE', 'convert_currency', 'double', 'glossary', 'rates']);
    expect(tools['EXCHANGE_NOTE']).toEqual({ value: 'EUR->USD at 1.08' });
    expect(tools['rates']).toEqual({ value: { EUR: 1.08, list: [1, 2, null] } });
    expect(tools['glossary']).toEqual({ value: ['a', 'b'], description: 'two letters' });
    expect(tools['convert_currency']!.description).toBe('converts EUR to USD');
    const fn = tools['convert_currency']!.value as (a: number) => number;
    expect(fn(100)).toBe(108);
    expect((tools['double']!.value as (x: number) => number)(4)).toBe(8);
    expect(tools['double']!.description).toBeUndefined();
  });

  it('reads a default export that is an object of tools', async () => {
    const tools = await loadToolsModule(moduleFile(`export default { k: 3, f: { fn: () => 1, description: 'one' } };`));
    expect(tools['k']).toEqual({ value: 3 });
    expect(tools['f']!.description).toBe('one');
  });

  const bad: [string, string, RegExp][] = [
    // Vitest's module loader words it differently from Node's SyntaxError.
    ['a syntax error', 'export const = 3;', /could not be loaded: [\s\S]*(SyntaxError|Unexpected token)/],
    ['no exports', 'const x = 1;', /exports nothing/],
    ['a default function', 'export default function f() {}', /default export must be a plain object/],
    ['fn that is not a function', `export const t = { fn: 3, description: 'x' };`, /`t`: `fn` must be a function/],
    ['an empty description', `export const t = { fn: () => 1, description: '' };`, /`description` must be a non-empty string/],
    ['fn without a description', `export const t = { fn: () => 1 };`, /exactly `fn` and `description`/],
    ['a class instance', 'export const when = new Date(0);', /`when`: when is a Date object/],
    ['a nested function', 'export const o = { a: { f() {} } };', /o\.a\.f is a function/],
    ['a bigint', 'export const big = 10n;', /bigint/],
    ['NaN', 'export const x = NaN;', /x is NaN/],
    ['a cycle', 'const a = {}; a.self = a; export { a };', /refers back to itself/],
    ['undefined', 'export let u;', /`u`: it is undefined/],
    ['a $ in the name', 'const v = 1; export { v as $v };', /plain identifier/],
  ];
  for (const [what, source, message] of bad) {
    it(`refuses ${what}`, async () => {
      const err = await loadToolsModule(moduleFile(source)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ToolsModuleError);
      expect((err as Error).message).toMatch(message);
      expect((err as Error).message).toMatch(/^--tools /);
    });
  }

  it('refuses a missing file, a directory and a file that is not a module', async () => {
    await expect(loadToolsModule(join(dir, 'nope.mjs'))).rejects.toThrow(/cannot read it: no such file/);
    await expect(loadToolsModule(dir)).rejects.toThrow(/is not a file/);
    await expect(loadToolsModule(moduleFile('{}', 'json'))).rejects.toThrow(/expected an ES module/);
  });
});
