// The Python REPL's model-facing behaviour: what the reference library's REPL tests check,
// run against Pyodide in its isolate (and against CPython in the OS sandbox: cpython-repl.test.ts).
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { finalVarRules, replTexts } from '../../../src-main/engine/prompts.ts';
import { OUR_PACKS } from '../../../src-main/lm/our-prompt-packs.ts';
import { parseJsonContext } from '../../../src-main/sandbox/json-source.ts';
import { coolPython } from '../../../src-main/sandbox/python/pool.ts';
import type { Repl, ReplOptions } from '../../../src-main/sandbox/types.ts';
import { fakeBridge, printedBy, SITE } from './helpers.ts';
import { pythonBackend } from './python-backend.ts';
import { markerPack } from '../../support/marker-pack.ts';

const repls: Repl[] = [];
async function make(options: Partial<ReplOptions> = {}): Promise<Repl> {
  const repl = await pythonBackend.create({ bridge: fakeBridge(), ...options });
  repls.push(repl);
  return repl;
}
afterEach(() => {
  for (const repl of repls.splice(0)) repl.dispose();
});
afterAll(() => coolPython());

describe('Python REPL: namespace', () => {
  it('keeps variables, functions, classes and imports across blocks', async () => {
    const repl = await make();
    await repl.addContext(0, 'ctx');
    expect(
      await printedBy(
        repl,
        'import collections\nx = 2\ndef double(n):\n    return n * factor\nclass Box:\n    def __init__(self, v):\n        self.v = v',
      ),
    ).toBe('');
    // A function sees a name defined after it (unlike the reference's per-block snapshot).
    expect(await printedBy(repl, 'factor = 10\nprint(double(x), Box(3).v, collections.Counter("aab")["a"])')).toBe('20 3 2\n');
  });

  it('loses the assignments of a block that raises, as the reference does', async () => {
    const repl = await make();
    await repl.addContext(0, 'ctx');
    const r = await repl.execute('items = [1]\nkept = 1\nitems.append(2)\nraise ValueError("bad value")', SITE);
    expect(r.error).toEqual({ name: 'ValueError', message: 'bad value' });
    expect(await printedBy(repl, 'print("kept" in dir())')).toBe('False\n');
  });

  it('reports errors as the type and message Python gives', async () => {
    const repl = await make();
    await repl.addContext(0, { currency: 'EUR' });
    expect(await printedBy(repl, "print(context['order'])")).toBe("!KeyError: 'order'");
    expect(await printedBy(repl, 'import json\njson.loads(context)')).toBe(
      '!TypeError: the JSON object must be str, bytes or bytearray, not dict',
    );
    expect(await printedBy(repl, 'print((1,')).toMatch(/^!SyntaxError: '\(' was never closed \(<string>, line 1\)$/);
  });

  it('captures stdout and stderr separately', async () => {
    const repl = await make();
    const r = await repl.execute('import sys\nprint("to out")\nprint("to err", file=sys.stderr)\nsys.stdout.write("raw")', SITE);
    expect(r.stdout).toBe('to out\nraw');
    expect(r.stderr).toBe('to err\n');
    expect(r.error).toBeNull();
  });

  it("records every variable's short value as the reference's logger writes them (locals)", async () => {
    const repl = await make({ tools: { NOTE: 'a note' } });
    await repl.addContext(0, 'x'.repeat(5000));
    const r = await repl.execute(
      [
        'import re',
        '_hidden = 1',
        'n = 3',
        'pairs = {"a": [1, 2], "b": None}',
        'big = list(range(100000))',
        'def f(): pass',
        'class Bad:',
        '    def __repr__(self): raise RuntimeError("no repr")',
        '    def __getattr__(self, name): raise RuntimeError("no attr")',
        '    def __call__(self): return 1',
        'bad = Bad()',
      ].join('\n'),
      SITE,
    );
    expect(r.error).toBeNull();
    const l = r.locals!;
    expect(l).toMatchObject({
      n: 3,
      pairs: { a: [1, 2], b: null },
      NOTE: 'a note',
      re: "<module 're'>",
      f: "<function 'f'>",
      answer: { content: '', ready: false },
    });
    expect(l['context']).toBe(`${'x'.repeat(200)}…`);
    expect(String(l['big'])).toMatch(/^\[0, 1, 2, .*\.\.\.\]$/);
    expect(String(l['bad'])).toMatch(/Bad/);
    expect(l).not.toHaveProperty('_hidden');
  });

  it('records nan, infinities and ints past 2**53 inside containers as their repr; they crashed the REPL', async () => {
    const repl = await make();
    await repl.addContext(0, 'c');
    const r = await repl.execute('scores = {"a": float("nan"), "b": [float("inf"), -float("inf")], "n": 2**60}\nkept = 1', SITE);
    expect(r.error).toBeNull();
    expect(r.locals).toMatchObject({ scores: { a: 'nan', b: ['inf', '-inf'], n: '1152921504606846976' }, kept: 1 });
    expect(await printedBy(repl, 'print(scores["a"], kept)')).toBe('nan 1\n');
  });

  it('lists simple variables in order, answer and contexts included, _names and modules not', async () => {
    const repl = await make({ tools: { NOTE: 'a note' } });
    await repl.addContext(0, 'the text');
    const r = await repl.execute('import re\n_hidden = 1\nlines = context.split()\ncount = len(lines)\nfn = len', SITE);
    expect(r.variables).toEqual(['answer', 'NOTE', 'context_0', 'context', 'lines', 'count']);
  });

  it('SHOW_VARS lists the variables as the block started, as the reference prints them', async () => {
    const repl = await make({ tools: { EXCHANGE_NOTE: 'EUR->USD' } });
    await repl.addContext(0, { orders: [] });
    expect(await printedBy(repl, 'orders = 1\nprint(SHOW_VARS())')).toBe(
      "Available variables: {'EXCHANGE_NOTE': 'str', 'json': 'module', 'f': 'TextIOWrapper', 'context_0': 'dict', 'context': 'dict'}\n",
    );
    const fresh = await make();
    expect(await printedBy(fresh, 'print(SHOW_VARS())')).toBe('No variables created yet. Use ```repl``` blocks to create variables.\n');
  });

  it("SHOW_VARS, a call without a prompt and a failed call return the prompt pack's texts", async () => {
    const down = (): Promise<never> => Promise.reject(new Error('the line is down'));
    const repl = await make({ bridge: { ...fakeBridge(), llmQuery: down, llmQueryBatched: down }, texts: replTexts(markerPack('python')) });
    expect(await printedBy(repl, 'print(SHOW_VARS())')).toBe('«showVarsEmpty»\n');
    await repl.execute('kept = 1', SITE);
    const printed = await printedBy(
      repl,
      'print(SHOW_VARS())\nprint(llm_query(""))\nprint(llm_query(None))\nprint(rlm_query(""))\nprint(llm_query("p"))\nprint(" | ".join(llm_query_batched(["p", "q"])))',
    );
    expect(printed.split('\n')).toEqual([
      "«showVars»{'kept': 'int'}«showVars.variables»",
      '«emptyPrompt»',
      '«emptyPrompt»',
      '«emptyPrompt»',
      '«subcallFailed»the line is down«subcallFailed.error»',
      '«subcallFailedBatched»the line is down«subcallFailedBatched.error» | «subcallFailedBatched»the line is down«subcallFailedBatched.error»',
      '',
    ]);
    expect(await printedBy(repl, 'print(llm_query_batched("x"))\nprint(rlm_query_batched(5))')).toBe(
      '«badPrompts»llm_query_batched«badPrompts.function»str«badPrompts.type»\n«badPrompts»rlm_query_batched«badPrompts.function»int«badPrompts.type»\n',
    );
  });

  it('imports the standard library', async () => {
    const repl = await make();
    const code = [
      'import re, json, math, itertools, functools, collections, statistics, csv, io, hashlib, datetime, difflib, textwrap, heapq, decimal, fractions, urllib.parse, html, string, random',
      'print(hashlib.sha256(b"x").hexdigest()[:8], math.isqrt(17), urllib.parse.quote("a b"), statistics.median([3, 1, 2]))',
    ].join('\n');
    expect(await printedBy(repl, code)).toBe('2d711642 4 a%20b 2\n');
  });
});

describe('Python REPL: the answer dict', () => {
  it('submits str(content) when ready is set, once per block', async () => {
    const repl = await make();
    const r = await repl.execute('answer["content"] = [1, 2, 3]\nanswer["ready"] = True', SITE);
    expect(r.submitted).toBe('[1, 2, 3]');
    expect((await repl.execute('x = 1', SITE)).submitted).toBeNull();
  });

  it('does not see content set after ready', async () => {
    const repl = await make();
    const r = await repl.execute('answer["ready"] = True\nanswer["content"] = "late"', SITE);
    expect(r.submitted).toBe('');
  });

  it('accepts a rebound plain dict and a submission before an error', async () => {
    const repl = await make();
    expect((await repl.execute('answer = {"content": "rebound", "ready": True}', SITE)).submitted).toBe('rebound');
    const r = await repl.execute('answer["content"] = "before"\nanswer["ready"] = True\nraise RuntimeError("after")', SITE);
    expect(r.submitted).toBe('before');
    expect(r.error?.name).toBe('RuntimeError');
    expect(await printedBy(repl, 'answer = 5\nprint(type(answer).__name__)')).toBe('int\n');
    expect(await printedBy(repl, 'print(answer)')).toBe("{'content': '', 'ready': False}\n");
  });

  it('has FINAL and FINAL_VAR only when paper-era patterns are on', async () => {
    const off = await make();
    expect(await printedBy(off, 'FINAL_VAR("x")')).toBe("!NameError: name 'FINAL_VAR' is not defined");
    const on = await make({ finalVar: finalVarRules(OUR_PACKS.python) });
    await on.execute('result = 42', SITE);
    expect((await on.execute('FINAL_VAR("result")', SITE)).submitted).toBe('42');
    expect((await on.execute('FINAL("done")', SITE)).submitted).toBe('done');
    expect(await printedBy(on, 'print(FINAL_VAR("missing"))')).toMatch(/^Error: Variable 'missing' not found/);
    // A function of the REPL is no variable, as in the reference's locals.
    expect(await printedBy(on, 'print(FINAL_VAR("llm_query"))')).toMatch(/^Error: Variable 'llm_query' not found/);
    expect((await on.execute('FINAL_VAR("llm_query")', SITE)).submitted).toBeNull();
    // Our semantics: a variable the same block made is found.
    const same = await on.execute('fresh = "now"\nprint(FINAL_VAR("fresh"))', SITE);
    expect([same.stdout, same.submitted]).toEqual(['now\n', 'now']);
  });

  it("FINAL_VAR under the reference's semantics: only earlier blocks' variables, the pack's texts", async () => {
    // As the reference's REPL, whose block makes its variables when it ends.
    const repl = await make({ finalVar: finalVarRules(markerPack('python')) });
    const none = await repl.execute('y = 5\nprint(FINAL_VAR("y"))', SITE);
    expect([none.stdout, none.submitted]).toEqual(['«finalVarNoVariables»y«finalVarNoVariables.name»\n', null]);
    const later = await repl.execute('print(FINAL_VAR("y"))', SITE);
    expect([later.stdout, later.submitted]).toEqual(['5\n', '5']);
    const other = await repl.execute('z = 1\nprint(FINAL_VAR("z"))', SITE);
    expect([other.stdout, other.submitted]).toEqual([
      "«finalVarNotFound»z«finalVarNotFound.name»['y']«finalVarNotFound.available»\n",
      null,
    ]);
    // A variable rebound in the block: the value it had when the block began.
    expect((await repl.execute('y = 6\nFINAL_VAR("y")', SITE)).submitted).toBe('5');
    // The scan of a reply's text asks after every block has run: the block's variables are there.
    expect((await repl.execute('FINAL_VAR("z")', { iteration: 1, block: -1 })).submitted).toBe('1');
  });
});

describe('Python REPL: contexts and histories', () => {
  it('loads str, list and dict contexts with the names the reference uses', async () => {
    const repl = await make();
    await repl.addContext(0, 'line one\r\nline two');
    await repl.addContext(1, ['a', 'b']);
    await repl.addContext(2, { k: [1, { n: null }] });
    expect(await printedBy(repl, 'print(repr(context), context is context_0, context_1, context_2)')).toBe(
      "'line one\\nline two' True ['a', 'b'] {'k': [1, {'n': None}]}\n",
    );
  });

  it('reads a context parsed from JSON from its own text, as the reference reads the file with json', async () => {
    const repl = await make();
    const text = '{"x": 2.0, "big": 12345678901234567890, "huge": 1e400, "list": [1.0, 2, -0.0]}';
    const value = parseJsonContext(text);
    // JavaScript reads 2.0 as 2 and the big integer rounded.
    expect(value).toEqual({ x: 2, big: Number('12345678901234567890'), huge: Infinity, list: [1, 2, -0] });
    await repl.addContext(0, value);
    // The same object made by hand has JavaScript's numbers only.
    await repl.addContext(1, { x: 2, list: [1, 2] });
    expect(await printedBy(repl, 'print(repr(context["x"]), context["big"], context["huge"], context["list"], context_1)')).toBe(
      "2.0 12345678901234567890 inf [1.0, 2, -0.0] {'x': 2, 'list': [1, 2]}\n",
    );
  });

  it('keeps non-ASCII text exact', async () => {
    const repl = await make();
    const text = 'naïve café — 東京 😀 end';
    await repl.addContext(0, text);
    const r = await repl.execute('print(len(context), context)', SITE);
    expect(r.stdout).toBe(`${[...text].length} ${text}\n`);
  });

  it('adds histories as history_N with history for the first, and a compaction history', async () => {
    const repl = await make();
    await repl.addContext(0, 'c');
    await repl.addHistory(0, [{ role: 'user', content: 'first' }]);
    await repl.addHistory(1, [{ role: 'user', content: 'second' }]);
    expect(await printedBy(repl, 'print(history[0]["content"], history_1[0]["content"])')).toBe('first second\n');
    await repl.appendHistory([{ role: 'assistant', content: 'summary' }]);
    expect(await printedBy(repl, 'history = None\nprint(1)')).toBe('1\n');
    expect(await printedBy(repl, 'print(history[0]["content"])')).toBe('summary\n');
    // Later messages extend the same list, the code's own changes to it included (as the reference).
    await repl.execute('history.append("mine")\nkept = history', SITE);
    await repl.appendHistory([{ role: 'user', content: 'next' }]);
    expect(await printedBy(repl, 'print(len(history), history[1], history[2]["content"], kept is history)')).toBe('3 mine next True\n');
  });

  it('restores the scaffold after a block overwrites it', async () => {
    const repl = await make();
    await repl.addContext(0, 'real');
    await repl.execute('context = "fake"\nllm_query = None', SITE);
    expect(await printedBy(repl, 'print(context, llm_query("q"))')).toBe('real llm:q\n');
  });
});

describe('Python REPL: sub-calls and tools', () => {
  it('calls the bridge synchronously and keeps batch order', async () => {
    const bridge = fakeBridge(20);
    const repl = await make({ bridge });
    const r = await repl.execute(
      'a = llm_query("one", model="m2")\nb = llm_query_batched(["x", "y", "z"])\nc = rlm_query("deep")\nd = rlm_query_batched(["p", "q"])\nprint(a, b, c, d)',
      SITE,
    );
    expect(r.stdout).toBe("llm:one ['llm:x', 'llm:y', 'llm:z'] rlm:deep ['rlm:p', 'rlm:q']\n");
    expect(bridge.calls.map((c) => [c.kind, c.prompts, c.model ?? null])).toEqual([
      ['llm', ['one'], 'm2'],
      ['llm_batched', ['x', 'y', 'z'], null],
      ['rlm', ['deep'], null],
      ['rlm_batched', ['p', 'q'], null],
    ]);
    expect(bridge.calls[0]!.site).toEqual(SITE);
  });

  it('gives a failing batch item an error string in its slot', async () => {
    const bridge = fakeBridge();
    bridge.llmQueryBatched = async (prompts) => prompts.map((p) => (p === 'bad' ? 'Error: the model refused' : `ok:${p}`));
    const repl = await make({ bridge });
    expect(await printedBy(repl, 'print(llm_query_batched(["a", "bad", "c"]))')).toBe("['ok:a', 'Error: the model refused', 'ok:c']\n");
    expect(await printedBy(repl, 'print(llm_query_batched([]))')).toBe('[]\n');
  });

  it('calls custom tools with positional and keyword arguments and raises their errors', async () => {
    const convert = (amount: unknown, to: unknown = 'USD'): number => {
      if (to !== 'USD') throw Object.assign(new Error(`unsupported currency ${String(to)}`), { name: 'ValueError' });
      return Math.round(Number(amount) * 1.08 * 100) / 100;
    };
    const repl = await make({ tools: { convert_currency: convert, RATE_NOTE: 'fixed' } });
    // JSON numbers: an integral result arrives as int.
    expect(await printedBy(repl, 'print(convert_currency(100), convert_currency(10, to="USD"), RATE_NOTE)')).toBe('108 10.8 fixed\n');
    expect(await printedBy(repl, 'convert_currency(1, to="GBP")')).toBe('!ValueError: unsupported currency GBP');
    expect(await printedBy(repl, 'convert_currency(1, rate=2)')).toBe(
      "!TypeError: convert_currency() got an unexpected keyword argument 'rate'",
    );
  });

  it('gives a tool nan and the infinities as JavaScript numbers; the call failed as invalid JSON', async () => {
    const seen: unknown[] = [];
    const repl = await make({ tools: { keep: (...args: unknown[]) => void seen.push(args) } });
    expect(await printedBy(repl, 'keep(float("nan"), [float("inf"), {"low": -float("inf"), "ok": 1.5}], "NaN")')).toBe('');
    expect(seen).toEqual([[Number.NaN, [Infinity, { low: -Infinity, ok: 1.5 }], 'NaN']]);
  });

  it('refuses tool names that are reserved or not Python identifiers', async () => {
    await expect(pythonBackend.create({ bridge: fakeBridge(), tools: { answer: 1 } })).rejects.toThrow(/reserved/);
    await expect(pythonBackend.create({ bridge: fakeBridge(), tools: { lambda: 1 } })).rejects.toThrow(/Python identifiers/);
  });

  it('shows variables with Python types for the Variables view', async () => {
    const repl = await make();
    await repl.execute('words = ["a", "b"]\nn = 3\ntext = "x" * 500', SITE);
    const vars = await repl.listVariables();
    expect(vars.find((v) => v.name === 'words')).toEqual({ name: 'words', type: 'list', size: 2, preview: "['a', 'b']" });
    expect(vars.find((v) => v.name === 'n')).toMatchObject({ type: 'int', size: null, preview: '3' });
    expect(vars.find((v) => v.name === 'answer')).toMatchObject({ type: 'dict', size: 2 });
    expect(vars.find((v) => v.name === 'text')!.preview.length).toBeLessThanOrEqual(200);
  });
});

// Each expectation is what the reference's LocalREPL gave for the same blocks (Python 3.11).
describe('Python REPL: side by side with the reference', () => {
  it('a list context, and names and in-place changes that persist across blocks', async () => {
    const repl = await make();
    await repl.addContext(0, ['alpha', 'beta', 'gamma']);
    expect(await printedBy(repl, 'print(type(context).__name__, len(context), context[1], context is context_0)')).toBe(
      'list 3 beta True\n',
    );
    expect(
      await printedBy(repl, 'total = sum(len(c) for c in context)\ncounts = {}\ndef bump(k):\n    counts[k] = counts.get(k, 0) + 1'),
    ).toBe('');
    expect(await printedBy(repl, 'bump("a")\nbump("a")\ncontext.append("delta")')).toBe('');
    expect(await printedBy(repl, 'print(total, counts, len(context_0))')).toBe("14 {'a': 2} 4\n");
    // Items that are not strings arrive as the reference's json.load gives them.
    await repl.addContext(1, [1, 'a', null, { x: 1.5, y: [true, false] }, []]);
    expect(await printedBy(repl, 'print(context_1, [type(v).__name__ for v in context_1])')).toBe(
      "[1, 'a', None, {'x': 1.5, 'y': [True, False]}, []] ['int', 'str', 'NoneType', 'dict', 'list']\n",
    );
  });

  it('an error raised inside a function shows as its type and message only, no traceback', async () => {
    const repl = await make();
    const r = await repl.execute('def f(x):\n    return 1/x\ndef g():\n    return f(0)\ng()', SITE);
    expect({ stdout: r.stdout, stderr: r.stderr, error: r.error }).toEqual({
      stdout: '',
      stderr: '',
      error: { name: 'ZeroDivisionError', message: 'division by zero' },
    });
    expect(await printedBy(repl, 'def h(d):\n    return d["missing"]\nh({})')).toBe("!KeyError: 'missing'");
    expect(await printedBy(repl, 'def deep(n):\n    return deep(n + 1)\ndeep(0)')).toBe(
      '!RecursionError: maximum recursion depth exceeded',
    );
  });

  it("a traceback the code prints itself names the block as <string> and each function's frame", async () => {
    const repl = await make();
    await repl.execute('def f(x):\n    return 1/x\ndef g():\n    return f(0)', SITE);
    const r = await repl.execute('import traceback\ntry:\n    g()\nexcept Exception:\n    traceback.print_exc()', SITE);
    expect(r.stderr).toBe(
      'Traceback (most recent call last):\n  File "<string>", line 3, in <module>\n  File "<string>", line 4, in g\n  File "<string>", line 2, in f\nZeroDivisionError: division by zero\n',
    );
  });

  it('an indented body, once the first line is stripped as the reference strips it, fails on line 2', async () => {
    const repl = await make();
    expect(await printedBy(repl, 'x = 1\n    print(x)')).toBe('!IndentationError: unexpected indent (<string>, line 2)');
    expect(await printedBy(repl, '    x = 1')).toBe('!IndentationError: unexpected indent (<string>, line 1)');
  });

  it('submits str() of content that is not a string, for any truthy ready', async () => {
    const repl = await make();
    expect((await repl.execute('answer["content"] = {"k": [1, 2]}\nanswer["ready"] = True', SITE)).submitted).toBe("{'k': [1, 2]}");
    expect((await repl.execute('answer["content"] = None\nanswer["ready"] = True', SITE)).submitted).toBe('None');
    expect((await repl.execute('answer["content"] = 3.0\nanswer["ready"] = 1', SITE)).submitted).toBe('3.0');
    expect((await repl.execute('answer["content"] = "no"\nanswer["ready"] = 0', SITE)).submitted).toBeNull();
  });

  it('sys.exit() is an error of its block, where it escaped the reference and ended the run', async () => {
    const repl = await make();
    expect(await printedBy(repl, 'import sys\nkept = 1\nsys.exit(3)')).toBe('!SystemExit: 3');
    expect(await printedBy(repl, 'print("still here", "kept" in dir())')).toBe('still here False\n');
  });
});
