// The escape battery for the CPython REPL: real CPython, with ctypes and os, inside the OS
// sandbox. Each probe tries a route out; the asserts check the effects on the host (no request
// received, no file written or changed, no secret read, no process started), not only what the
// code printed.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coolCPython } from '../../../src-main/sandbox/python/cpython-process.ts';
import { createCPythonRepl } from '../../../src-main/sandbox/python/cpython-repl.ts';
import type { Repl } from '../../../src-main/sandbox/types.ts';
import { fakeBridge, SITE } from './helpers.ts';
import { LoopbackListeners } from '../../support/loopback-listeners.ts';

const PYTHON = '/usr/bin/python3';
const marker = join(tmpdir(), `rlm-cpython-escape-${process.pid}`);
const homeMarker = join(homedir(), `.rlm-cpython-escape-${process.pid}`);
const secret = `canary-${process.pid}-${Date.now()}`;
const shadowBefore = existsSync('/etc/shadow') ? statSync('/etc/shadow').mtimeMs : null;
let repl: Repl;
const listeners = new LoopbackListeners();

beforeAll(async () => {
  // Set before the interpreter starts: it must not reach the sandbox.
  process.env.RLM_ESCAPE_CANARY = secret;
  process.env.OPENAI_API_KEY = secret;
  await listeners.listen();
  repl = await createCPythonRepl({ bridge: fakeBridge(), python: PYTHON, memoryLimitMb: 128, cpuLimitMs: 5_000 });
  await repl.addContext(0, 'context');
});
afterAll(() => {
  repl.dispose();
  coolCPython();
  delete process.env.RLM_ESCAPE_CANARY;
  delete process.env.OPENAI_API_KEY;
  listeners.close();
  rmSync(marker, { force: true });
  rmSync(homeMarker, { force: true });
});

async function run(code: string): Promise<string> {
  const r = await repl.execute(code, SITE);
  return r.error ? `${r.stdout}!${r.error.name}: ${r.error.message}` : r.stdout;
}

describe('CPython sandbox boundary', () => {
  it('reaches no network: not a loopback listener, not by TCP, HTTP or UDP', async () => {
    const out = await run(
      [
        'import socket, urllib.request',
        'seen = []',
        `for port in (${listeners.tcpPort}, ${listeners.httpPort}):`,
        '    try:',
        '        s = socket.create_connection(("127.0.0.1", port), timeout=1)',
        '        s.send(b"GET / HTTP/1.0\\r\\n\\r\\n")',
        '        seen.append("connected")',
        '    except OSError as e:',
        '        seen.append(type(e).__name__)',
        'try:',
        `    urllib.request.urlopen("http://127.0.0.1:${listeners.httpPort}/", timeout=1).read()`,
        'except OSError as e:',
        '    seen.append(type(e).__name__)',
        'u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)',
        'try:',
        `    u.sendto(b"x", ("127.0.0.1", ${listeners.tcpPort}))`,
        'except OSError as e:',
        '    seen.append(type(e).__name__)',
        'print(seen, socket.if_nameindex())',
      ].join('\n'),
    );
    expect(out).not.toContain('connected');
    // The only interface is the sandbox's own loopback.
    expect(out).toMatch(/\[\(1, 'lo'\)\]\n$/);
    expect(listeners.requests).toBe(0);
    expect(listeners.connections).toBe(0);
  });

  it('sees no home folder, no repository, no /etc beyond the loader; writes nothing on the host', async () => {
    const files = [join(homedir(), '.bashrc'), homedir(), import.meta.filename, process.cwd(), '/etc/passwd', '/etc/shadow', '/root'];
    const out = await run(['import os', `for path in ${JSON.stringify(files)}:`, '    print(path, os.path.exists(path))'].join('\n'));
    for (const path of files) expect(out).toContain(`${path} False\n`);
    const writes = await run(
      [
        'import os',
        'results = []',
        `for path in (${JSON.stringify(marker)}, ${JSON.stringify(homeMarker)}, "/etc/shadow", "/usr/rlm-escape", "/rlm/runtime.py"):`,
        '    try:',
        '        os.makedirs(os.path.dirname(path), exist_ok=True)',
        '        with open(path, "a") as f:',
        '            f.write("escaped")',
        '        results.append("wrote " + path)',
        '    except OSError as e:',
        '        results.append(type(e).__name__)',
        'print(results)',
      ].join('\n'),
    );
    // The private /tmp takes a file; the host's does not get it. The rest is read-only or absent.
    expect(writes).toMatch(/^\['wrote \/tmp\/[^']+', '(OSError|PermissionError|FileNotFoundError)', /);
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(homeMarker)).toBe(false);
    expect(existsSync('/usr/rlm-escape')).toBe(false);
    if (shadowBefore !== null) expect(statSync('/etc/shadow').mtimeMs).toBe(shadowBefore);
    expect(readFileSync(new URL('../../../src-main/sandbox/python/runtime.py', import.meta.url), 'utf8')).not.toContain('escaped');
  });

  it('sees none of the host environment, not through /proc either', async () => {
    const out = await run(
      [
        'import os, glob',
        'print(sorted(os.environ))',
        'print(os.environ.get("RLM_ESCAPE_CANARY"), os.environ.get("OPENAI_API_KEY"))',
        'for path in sorted(glob.glob("/proc/*/environ")):',
        '    print(path, open(path, "rb").read())',
        'print(sorted(p for p in os.listdir("/proc") if p.isdigit()))',
      ].join('\n'),
    );
    expect(out).not.toContain(secret);
    expect(out).toContain('None None\n');
    // Only the interpreter itself is in its /proc: no bwrap process kept the environment it was started with.
    expect(out).toMatch(/\['1'\]\n$/);
  });

  it('cannot signal or see host processes', async () => {
    const out = await run(
      `import os\ntry:\n    os.kill(${process.pid}, 0)\n    print("reached")\nexcept OSError as e:\n    print(type(e).__name__)`,
    );
    expect(out).toBe('ProcessLookupError\n');
  });

  it('starts no process: not os.system, subprocess, fork, posix_spawn or libc through ctypes', async () => {
    const touch = `touch ${marker}`;
    const out = await run(
      [
        'import os, subprocess, ctypes',
        'results = []',
        'def attempt(name, fn):',
        '    try:',
        '        results.append((name, fn()))',
        '    except Exception as e:',
        '        results.append((name, type(e).__name__))',
        `attempt("system", lambda: os.system(${JSON.stringify(touch)}))`,
        `attempt("subprocess", lambda: subprocess.run(["/bin/sh", "-c", ${JSON.stringify(touch)}]).returncode)`,
        'attempt("fork", os.fork)',
        `attempt("posix_spawn", lambda: os.posix_spawn("/bin/sh", ["sh", "-c", ${JSON.stringify(touch)}], {}))`,
        'libc = ctypes.CDLL(None, use_errno=True)',
        'attempt("libc.fork", lambda: (libc.fork(), ctypes.get_errno()))',
        'attempt("libc.vfork", lambda: (libc.syscall(58), ctypes.get_errno()))',
        'attempt("clone", lambda: (libc.syscall(56, 17, 0, 0, 0, 0), ctypes.get_errno()))',
        'print(results)',
      ].join('\n'),
    );
    // The shell could not be started: 127, the shell's own "command not run", as a wait status.
    expect(out).toContain("('system', 32512)");
    expect(out).toContain("('subprocess', 'PermissionError')");
    expect(out).toContain("('fork', 'PermissionError')");
    expect(out).toContain("('posix_spawn', 'PermissionError')");
    expect(out).toContain("('libc.fork', (-1, 1))");
    expect(out).toContain("('libc.vfork', (-1, 1))");
    expect(out).toContain("('clone', (-1, 1))");
    expect(existsSync(marker)).toBe(false);
  });

  it('survives a fork bomb: no fork succeeds, and the session goes on', async () => {
    const out = await run(
      [
        'import os',
        'made = 0',
        'for _ in range(2000):',
        '    try:',
        '        os.fork()',
        '        made += 1',
        '    except OSError:',
        '        pass',
        'print(made)',
      ].join('\n'),
    );
    expect(out).toBe('0\n');
    expect(await run('print(context)')).toBe('context\n');
  });

  it('cannot reach past its namespaces: unshare, mount, ptrace and setns are refused', async () => {
    const out = await run(
      [
        'import ctypes',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'print([libc.unshare(0x10000000), libc.mount(b"none", b"/tmp", b"tmpfs", 0, None), libc.ptrace(16, 1, 0, 0), libc.setns(0, 0)])',
      ].join('\n'),
    );
    expect(out).toBe('[-1, -1, -1, -1]\n');
  });

  it('holds the memory limit: a bomb raises MemoryError, the limit cannot be raised, the session goes on', async () => {
    expect(await run('x = bytearray(1024 * 1024 * 1024)')).toMatch(/^!MemoryError/);
    expect(await run('x = [0] * (400 * 1024 * 1024)')).toMatch(/^!MemoryError/);
    expect(await run('import mmap\nm = mmap.mmap(-1, 1024 * 1024 * 1024)')).toMatch(/^!OSError|^!MemoryError/);
    const raise = await run(
      'import resource\ntry:\n    resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))\n    print("raised")\nexcept (ValueError, OSError) as e:\n    print(type(e).__name__)',
    );
    expect(raise).toMatch(/^(ValueError|PermissionError)\n$/);
    const threads = await run(
      [
        'import threading',
        'errors = []',
        'def grab():',
        '    try:',
        '        keep = [bytearray(64 * 1024 * 1024) for _ in range(8)]',
        '    except MemoryError:',
        '        errors.append(1)',
        'ts = [threading.Thread(target=grab) for _ in range(4)]',
        'for t in ts: t.start()',
        'for t in ts: t.join()',
        'print(len(errors) > 0)',
      ].join('\n'),
    );
    expect(threads).toBe('True\n');
    expect(await run('print(context)')).toBe('context\n');
  });

  it('fills no host disk: a file past the size limit fails, /tmp is small', async () => {
    const out = await run(
      [
        'results = []',
        'try:',
        '    with open("/tmp/big", "wb") as f:',
        '        for _ in range(200):',
        '            f.write(b"x" * 1024 * 1024)',
        'except OSError as e:',
        '    results.append(type(e).__name__)',
        'print(results)',
      ].join('\n'),
    );
    expect(out).toMatch(/^\['OSError'\]\n$/);
  });

  it('a forged frame on the host channel ends only its own session', async () => {
    const r = await repl.execute('import os\nos.write(3, b"\\xff\\xff\\xff\\xff\\x00\\x00\\x00\\x00")\nimport time\ntime.sleep(1)', SITE);
    expect(r.replReset).toBe('crash');
    expect(await run('print(context)')).toBe('context\n');
  });

  it('gets the digest of the host runtime it was given, unchanged', async () => {
    const hash = createHash('sha256')
      .update(readFileSync(new URL('../../../src-main/sandbox/python/runtime.py', import.meta.url)))
      .digest('hex');
    const out = await run('import hashlib\nprint(hashlib.sha256(open("/rlm/runtime.py", "rb").read()).hexdigest())');
    expect(out).toBe(`${hash}\n`);
  });
});
