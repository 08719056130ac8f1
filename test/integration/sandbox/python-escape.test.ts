// Python code must not reach the host: not its JavaScript, files, network, processes or
// environment. Each probe tries a route; the asserts check effects on the host (no file
// written, no request received, no secret read), not only what the code printed.
import { existsSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coolPython } from '../../../src-main/sandbox/python/pool.ts';
import { createPythonRepl } from '../../../src-main/sandbox/python/pyodide-repl.ts';
import type { Repl } from '../../../src-main/sandbox/types.ts';
import { fakeBridge, SITE } from './helpers.ts';

const marker = join(tmpdir(), `rlm-python-escape-${process.pid}`);
const secret = `canary-${process.pid}-${Date.now()}`;
let repl: Repl;
let requests = 0;
let port = 0;
const server = createServer((_req, res) => {
  requests++;
  res.end('reached');
});

beforeAll(async () => {
  process.env.RLM_ESCAPE_CANARY = secret;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  repl = await createPythonRepl({ bridge: fakeBridge(), tools: { host_tool: () => ({ made: 'on host' }) } });
  await repl.addContext(0, 'context');
});
afterAll(async () => {
  repl.dispose();
  delete process.env.RLM_ESCAPE_CANARY;
  server.close();
  rmSync(marker, { force: true });
  await coolPython();
});

async function run(code: string): Promise<string> {
  const r = await repl.execute(code, SITE);
  return r.error ? `${r.stdout}!${r.error.name}: ${r.error.message}` : r.stdout;
}

describe('Python sandbox boundary', () => {
  it('has no JavaScript modules', async () => {
    for (const name of ['js', 'pyodide_js', 'pyodide', 'pyodide.code', 'pyodide.ffi', '_pyodide', '_pyodide_core', 'micropip']) {
      expect(await run(`import ${name}`)).toMatch(/^!ModuleNotFoundError: No module named/);
    }
    expect(await run('from pyodide.code import run_js')).toMatch(/^!ModuleNotFoundError/);
    expect(await run('import js\njs.fetch("http://example.com")')).toMatch(/^!ModuleNotFoundError/);
  });

  it('keeps them out when the import machinery is tampered with', async () => {
    const out = await run(
      'import sys, importlib\nsys.meta_path.clear()\nsys.meta_path.extend([importlib.machinery.BuiltinImporter, importlib.machinery.PathFinder])\nimport js',
    );
    expect(out).toMatch(/^!ModuleNotFoundError/);
  });

  it('reaches only a bare isolate through any JavaScript object it can find', async () => {
    const out = await run(
      [
        'import gc',
        'found = [o for o in gc.get_objects() if type(o).__name__ in ("JsProxy", "JsCallable", "JsDoubleProxy", "JsMethod") or type(o).__name__.startswith("JsCallable")]',
        'probe = "return [typeof process, typeof require, typeof fetch, typeof WebSocket, typeof XMLHttpRequest, typeof importScripts].join()"',
        'results = set()',
        'for o in found:',
        '    try:',
        '        results.add(str(o.constructor.constructor(probe)()))',
        '    except Exception as e:',
        '        pass',
        'print(sorted(results))',
      ].join('\n'),
    );
    // Either nothing was found or every route saw none of the host's capabilities.
    expect(out).toMatch(/^\[('undefined,undefined,undefined,undefined,undefined,undefined')?\]\n$/);
  });

  it('cannot read or write the host file system', async () => {
    expect(await run('print(open("/etc/passwd").read())')).toMatch(/^!FileNotFoundError/);
    expect(await run(`print(open(${JSON.stringify(import.meta.filename)}).read())`)).toMatch(/^!FileNotFoundError/);
    await run(`import os\nos.makedirs(${JSON.stringify(tmpdir())}, exist_ok=True)\nopen(${JSON.stringify(marker)}, "w").write("escaped")`);
    expect(existsSync(marker)).toBe(false);
  });

  it('starts no process', async () => {
    const touch = `touch ${marker}`;
    expect(await run(`import os\nprint(os.system(${JSON.stringify(touch)}))`)).toMatch(/^-1\n$|^!/);
    expect(await run(`import subprocess\nsubprocess.run(["sh", "-c", ${JSON.stringify(touch)}])`)).toMatch(/^!OSError/);
    expect(await run(`import os\nos.popen(${JSON.stringify(touch)}).read()`)).toMatch(/^!/);
    expect(await run('import os\nos.fork()')).toMatch(/^!(OSError|AttributeError)/);
    expect(existsSync(marker)).toBe(false);
  });

  it('gets nothing of the host through ctypes', async () => {
    const script = `require("fs").writeFileSync(${JSON.stringify(marker)}, "escaped")`;
    const out = await run(
      [
        'import ctypes',
        'libc = ctypes.CDLL(None)',
        'results = []',
        `for name, arg in (("system", b${JSON.stringify(`touch ${marker}`)}), ("emscripten_run_script", b${JSON.stringify(script)})):`,
        '    try:',
        '        results.append((name, getattr(libc, name)(arg)))',
        '    except Exception as e:',
        '        results.append((name, type(e).__name__))',
        'print(results)',
      ].join('\n'),
    );
    // emscripten_run_script runs JavaScript in the isolate, where `require` does not exist; the
    // exception unwinds through the interpreter, which is replaced.
    expect(out).toMatch(/^\[.*\]\n$|^!SystemError: The Python interpreter crashed \(require is not a function\)/);
    expect(existsSync(marker)).toBe(false);
    expect(await run('print(context)')).toBe('context\n');
  });

  it('reaches no network', async () => {
    const url = `http://127.0.0.1:${port}/`;
    await run(
      `import socket\ns = socket.socket()\ns.settimeout(1)\ns.connect(("127.0.0.1", ${port}))\ns.send(b"GET / HTTP/1.0\\r\\n\\r\\n")`,
    );
    await run(`import urllib.request\nurllib.request.urlopen(${JSON.stringify(url)}, timeout=1).read()`);
    await run(`import http.client\nc = http.client.HTTPConnection("127.0.0.1", ${port}, timeout=1)\nc.request("GET", "/")`);
    expect(requests).toBe(0);
  });

  it('sees none of the host environment', async () => {
    const out = await run(
      'import os\nprint(sorted(os.environ))\nprint(os.environ.get("RLM_ESCAPE_CANARY"), os.environ.get("OPENAI_API_KEY"))',
    );
    expect(out).not.toContain(secret);
    expect(out).toMatch(/\nNone None\n$/);
  });

  it('gets plain data back from host tools', async () => {
    expect(await run('r = host_tool()\nprint(type(r).__name__, r)')).toBe("dict {'made': 'on host'}\n");
  });
});
