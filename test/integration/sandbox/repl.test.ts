import { afterEach, describe, expect, it } from 'vitest';
import { finalVarRules, replTexts } from '../../../src-main/engine/prompts.ts';
import { OUR_PACKS } from '../../../src-main/lm/our-prompt-packs.ts';
import { createIsolatedRepl } from '../../../src-main/sandbox/isolated-repl.ts';
import type { Repl, ReplOptions } from '../../../src-main/sandbox/types.ts';
import { fakeBridge, SITE, sleep } from './helpers.ts';
import { markerPack } from '../../support/marker-pack.ts';

const finalVar = finalVarRules(OUR_PACKS.javascript);

const repls: Repl[] = [];
async function make(options: Partial<ReplOptions> = {}): Promise<Repl> {
  const repl = await createIsolatedRepl({ bridge: fakeBridge(), ...options });
  repls.push(repl);
  return repl;
}
afterEach(() => {
  for (const repl of repls.splice(0)) repl.dispose();
});

describe('output capture', () => {
  it('captures print and console per block, warn/error to stderr', async () => {
    const repl = await make();
    const r = await repl.execute(
      'print("a", 1, true, null, undefined); console.log("b"); console.info("c"); console.warn("w"); console.error("e")',
      SITE,
    );
    expect(r.stdout).toBe('a 1 true null undefined\nb\nc\n');
    expect(r.stderr).toBe('w\ne\n');
    expect(r.error).toBeNull();
    const next = await repl.execute('1 + 1', SITE);
    expect(next.stdout).toBe('');
  });

  it('formats values like a REPL: strings raw, structures inspected, cycles marked', async () => {
    const repl = await make();
    const r = await repl.execute(
      [
        'const o = {a: 1, s: "x", list: [1, "two", [3]], nested: {deep: {deeper: {deepest: {gone: 1}}}}}; o.self = o;',
        'print(o)',
        'print([1, 2, 3], new Map([["k", 1]]), new Set([1]), new Date(0), /re/g, -0, 10n, Symbol("s"))',
        'print(function named() {}, class Klass {}, new TypeError("bad"), Object.create(null))',
        'print(Array.from({length: 150}, (_, i) => i).length, Array.from({length: 150}, (_, i) => i))',
      ].join('\n'),
      SITE,
    );
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('{a: 1, s: "x", list: [1, "two", [3]], nested: {deep: {deeper: {deepest: [Object]}}}, self: [Circular]}');
    expect(lines[1]).toBe('[1, 2, 3] Map(1) {"k" => 1} Set(1) {1} 1970-01-01T00:00:00.000Z /re/g -0 10n Symbol(s)');
    expect(lines[2]).toBe('[Function: named] [class Klass] [TypeError: bad] [Object: null prototype] {}');
    expect(lines[3]).toMatch(/^150 \[0, 1, 2, .*, 99, \.\.\. 50 more items\]$/);
  });

  it('runs callbacks the block queued without awaiting them inside the block', async () => {
    const repl = await make();
    const r = await repl.execute('Promise.resolve(1).then((v) => print("later", v)); print("now")', SITE);
    expect(r.stdout).toBe('now\nlater 1\n');
  });

  it('does not run getters when printing', async () => {
    const repl = await make();
    const r = await repl.execute('let hits = 0; print({get g() { hits++; return 1 }}); print(hits)', SITE);
    expect(r.stdout).toBe('{g: [Getter]}\n0\n');
  });
});

describe('REPL semantics', () => {
  it('keeps variables across blocks and allows redeclaration', async () => {
    const repl = await make();
    await repl.execute('const x = 1; let y = 2; function f() { return x + y } class C {}', SITE);
    const r = await repl.execute('const x = 10; let y = 20; function f() { return x * y } class C {}; print(f())', SITE);
    expect(r.error).toBeNull();
    expect(r.stdout).toBe('200\n');
  });

  it('supports top-level await', async () => {
    const repl = await make();
    const r = await repl.execute('const v = await Promise.resolve(7); print(v)', SITE);
    expect(r.stdout).toBe('7\n');
    expect((await repl.execute('print(v * 2)', SITE)).stdout).toBe('14\n');
  });

  it('reports a thrown error with the stdout printed before it', async () => {
    const repl = await make();
    const r = await repl.execute('print("before"); null.x; print("after")', SITE);
    expect(r.stdout).toBe('before\n');
    expect(r.error?.name).toBe('TypeError');
    expect(r.error?.message).toMatch(/null/);
  });

  it('names custom errors and describes thrown non-errors', async () => {
    const repl = await make();
    const custom = await repl.execute('class MyError extends Error {}; throw new MyError("m")', SITE);
    expect(custom.error).toEqual({ name: 'MyError', message: 'm' });
    const str = await repl.execute('throw "boom"', SITE);
    expect(str.error).toEqual({ name: 'Error', message: 'Uncaught "boom"' });
    const rejected = await repl.execute('await Promise.reject(new RangeError("r"))', SITE);
    expect(rejected.error).toEqual({ name: 'RangeError', message: 'r' });
  });

  it('reports syntax errors without running anything and keeps state', async () => {
    const repl = await make();
    await repl.execute('const keep = 1', SITE);
    const r = await repl.execute('print("no")\nconst = 5', SITE);
    expect(r.error?.name).toBe('SyntaxError');
    expect(r.error?.message).toMatch(/line 2, column 7/);
    expect(r.stdout).toBe('');
    expect(r.variables).toContain('keep');
    expect((await repl.execute('print(keep)', SITE)).stdout).toBe('1\n');
  });

  it("records every variable's short value (locals): primitives whole, the rest rendered and cut", async () => {
    const repl = await make();
    await repl.addContext(0, 'x'.repeat(5000));
    const r = await repl.execute(
      'const n = 3; const s = "abc"; const ok = true; const none = null; const arr = Array.from({ length: 100000 }, (_, i) => i); const fn = () => 1; const _hidden = 1; const obj = { get boom() { throw new Error("getter ran"); } };',
      SITE,
    );
    expect(r.error).toBeNull();
    const l = r.locals!;
    expect(l).toMatchObject({ n: 3, s: 'abc', ok: true, none: null });
    expect(l['context']).toBe(`${'x'.repeat(200)}…`);
    expect(String(l['arr'])).toMatch(/^\[0, 1, 2, .*…$/);
    expect(String(l['arr']).length).toBeLessThanOrEqual(200);
    expect(l['fn']).toMatch(/Function/);
    // Getters are not run to record a value.
    expect(l['obj']).not.toMatch(/getter ran/);
    expect(l).not.toHaveProperty('_hidden');
    expect(Object.keys(l)).toEqual(expect.arrayContaining(['answer', 'context_0', 'context']));
  });

  it('lists simple variables only, in the reference order', async () => {
    const repl = await make();
    await repl.addContext(0, 'ctx');
    const r = await repl.execute(
      'const s = "a"; const n = 1; const b = false; const arr = []; const obj = {}; const fn = () => 1; const _hidden = 1; const m = new Map(); class K {}; const inst = new K();',
      SITE,
    );
    expect(r.variables).toEqual(['answer', 'context_0', 'context', 's', 'n', 'b', 'arr', 'obj']);
  });

  it('SHOW_VARS lists user variables with types, without answer and scaffold functions', async () => {
    const repl = await make();
    expect((await repl.execute('print(SHOW_VARS())', SITE)).stdout).toMatch(/^No variables created yet/);
    await repl.addContext(0, 'ctx');
    const r = await repl.execute('const lines = ["a"]; function helper() {}; print(SHOW_VARS())', SITE);
    expect(r.stdout).toBe('Available variables: {"context_0": "string", "context": "string", "lines": "Array", "helper": "function"}\n');
  });

  it("SHOW_VARS, a call without a prompt and a failed call return the prompt pack's texts", async () => {
    const down = (): Promise<never> => Promise.reject(new Error('the line is down'));
    const bridge = { ...fakeBridge(), llmQuery: down, llmQueryBatched: down };
    const repl = await make({ bridge, texts: replTexts(markerPack('javascript')) });
    expect((await repl.execute('print(SHOW_VARS())', SITE)).stdout).toBe('«showVarsEmpty»\n');
    const r = await repl.execute(
      'var kept = 1; print(SHOW_VARS()); print(llm_query("")); print(llm_query()); print(rlm_query(null)); print(llm_query("p")); print(llm_query_batched(["p", "q"]).join(" | "))',
      SITE,
    );
    expect(r.stdout.split('\n')).toEqual([
      '«showVars»{"kept": "number"}«showVars.variables»',
      '«emptyPrompt»',
      '«emptyPrompt»',
      '«emptyPrompt»',
      '«subcallFailed»the line is down«subcallFailed.error»',
      '«subcallFailedBatched»the line is down«subcallFailedBatched.error» | «subcallFailedBatched»the line is down«subcallFailedBatched.error»',
      '',
    ]);
    expect(bridge.calls).toEqual([]);
    const wrong = await repl.execute(
      'print(llm_query(5)); print(llm_query_batched("x")); print(rlm_query_batched(["a", 1])); print(llm_query("p", 5))',
      SITE,
    );
    expect(wrong.stdout.split('\n')).toEqual([
      '«badPrompt»llm_query«badPrompt.function»number«badPrompt.type»',
      '«badPrompts»llm_query_batched«badPrompts.function»string«badPrompts.type»',
      '«badPromptsItem»rlm_query_batched«badPromptsItem.function»1«badPromptsItem.index»number«badPromptsItem.type»',
      '«badModel»llm_query«badModel.function»number«badModel.type»',
      '',
    ]);
  });
});

describe('answer', () => {
  it('captures content when ready becomes truthy; later blocks start uncaptured', async () => {
    const repl = await make();
    const r = await repl.execute('answer.content = "42"; answer.ready = true', SITE);
    expect(r.submitted).toBe('42');
    const next = await repl.execute('print(answer.ready, answer.content)', SITE);
    expect(next.submitted).toBeNull();
    expect(next.stdout).toBe('true 42\n');
    expect((await repl.execute('answer.ready = true', SITE)).submitted).toBe('42');
  });

  it('sees content set after ready as not submitted ("")', async () => {
    const repl = await make();
    const r = await repl.execute('answer.ready = true; answer.content = "late"', SITE);
    expect(r.submitted).toBe('');
  });

  it('keeps the last truthy set, submits an array as JSON, and counts a throw after ready', async () => {
    const repl = await make();
    const r = await repl.execute(
      'answer.content = [1, 2]; answer.ready = true; answer.content = "second"; answer.ready = 1; answer.ready = false; throw new Error("after")',
      SITE,
    );
    expect(r.submitted).toBe('second');
    expect(r.error?.message).toBe('after');
    const arr = await repl.execute('answer.content = [1, 2, 3]; answer.ready = true', SITE);
    expect(arr.submitted).toBe('[1,2,3]');
  });

  it('detects a rebind to a ready object and re-wraps it', async () => {
    const repl = await make();
    const r = await repl.execute('answer = {content: 99, ready: true}', SITE);
    expect(r.submitted).toBe('99');
    const again = await repl.execute('answer.content = "x"; answer.ready = true', SITE);
    expect(again.submitted).toBe('x');
    const declared = await repl.execute('let answer = {content: "decl", ready: true}', SITE);
    expect(declared.submitted).toBe('decl');
  });

  it('replaces a non-object rebind with a fresh unready answer', async () => {
    const repl = await make();
    const r = await repl.execute('answer = "done"', SITE);
    expect(r.submitted).toBeNull();
    expect((await repl.execute('print(answer)', SITE)).stdout).toBe('{content: "", ready: false}\n');
  });

  it('FINAL_VAR returns and submits a variable when enabled', async () => {
    const repl = await make({ finalVar });
    const r = await repl.execute('const result = 12; print(FINAL_VAR("result"))', SITE);
    expect(r.stdout).toBe('12\n');
    expect(r.submitted).toBe('12');
    const missing = await repl.execute('print(FINAL_VAR("nope"))', SITE);
    expect(missing.submitted).toBeNull();
    expect(missing.stdout).toMatch(/^Error: Variable 'nope' not found\. Available variables: \["result"\]/);
    // The texts are the pack's: here a marker pack's, with no variables and with some.
    const marked = await make({ finalVar: finalVarRules(markerPack('javascript')) });
    expect((await marked.execute('print(FINAL_VAR("nope"))', SITE)).stdout).toBe('«finalVarNoVariables»nope«finalVarNoVariables.name»\n');
    await marked.execute('var kept = 1', SITE);
    expect((await marked.execute('print(FINAL_VAR("nope"))', SITE)).stdout).toBe(
      '«finalVarNotFound»nope«finalVarNotFound.name»["kept"]«finalVarNotFound.available»\n',
    );
    const plain = await make();
    expect((await plain.execute('typeof FINAL_VAR', SITE)).error).toBeNull();
    expect((await plain.execute('print(typeof FINAL_VAR)', SITE)).stdout).toBe('undefined\n');
  });

  it('FINAL submits its argument when enabled: text as is, arrays and plain objects as JSON', async () => {
    const repl = await make({ finalVar });
    const r = await repl.execute('const n = 6 * 7; print(FINAL(`the answer is ${n}`))', SITE);
    expect(r.stdout).toBe('the answer is 42\n');
    expect(r.submitted).toBe('the answer is 42');
    expect((await repl.execute('FINAL(["a", "b"])', SITE)).submitted).toBe('["a","b"]');
    expect((await repl.execute('FINAL({ k: 1 })', SITE)).submitted).toBe('{"k":1}');
    expect((await repl.execute('FINAL(12)', SITE)).submitted).toBe('12');
    expect((await repl.execute('const list = [1, 2]; FINAL_VAR("list")', SITE)).submitted).toBe('[1,2]');
    // Only a call made while a block runs submits; an unreached one does not.
    expect((await repl.execute('if (false) FINAL("never")', SITE)).submitted).toBeNull();
    const plain = await make();
    expect((await plain.execute('print(typeof FINAL)', SITE)).stdout).toBe('undefined\n');
    expect((await plain.execute('let FINAL = 1; print(FINAL)', SITE)).stdout).toBe('1\n');
  });

  it('FINAL and FINAL_VAR come back after a block overwrites them', async () => {
    const repl = await make({ finalVar });
    await repl.execute('FINAL = 0; FINAL_VAR = 0', SITE);
    expect((await repl.execute('print(typeof FINAL, typeof FINAL_VAR)', SITE)).stdout).toBe('function function\n');
    expect((await repl.execute('FINAL("back")', SITE)).submitted).toBe('back');
  });
});

describe('reserved names', () => {
  it('restores the scaffold, context and answer after a block overwrites them', async () => {
    const repl = await make();
    await repl.addContext(0, 'the context');
    const r = await repl.execute(
      'llm_query = 1; const print = null; context = "changed"; SHOW_VARS = 0; console = {}; llm_query_batched = rlm_query = rlm_query_batched = 0',
      SITE,
    );
    expect(r.error).toBeNull();
    const next = await repl.execute(
      'print(context, typeof llm_query, typeof llm_query_batched, typeof rlm_query, typeof rlm_query_batched, typeof SHOW_VARS); console.log("ok")',
      SITE,
    );
    expect(next.stdout).toBe('the context function function function function function\nok\n');
  });

  it('restores context from context_0, as the reference does', async () => {
    const repl = await make();
    await repl.addContext(0, 'first');
    await repl.addContext(1, 'second');
    await repl.execute('context_0 = "rewritten"', SITE);
    expect((await repl.execute('print(context, context_1)', SITE)).stdout).toBe('rewritten second\n');
  });

  it('refuses tools named like reserved names', async () => {
    await expect(createIsolatedRepl({ bridge: fakeBridge(), tools: { context: 1, llm_query: () => 'x' } })).rejects.toThrow(
      /context, llm_query/,
    );
    await expect(createIsolatedRepl({ bridge: fakeBridge(), finalVar, tools: { FINAL_VAR: 1 } })).rejects.toThrow(/FINAL_VAR/);
    await expect(createIsolatedRepl({ bridge: fakeBridge(), finalVar, tools: { FINAL: () => 'x' } })).rejects.toThrow(/FINAL/);
  });
});

describe('contexts, history and globals', () => {
  it('loads strings and structured contexts, context_N and history_N', async () => {
    const repl = await make();
    await repl.addContext(0, { docs: ['a', 'b'], n: 2 });
    await repl.addContext(1, 'plain');
    await repl.addHistory(0, [{ role: 'user', content: 'hi' }]);
    const r = await repl.execute('print(context.docs[1], context_0.n, context_1, history[0].content, history_0 === history)', SITE);
    expect(r.stdout).toBe('b 2 plain hi true\n');
  });

  it('an array of strings (a context too long for one string, loaded element by element) is a plain array in every way', async () => {
    const repl = await make({ cpuLimitMs: 300 });
    const parts = ['alpha\nbeta', 'é ünïcødé ✓ 𝄞', '', 'x'.repeat(100_000)];
    await repl.addContext(0, parts);
    await repl.addContext(1, ['one']);
    const shape =
      'print(Array.isArray(context), context.length, context[1], context[3].length, context.join("|").length, context_1[0], context === context_0)';
    const expected = `true 4 é ünïcødé ✓ 𝄞 100000 ${parts.join('|').length} one true\n`;
    expect((await repl.execute(shape, SITE)).stdout).toBe(expected);
    // Changed by a block: the array itself is the code's to change, and context comes back from context_0.
    await repl.execute('context_0.push("added"); context = null', SITE);
    expect((await repl.execute('print(context.length, context.at(-1))', SITE)).stdout).toBe('5 added\n');
    // A reset builds a fresh isolate and loads the parts again, as they were added.
    const reset = await repl.execute('while (true) {}', SITE);
    expect(reset.replReset).toBe('cpu_limit');
    expect((await repl.execute(shape, SITE)).stdout).toBe(expected);
  });

  it('appendHistory extends one history in place, which is what history is restored to', async () => {
    const repl = await make({ cpuLimitMs: 300 });
    await repl.addHistory(0, ['old']);
    await repl.appendHistory([{ type: 'summary', content: 's' }]);
    await repl.execute('history = 5', SITE);
    expect((await repl.execute('print(history)', SITE)).stdout).toBe('[{type: "summary", content: "s"}]\n');
    // Only the new messages cross; the list the code holds (and changed) is the one extended.
    await repl.execute('const held = history; history.push("mine")', SITE);
    await repl.appendHistory(['next']);
    expect((await repl.execute('print(history.length, history[1], history[2], held === history, history_0[0])', SITE)).stdout).toBe(
      '3 mine next true old\n',
    );
    // A frozen list is replaced by a copy that still holds everything.
    await repl.execute('Object.freeze(history)', SITE);
    await repl.appendHistory(['after freeze']);
    expect((await repl.execute('print(history.length, history[3], held === history)', SITE)).stdout).toBe('4 after freeze false\n');
    // A reset rebuilds it from every message appended (the code's own change is lost with the isolate).
    expect((await repl.execute('while (true) {}', SITE)).replReset).toBe('cpu_limit');
    expect((await repl.execute('print(history.map((m) => m.content ?? m).join("|"))', SITE)).stdout).toBe('s|next|after freeze\n');
  });

  it('listVariables reports type, size and a bounded preview without changing state', async () => {
    const repl = await make();
    await repl.addContext(0, 'x'.repeat(10_000));
    await repl.execute(
      'const arr = [1, 2, 3]; const obj = {a: 1, b: 2}; const f = () => 1; let count = 0; const g = {get x() { count++; return 1 }}',
      SITE,
    );
    const vars = await repl.listVariables();
    const byName = new Map(vars.map((v) => [v.name, v]));
    expect(byName.get('context')).toMatchObject({ type: 'string', size: 10_000 });
    expect(byName.get('context')?.preview.length).toBeLessThanOrEqual(200);
    expect(byName.get('arr')).toEqual({ name: 'arr', type: 'Array', size: 3, preview: '[1, 2, 3]' });
    expect(byName.get('obj')).toMatchObject({ type: 'Object', size: 2, preview: '{a: 1, b: 2}' });
    expect(byName.get('f')).toMatchObject({ type: 'function', size: null });
    expect((await repl.execute('print(count)', SITE)).stdout).toBe('0\n');
  });
});

describe('tools', () => {
  it('calls sync, async and throwing host tools synchronously from the code; copies values in', async () => {
    const seen: unknown[] = [];
    const repl = await make({
      tools: {
        add: (a, b) => Number(a) + Number(b),
        slow: async (s) => {
          await sleep(50);
          return { echoed: s ?? null };
        },
        fail: () => {
          throw new RangeError('tool broke');
        },
        record: (v) => {
          seen.push(v);
          return undefined;
        },
        LIMITS: { max: 3, names: ['a'] },
      },
    });
    const r = await repl.execute(
      'print(add(2, 3), slow("hi").echoed, LIMITS.max, record({deep: [1]}))\ntry { fail() } catch (e) { print(e.name, e.message) }\nfail()',
      SITE,
    );
    expect(r.stdout).toBe('5 hi 3 undefined\nRangeError tool broke\n');
    expect(r.error).toEqual({ name: 'RangeError', message: 'tool broke' });
    expect(seen).toEqual([{ deep: [1] }]);
    expect(r.variables).toContain('LIMITS');
    expect(r.variables).not.toContain('add');
    await repl.execute('add = null', SITE);
    expect((await repl.execute('print(add(1, 1))', SITE)).stdout).toBe('2\n');
  });
});

describe('sub-calls', () => {
  it('are synchronous strings to the code even when the bridge is slow', async () => {
    const bridge = fakeBridge(100);
    const repl = await make({ bridge });
    const site = { iteration: 3, block: 2 };
    const r = await repl.execute('const a = llm_query("p1"); const b = rlm_query("p2", "other-model"); print(typeof a, a, b)', site);
    expect(r.stdout).toBe('string llm:p1 rlm:p2\n');
    expect(bridge.calls.map((c) => [c.kind, c.model, c.site])).toEqual([
      ['llm', undefined, site],
      ['rlm', 'other-model', site],
    ]);
  });

  it('batched calls return in input order', async () => {
    const bridge = fakeBridge(10);
    const repl = await make({ bridge });
    const r = await repl.execute(
      'print(JSON.stringify(llm_query_batched(["a", "b", "c", "d"]))); print(JSON.stringify(rlm_query_batched(["x", "y"]))); print(llm_query_batched([]).length)',
      SITE,
    );
    expect(r.stdout).toBe('["llm:a","llm:b","llm:c","llm:d"]\n["rlm:x","rlm:y"]\n0\n');
  });

  it('validate arguments inside the isolate and return Error strings instead of throwing', async () => {
    const bridge = fakeBridge();
    const repl = await make({ bridge });
    const r = await repl.execute(
      'print(llm_query(5)); print(rlm_query()); print(llm_query("p", 3)); print(llm_query_batched("nope")); print(rlm_query_batched(["a", 1]))',
      SITE,
    );
    expect(r.error).toBeNull();
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(line).toMatch(/^Error: /);
    expect(bridge.calls).toEqual([]);
  });

  it("turn a (contract-breaking) bridge rejection into the pack's failed-call string", async () => {
    const bridge = { ...fakeBridge(), llmQuery: () => Promise.reject(new Error('network down')) };
    const repl = await make({ bridge });
    expect((await repl.execute('print(llm_query("x"))', SITE)).stdout).toBe('Error: LM query failed - network down\n');
  });
});

describe('lifecycle', () => {
  it('dispose is idempotent and later calls fail cleanly', async () => {
    const repl = await createIsolatedRepl({ bridge: fakeBridge() });
    repl.dispose();
    repl.dispose();
    await expect(repl.execute('1', SITE)).rejects.toThrow(/disposed/);
    await expect(repl.addContext(0, 'x')).rejects.toThrow(/disposed/);
  });

  it('dispose during a blocked sub-call ends the block without hurting the host', async () => {
    const repl = await createIsolatedRepl({ bridge: fakeBridge(300) });
    const pending = repl.execute('llm_query("slow")', SITE);
    await sleep(100);
    repl.dispose();
    const r = await pending;
    expect(r.error?.message).toMatch(/disposed/);
    await sleep(300); // the bridge resolves into a dead isolate
  });
});
