// REPLs in a sandbox process (engine/sandbox-process): the same contract as in-process REPLs,
// with sub-calls and tools answered in the parent; context files read by the child itself;
// a lost child reported on every operation; and a parent on Node's startup snapshot (as
// bin/rlm-studio starts `run`) that runs a REPL this way, cannot run one in-process, and exits
// by itself once its REPLs are disposed; with the Python REPL the command line starts that
// process, and an interpreter in it, before any REPL is asked for.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeAsciiTextFile } from '../../../src-main/engine/context-file.ts';
import { describedContext } from '../../../src-main/engine/context-meta.ts';
import { SandboxProcess, SandboxProcessError } from '../../../src-main/engine/sandbox-process/sandbox-process.ts';
import { parseJsonContext } from '../../../src-main/sandbox/json-source.ts';
import type { Repl, SandboxValue } from '../../../src-main/sandbox/types.ts';
import { fakeBridge, SITE } from '../sandbox/helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlm-sandbox-process-'));
const processes: SandboxProcess[] = [];
afterAll(() => {
  for (const p of processes) p.close();
  rmSync(dir, { recursive: true, force: true });
});

function sandbox(): SandboxProcess {
  const p = new SandboxProcess();
  processes.push(p);
  return p;
}

async function printed(repl: Repl, code: string): Promise<string> {
  const r = await repl.execute(code, SITE);
  if (r.error) return `${r.error.name}: ${r.error.message}`;
  return r.stdout.trim();
}

describe('a JavaScript REPL in the sandbox process', () => {
  it('runs blocks over its context, with sub-calls and tools answered in the parent', async () => {
    const bridge = fakeBridge();
    const seen: SandboxValue[][] = [];
    const repl = await sandbox().replFactory('javascript')({
      bridge,
      tools: {
        add: (a, b) => {
          seen.push([a ?? null, b ?? null]);
          return Number(a) + Number(b);
        },
        fail: () => {
          throw new RangeError('no such row');
        },
        later: async (x) => `later:${String(x)}`,
        units: { km: 1000 },
      },
    });
    await repl.addContext(0, 'abc\ndef');
    await repl.addHistory(0, [{ role: 'user', content: 'hi' }]);
    await repl.appendHistory([{ role: 'user', content: 'hi' }]);
    await repl.appendHistory([{ role: 'assistant', content: 'compacted' }]);
    expect(
      await printed(
        repl,
        'print(context.length, context_0.split("\\n")[1], history_0[0].content, history.map((m) => m.content).join(","))',
      ),
    ).toBe('7 def hi hi,compacted');
    expect(await printed(repl, 'print(llm_query("one"), llm_query_batched(["a", "b"]).join(","), rlm_query("deep"))')).toBe(
      'llm:one llm:a,llm:b rlm:deep',
    );
    expect(bridge.calls.map((c) => [c.kind, c.prompts, c.site])).toEqual([
      ['llm', ['one'], SITE],
      ['llm_batched', ['a', 'b'], SITE],
      ['rlm', ['deep'], SITE],
    ]);
    expect(await printed(repl, 'print(add(2, 3), later(7), units.km)')).toBe('5 later:7 1000');
    expect(seen).toEqual([[2, 3]]);
    expect(await printed(repl, 'try { fail() } catch (e) { print(e.name, e.message) }')).toBe('RangeError no such row');
    const r = await repl.execute('const total = 41 + 1; answer.content = String(total); answer.ready = true;', SITE);
    expect(r.submitted).toBe('42');
    expect(r.variables).toContain('total');
    expect((await repl.listVariables()).find((v) => v.name === 'total')).toMatchObject({ type: 'number' });
    expect(await printed(repl, 'throw new TypeError("bad block")')).toBe('TypeError: bad block');
    repl.dispose();
  });

  it('takes a context file from its own read, not through the channel', async () => {
    const p = sandbox();
    const path = join(dir, 'context.txt');
    writeFileSync(path, 'the child read this file');
    // The parent's value stands for the file: a REPL given exactly it gets the child's read.
    const parentsValue = 'what the parent read';
    p.shareContextFile(path, parentsValue);
    const repl = await p.replFactory('javascript')({ bridge: fakeBridge() });
    await repl.addContext(0, parentsValue);
    await repl.addContext(1, 'sent over');
    expect(await printed(repl, 'print(context, "|", context_1)')).toBe('the child read this file | sent over');
    repl.dispose();
  });

  it('lets go of a file once a REPL has it, and reads it again for the next REPL only if unchanged', async () => {
    const p = sandbox();
    const path = join(dir, 'again.txt');
    writeFileSync(path, 'first read');
    const parentsValue = 'the parent read again.txt';
    p.shareContextFile(path, parentsValue);
    const first = await p.replFactory('javascript')({ bridge: fakeBridge() });
    await first.addContext(0, parentsValue);
    expect(await printed(first, 'print(context)')).toBe('first read');
    // A second REPL (a chat's, rebuilt after a cancelled turn) gets the same file, read again.
    const second = await p.replFactory('javascript')({ bridge: fakeBridge() });
    await second.addContext(0, parentsValue);
    expect(await printed(second, 'print(context)')).toBe('first read');
    // Changed on disk, it is no longer the context the parent described: refused, by name.
    writeFileSync(path, 'edited since, and longer');
    const third = await p.replFactory('javascript')({ bridge: fakeBridge() });
    await expect(third.addContext(0, parentsValue)).rejects.toThrow(/again\.txt changed on disk/);
    for (const r of [first, second, third]) r.dispose();
  });

  it('gives a REPL the file behind a context this process only described', async () => {
    const p = sandbox();
    const path = join(dir, 'described.txt');
    writeFileSync(path, 'read by the child only\n');
    const stand = describedContext(describeAsciiTextFile(path)!);
    p.shareContextFile(path, stand);
    const repl = await p.replFactory('javascript')({ bridge: fakeBridge() });
    await repl.addContext(0, stand);
    expect(await printed(repl, 'print(JSON.stringify(context))')).toBe('"read by the child only\\n"');
    repl.dispose();
  });

  it('reports a context file the child cannot read on the REPL that needs it', async () => {
    const p = sandbox();
    const value = 'gone';
    p.shareContextFile(join(dir, 'missing.txt'), value);
    const repl = await p.replFactory('javascript')({ bridge: fakeBridge() });
    await expect(repl.addContext(0, value)).rejects.toThrow(/missing\.txt/);
    repl.dispose();
  });

  it('rejects every operation once the sandbox process is gone', async () => {
    const p = sandbox();
    const repl = await p.replFactory('javascript')({ bridge: fakeBridge() });
    await repl.addContext(0, 'x');
    expect(await printed(repl, 'print(1)')).toBe('1');
    const pid = p.pid;
    expect(pid).toBeTypeOf('number');
    const running = repl.execute('while (true) {}', SITE);
    await new Promise((r) => setTimeout(r, 200));
    process.kill(pid as number, 'SIGKILL');
    await expect(running).rejects.toThrow(SandboxProcessError);
    await expect(running).rejects.toThrow(/was killed \(SIGKILL\)/);
    await expect(repl.execute('print(2)', SITE)).rejects.toThrow(/sandbox process was killed/);
  });
});

describe('a Python REPL in the sandbox process', () => {
  it('runs blocks with sub-calls answered in the parent', async () => {
    const bridge = fakeBridge();
    const repl = await sandbox().replFactory('python')({ bridge });
    await repl.addContext(0, 'abc\ndef');
    expect(await printed(repl, 'print(len(context), llm_query("p"))')).toBe('7 llm:p');
    expect(bridge.calls).toHaveLength(1);
    repl.dispose();
  }, 120_000);

  it('gets a value parsed from JSON as its text, so Python keeps 2.0 a float and big integers exact', async () => {
    const repl = await sandbox().replFactory('python')({ bridge: fakeBridge() });
    await repl.addContext(0, parseJsonContext('{"x": 2.0, "big": 12345678901234567890}'));
    await repl.addContext(1, { x: 2 });
    expect(await printed(repl, 'print(repr(context["x"]), context["big"], repr(context_1["x"]))')).toBe('2.0 12345678901234567890 2');
    repl.dispose();
  }, 120_000);
});

describe('the sandbox process ending', () => {
  // A Python REPL with a context of a few MB, as runs have.
  async function pythonWithContext(p: SandboxProcess): Promise<Repl> {
    p.warmPython();
    const repl = await p.replFactory('python')({ bridge: fakeBridge() });
    await repl.addContext(0, 'record of the context\n'.repeat(200_000));
    expect(await printed(repl, 'print(len(context.split()))')).toBe('800000');
    return repl;
  }

  it('is killed once its parent lets go, its Python REPL disposed or still running a block: never a crash or a hang', async () => {
    // Its exit crashed in isolated-vm's teardown (SIGSEGV, 9 ends in 10 with a block running)
    // or never returned; a hang fails this test by its timeout.
    const ends = [];
    for (let i = 0; i < 6; i++) {
      const p = sandbox();
      const repl = await pythonWithContext(p);
      if (i % 2 === 1) void repl.execute('total = sum(len(w) for w in context.split())', SITE).catch(() => undefined);
      repl.dispose();
      p.close();
      ends.push(await p.exited);
    }
    expect(ends).toEqual(Array.from({ length: 6 }, () => ({ code: null, signal: 'SIGKILL' })));
  }, 180_000);
});

describe('a parent on Node’s startup snapshot', () => {
  it('runs its REPLs in the sandbox process, refuses an in-process one, and exits once they are disposed', () => {
    const script = join(dir, 'parent.ts');
    const src = (p: string): string => JSON.stringify(resolve(import.meta.dirname, '../../..', p));
    writeFileSync(
      script,
      [
        `import { replFactoryFor } from ${src('src-main/engine/conversation.ts')};`,
        `import { createIsolatedRepl } from ${src('src-main/sandbox/isolated-repl.ts')};`,
        `const bridge = { llmQuery: async (p) => 'got ' + p, llmQueryBatched: async (ps) => ps, rlmQuery: async (p) => p, rlmQueryBatched: async (ps) => ps };`,
        `let refused = '';`,
        `try { await createIsolatedRepl({ bridge }); } catch (e) { refused = e.message; }`,
        `const repl = await replFactoryFor('javascript')({ bridge });`,
        `await repl.addContext(0, 'ctx');`,
        `const r = await repl.execute('print(context, llm_query("x"))', { iteration: 1, block: 1 });`,
        `repl.dispose();`,
        `console.log(JSON.stringify({ out: r.stdout.trim(), refused }));`,
      ].join('\n'),
    );
    // No --no-node-snapshot: the process cannot host isolates, and nothing keeps it alive at the end.
    const r = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, NODE_OPTIONS: '' } });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const got = JSON.parse(r.stdout) as { out: string; refused: string };
    expect(got.out).toBe('ctx got x');
    expect(got.refused).toMatch(/cannot run in a Node started with its startup snapshot/);
  });
});

describe.skipIf(!existsSync('/proc/self/status'))('the command line with the Python REPL, on the snapshot', () => {
  it('starts the sandbox process and an interpreter in it before any REPL is asked for', () => {
    const script = join(dir, 'early.ts');
    const src = (p: string): string => JSON.stringify(resolve(import.meta.dirname, '../../..', p));
    writeFileSync(
      script,
      [
        `import { readFileSync } from 'node:fs';`,
        `import { startPythonEarly } from ${src('src-main/cli/python-prefetch.ts')};`,
        `import { sharedSandboxProcess } from ${src('src-main/engine/sandbox-process/sandbox-process.ts')};`,
        `const javascript = await startPythonEarly(['node', 'rlm-studio', 'run', '--repl', 'javascript']);`,
        `const before = sharedSandboxProcess().pid ?? null;`,
        `const python = await startPythonEarly(['node', 'rlm-studio', 'run', '--context', 'c.txt', '--repl', 'python']);`,
        `const pid = await sharedSandboxProcess().runnerPid();`,
        // Resident memory of the child: a bare Node is ~50 MB; an interpreter started from the
        // snapshot holds its wasm memory, the snapshot and Pyodide's files besides.
        `const rss = () => Number(/VmRSS:\\s+(\\d+)/.exec(readFileSync('/proc/' + pid + '/status', 'utf8'))[1]) / 1024;`,
        `let mb = rss();`,
        `for (let waited = 0; mb < 120 && waited < 60_000; waited += 100) { await new Promise((r) => setTimeout(r, 100)); mb = rss(); }`,
        `const isolatedVm = readFileSync('/proc/' + pid + '/maps', 'utf8').includes('isolated-vm');`,
        `sharedSandboxProcess().close();`,
        `console.log(JSON.stringify({ javascript, before, python, pid, mb, isolatedVm }));`,
      ].join('\n'),
    );
    const r = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 90_000, env: { ...process.env, NODE_OPTIONS: '' } });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const got = JSON.parse(r.stdout) as {
      javascript: string | null;
      before: number | null;
      python: string;
      pid: number;
      mb: number;
      isolatedVm: boolean;
    };
    expect(got.javascript).toBeNull();
    expect(got.before).toBeNull();
    expect(got.python).toBe('sandbox process');
    expect(got.pid).toBeTypeOf('number');
    expect(got.isolatedVm).toBe(true);
    expect(got.mb).toBeGreaterThanOrEqual(120);
  }, 120_000);
});
