import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { transformBlock, warmUpTransform } from '../../../src-main/sandbox/transform.ts';
import type { TransformedBlock } from '../../../src-main/sandbox/transform.ts';

function ok(code: string): TransformedBlock {
  const result = transformBlock(code);
  if (!result.ok) throw new Error(`unexpected syntax error: ${result.error.message}`);
  return result;
}

/**
 * Runs blocks the way the sandbox runtime does (pre-create the declared globals, then indirect
 * eval), in a node:vm context: enough to check the transform's semantics without an isolate.
 */
async function runBlocks(blocks: string[]): Promise<Record<string, unknown>> {
  const sandbox: Record<string, unknown> = {};
  const context = vm.createContext(sandbox);
  for (const block of blocks) {
    const t = ok(block);
    for (const name of t.names) {
      if (!Object.prototype.hasOwnProperty.call(sandbox, name)) sandbox[name] = undefined;
    }
    const result: unknown = vm.runInContext(t.code, context);
    if (t.isAsync) await result;
  }
  return sandbox;
}

describe('transformBlock', () => {
  it('leaves code without declarations alone', () => {
    const t = ok('print(1 + 2)\nx = 3');
    expect(t.code).toBe('print(1 + 2)\nx = 3');
    expect(t.isAsync).toBe(false);
    expect(t.names).toEqual([]);
  });

  it('turns top-level const/let/var into global assignments and reports the names', () => {
    const t = ok('const a = 1, b = 2;\nlet c;\nvar d = 4');
    expect(t.names).toEqual(['a', 'b', 'c', 'd']);
    expect(t.code).not.toMatch(/\b(const|let|var)\b/);
  });

  it('lets a later block redeclare the same const/let/class/function', async () => {
    const g = await runBlocks([
      'const x = 1; let y = 2; class K { v() { return 1 } } function f() { return "one" }',
      'const x = 10; let y = x + 1; class K { v() { return 2 } } function f() { return "two" }',
      'const z = new K().v() + f().length;',
    ]);
    expect(g.x).toBe(10);
    expect(g.y).toBe(11);
    expect(g.z).toBe(5);
  });

  it('resets a redeclared `let` without initialiser, but keeps a bare `var`', async () => {
    const g = await runBlocks(['let a = 1; var b = 2;', 'let a; var b;']);
    expect(g.a).toBeUndefined();
    expect(g.b).toBe(2);
  });

  it('handles destructuring patterns with defaults, rest and nesting', async () => {
    const src = 'const {a, b: [c, ...d], e = 5, ...rest} = {a: 1, b: [2, 3, 4], f: 6}; let [p, , q = 9] = [7, 8];';
    expect(ok(src).names).toEqual(['a', 'c', 'd', 'e', 'rest', 'p', 'q']);
    const g = await runBlocks([src]);
    expect(g).toMatchObject({ a: 1, c: 2, e: 5, p: 7, q: 9 });
    expect(g.d).toEqual([3, 4]);
    expect(g.rest).toEqual({ f: 6 });
  });

  it('keeps function declarations hoisted within their block', async () => {
    const g = await runBlocks(['const r = twice(4);\nfunction twice(n) { return 2 * n }']);
    expect(g.r).toBe(8);
    expect(typeof g.twice).toBe('function');
    expect((g.twice as { name: string }).name).toBe('twice');
  });

  it('wraps top-level await in an async function and still persists names', async () => {
    const src = 'const v = await Promise.resolve(41);\nfunction inc(n) { return n + 1 }\nconst w = inc(v);';
    expect(ok(src).isAsync).toBe(true);
    const g = await runBlocks([src, src]);
    expect(g.v).toBe(41);
    expect(g.w).toBe(42);
    expect(typeof g.inc).toBe('function');
  });

  it('detects for-await but not await inside nested functions', () => {
    expect(ok('for await (const x of []) {}').isAsync).toBe(true);
    expect(ok('async function f() { await 1 }').isAsync).toBe(false);
    expect(ok('const g = async () => await 1').isAsync).toBe(false);
  });

  it('persists var in nested blocks and loop heads even when wrapped for await', async () => {
    const g = await runBlocks([
      'await null; if (true) { var inner = 1 } for (var i = 0; i < 3; i++) {} for (var k in {p: 1}) {} for (var [m] of [[5]]) {}',
    ]);
    expect(g).toMatchObject({ inner: 1, i: 3, k: 'p', m: 5 });
  });

  it('leaves block-scoped and function-local declarations alone', async () => {
    const g = await runBlocks(['{ const hidden = 1 } function f() { const local = 2; var v = 3; return local + v } const out = f();']);
    expect(g.out).toBe(5);
    expect('hidden' in g).toBe(false);
    expect('local' in g).toBe(false);
    expect('v' in g).toBe(false);
  });

  it('is safe for code that relies on automatic semicolon insertion', async () => {
    const g = await runBlocks(['let arr = [1, 2]\nconst [first] = arr\nconst n = first\nif (n) var flag = true\nelse var flag = false']);
    expect(g.first).toBe(1);
    expect(g.flag).toBe(true);
  });

  it('keeps the line of code after a multi-line declaration', () => {
    const t = ok('const a = {\n  x: 1,\n}\nboom()');
    expect(t.code.split('\n')[3]).toContain('boom()');
  });

  it('reports syntax errors with 1-based line and column', () => {
    const r = transformBlock('const a = 1;\nlet b = (;');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.name).toBe('SyntaxError');
    expect(r.error.line).toBe(2);
    expect(r.error.column).toBe(10);
    expect(r.error.message).toMatch(/Unexpected token \(line 2, column 10\)/);
  });

  it('rejects module syntax and top-level return as syntax errors', () => {
    expect(transformBlock('import fs from "fs"').ok).toBe(false);
    expect(transformBlock('return 1').ok).toBe(false);
  });

  it('accepts a hashbang line', () => {
    expect(ok('#!/usr/bin/env node\nconst a = 1').names).toEqual(['a']);
  });
});

describe('warmUpTransform', () => {
  it('transforms its sample block once per process (a block using most syntax: top-level await, classes, templates), then nothing', () => {
    const first = warmUpTransform();
    expect(first?.ok).toBe(true);
    if (!first?.ok) return;
    expect(first.isAsync).toBe(true);
    expect(first.names).toEqual(expect.arrayContaining(['lines', 'total', 'seen', 'ask', 'parts', 'answers', 'Tally', 't']));
    expect(warmUpTransform()).toBeNull();
  });
});
