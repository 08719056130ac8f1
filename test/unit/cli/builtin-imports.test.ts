import { describe, expect, it } from 'vitest';
import { builtinImportsAtRuntime } from '../../../src-main/cli/builtin-imports.ts';

const GET = 'globalThis.process.getBuiltinModule';

describe('builtinImportsAtRuntime (the bundle takes built-ins without their ES facades)', () => {
  it('turns each form of a built-in import into a getBuiltinModule declaration, line for line', () => {
    const chunk = [
      '#!/usr/bin/env node',
      'import { readFileSync, writeFileSync as write } from "node:fs";',
      'import * as path from "path";',
      'import process from "node:process";',
      'import cp, { spawn as run } from "node:child_process";',
      'import { default as os, cpus } from "node:os";',
      'import "node:fs/promises";',
      'import { t as helper } from "./helper-abc.mjs";',
      '//#region src-main/x.ts',
      'const x = 1;',
    ].join('\n');
    const out = builtinImportsAtRuntime(chunk).split('\n');
    expect(out).toEqual([
      '#!/usr/bin/env node',
      `const { readFileSync, writeFileSync: write } = ${GET}("node:fs");`,
      `const path = ${GET}("path");`,
      `const process = ${GET}("node:process");`,
      `const cp = ${GET}("node:child_process"), { spawn: run } = cp;`,
      `const os = ${GET}("node:os"), { cpus } = ${GET}("node:os");`,
      `${GET}("node:fs/promises");`,
      'import { t as helper } from "./helper-abc.mjs";',
      '//#region src-main/x.ts',
      'const x = 1;',
    ]);
  });

  it('leaves everything after the leading import block alone, import-like strings included', () => {
    const chunk = ['import { join } from "node:path";', 'const s = `', 'import { a } from "node:fs";', '`;'].join('\n');
    const out = builtinImportsAtRuntime(chunk).split('\n');
    expect(out[0]).toBe(`const { join } = ${GET}("node:path");`);
    expect(out.slice(1)).toEqual(['const s = `', 'import { a } from "node:fs";', '`;']);
  });

  it('the rewritten declarations bind what the imports did', () => {
    const code = builtinImportsAtRuntime(
      ['import { join as j } from "node:path";', 'import * as os from "node:os";', 'import util, { format } from "node:util";'].join('\n'),
    );
    const bound = new Function(`${code}\nreturn { j, os, util, format };`)() as Record<string, unknown>;
    expect((bound['j'] as (...p: string[]) => string)('a', 'b')).toBe('a/b');
    expect(typeof (bound['os'] as { cpus: unknown }).cpus).toBe('function');
    expect(typeof (bound['util'] as { inspect: unknown }).inspect).toBe('function');
    expect((bound['format'] as (f: string, v: number) => string)('%d', 3)).toBe('3');
  });
});
