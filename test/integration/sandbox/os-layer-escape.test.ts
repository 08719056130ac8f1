// The escape battery of the OS layer around the JavaScript and Pyodide REPLs (the sandbox
// process inside bubblewrap: os-sandbox/node-sandbox.ts). Two parts: the REPLs themselves, run
// in a sandbox process, probing for the network, host files, the host's environment and
// processes; and, standing for code that got out of its isolate, a Node program with every Node
// API started in the same OS sandbox. The asserts check the host (no connection received, no
// file written, no secret read, no process started), not only what the code printed.
import { existsSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxProcess } from '../../../src-main/engine/sandbox-process/sandbox-process.ts';
import { replCacheDir } from '../../../src-main/sandbox/cache-dir.ts';
import { osSandboxSupport } from '../../../src-main/sandbox/os-sandbox/bwrap.ts';
import { OS_SANDBOX_SWITCH, spawnNodeSandboxed } from '../../../src-main/sandbox/os-sandbox/node-sandbox.ts';
import { withHugePageMalloc } from '../../../src-main/sandbox/huge-pages.ts';
import { sandboxEnvironment } from '../../../src-main/sandbox/sandbox-env.ts';
import type { Repl } from '../../../src-main/sandbox/types.ts';
import { fakeBridge, SITE } from './helpers.ts';
import { LoopbackListeners } from '../../support/loopback-listeners.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const PROBE = join(import.meta.dirname, 'fixtures/os-probe.mjs');
const secret = `canary-${process.pid}-${Date.now()}`;
const marker = join(tmpdir(), `rlm-os-escape-${process.pid}`);
const homeMarker = join(homedir(), `.rlm-os-escape-${process.pid}`);
const repoMarker = join(REPO, 'src-main', `rlm-os-escape-${process.pid}`);
const cacheMarker = join(replCacheDir(), `rlm-os-escape-${process.pid}`);
const shadowBefore = existsSync('/etc/shadow') ? statSync('/etc/shadow').mtimeMs : null;
const HOST_PATHS = [
  join(homedir(), '.bashrc'),
  join(REPO, '.git'),
  join(REPO, 'bench'),
  join(REPO, 'docs'),
  import.meta.filename,
  '/etc/passwd',
  '/etc/shadow',
];
/** Folders whose listing inside holds at most the way to what is bound (the REPLs' cache may sit in the home folder). */
const LISTED = [homedir(), '/root', '/home', REPO];
const listeners = new LoopbackListeners();

const bwrap = osSandboxSupport().ok;

function thpMode(): string {
  try {
    return readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8');
  } catch {
    return '';
  }
}

beforeAll(async () => {
  // Set before any sandbox process starts: none of it may reach one.
  process.env.RLM_ESCAPE_CANARY = secret;
  process.env.OPENAI_API_KEY = secret;
  await listeners.listen();
});
afterAll(() => {
  delete process.env.RLM_ESCAPE_CANARY;
  delete process.env.OPENAI_API_KEY;
  listeners.close();
  for (const f of [marker, homeMarker, repoMarker, cacheMarker]) rmSync(f, { force: true });
});

function hostUntouched(): void {
  expect(listeners.requests).toBe(0);
  expect(listeners.connections).toBe(0);
  for (const f of [marker, homeMarker, repoMarker, cacheMarker]) expect(existsSync(f)).toBe(false);
  if (shadowBefore !== null) expect(statSync('/etc/shadow').mtimeMs).toBe(shadowBefore);
}

interface ProbeResult {
  error?: string;
  uid: number;
  pid: number;
  tcp: string;
  http: string;
  exists: Record<string, boolean>;
  listings: Record<string, string[] | null>;
  writes: Record<string, string>;
  env: Record<string, string>;
  procs: string[];
  environs: Record<string, { ok: boolean; value?: string }>;
  ppidEnviron: { ok: boolean; value?: string };
  signal: string;
  spawnSync: string;
  bomb: { started: number; refused: number };
  bigFile: string;
  hugePagesKb: number;
  manyFiles: string;
}

describe.skipIf(!bwrap)('past the isolate: a Node program with every API, in the OS sandbox of the sandbox process', () => {
  let got: ProbeResult;
  beforeAll(async () => {
    const { child } = spawnNodeSandboxed({
      entry: PROBE,
      execArgv: [],
      env: withHugePageMalloc(sandboxEnvironment()),
      files: [PROBE],
      cache: replCacheDir(),
    });
    got = await new Promise<ProbeResult>((done, fail) => {
      child.once('message', (m) => done(m as ProbeResult));
      child.once('exit', (code) => fail(new Error(`the probe exited (${code})`)));
      child.send({
        tcpPort: listeners.tcpPort,
        httpPort: listeners.httpPort,
        hostPid: process.pid,
        marker,
        hostPaths: HOST_PATHS,
        listPaths: LISTED,
        writePaths: [marker, homeMarker, repoMarker, cacheMarker, '/etc/shadow', join(REPO, 'package.json')],
      });
    });
    child.kill('SIGKILL');
    expect(got.error).toBeUndefined();
  }, 60_000);

  it('runs as nobody, pid 1 of its own namespace', () => {
    expect(got.uid).toBe(65534);
    expect(got.pid).toBe(1);
  });

  it('reaches no loopback listener of the host, by TCP or HTTP', () => {
    expect(got.tcp).toBe('ECONNREFUSED');
    expect(got.http).toBe('ECONNREFUSED');
    expect(listeners.requests).toBe(0);
    expect(listeners.connections).toBe(0);
  });

  it('sees no home folder, no repository beyond its code, no /etc/passwd or /etc/shadow', () => {
    for (const path of HOST_PATHS) expect([path, got.exists[path]]).toEqual([path, false]);
    // Only the way to the bound paths: the project's code and packages, the REPLs' cache, this probe.
    const bound = [
      replCacheDir(),
      PROBE,
      realpathSync(process.execPath),
      ...['package.json', 'node_modules', 'src-main', 'src-shared', 'dist'].map((p) => join(REPO, p)),
    ];
    for (const dir of LISTED) {
      const allowed = new Set(bound.filter((b) => b.startsWith(`${dir}/`)).map((b) => b.slice(dir.length + 1).split('/')[0]));
      for (const name of got.listings[dir] ?? []) expect([dir, name, allowed.has(name)]).toEqual([dir, name, true]);
    }
  });

  it('writes nothing on the host: not /tmp, home, the repository, the cache, /etc/shadow', () => {
    // The private /tmp takes the file; everything else is read-only or absent.
    expect(got.writes[marker]).toBe('wrote');
    for (const path of [homeMarker, repoMarker, cacheMarker, '/etc/shadow', join(REPO, 'package.json')])
      expect([path, got.writes[path]]).toEqual([path, expect.stringMatching(/^(EROFS|ENOENT|EACCES|EPERM)$/)]);
    expect(readFileSync(join(REPO, 'package.json'), 'utf8')).not.toContain('escaped');
    hostUntouched();
  });

  it('reads none of the host environment: its own, /proc/1/environ, its parent’s', () => {
    expect(JSON.stringify(got.env)).not.toContain(secret);
    expect(got.env.OPENAI_API_KEY).toBeUndefined();
    expect(got.procs).toEqual(['1']);
    expect(JSON.stringify(got.environs)).not.toContain(secret);
    // Its parent is outside its namespace: there is no such process to read.
    expect(got.ppidEnviron.ok).toBe(false);
  });

  it('cannot signal a host process', () => {
    expect(got.signal).toBe('ESRCH');
  });

  it('starts no subprocess, and a fork bomb starts nothing', () => {
    expect(got.spawnSync).toBe('EPERM');
    expect(got.bomb.started).toBe(0);
    expect(existsSync(marker)).toBe(false);
  });

  // glibc's malloc reads the kernel's settings before asking for huge pages: without them bound
  // inside, a 1 GB context loaded several times slower (huge-pages.ts).
  it.skipIf(!/\[(madvise|always)\]/.test(thpMode()))('backs fresh buffers with huge pages, as outside', () => {
    expect(got.hugePagesKb).toBeGreaterThanOrEqual(32 * 1024);
  });

  it('is held by its resource limits: file size, open files', () => {
    expect(got.bigFile).toMatch(/^(EFBIG|ENOSPC)$/);
    expect(got.manyFiles).toBe('EMFILE');
  });
});

const LANGUAGES = [
  { language: 'javascript' as const, timeout: 60_000 },
  { language: 'python' as const, timeout: 180_000 },
];

describe.skipIf(!bwrap).each(LANGUAGES)('the $language REPL in the OS-sandboxed sandbox process', ({ language, timeout }) => {
  let sandbox: SandboxProcess;
  let repl: Repl;
  beforeAll(async () => {
    expect(process.env[OS_SANDBOX_SWITCH]).toBeUndefined();
    sandbox = new SandboxProcess();
    repl = await sandbox.replFactory(language)({ bridge: fakeBridge() });
    await repl.addContext(0, 'context');
  }, timeout);
  afterAll(() => {
    repl.dispose();
    sandbox.close();
  });

  async function run(js: string, py: string): Promise<string> {
    const r = await repl.execute(language === 'javascript' ? js : py, SITE);
    return r.error ? `${r.stdout}!${r.error.name}: ${r.error.message}` : r.stdout;
  }

  it('records the OS layers', () => {
    expect(sandbox.layers).toEqual(['isolate', 'memory-limit', 'rlimits', 'seccomp', 'bwrap', 'scrubbed-env']);
  });

  it('reaches no loopback listener', async () => {
    const out = await run(
      `print([typeof fetch, typeof WebSocket, typeof XMLHttpRequest, typeof require].join(","))
       try { await import("node:net"); print("imported") } catch (e) { print("refused") }`,
      [
        'import socket',
        'seen = []',
        `for port in (${listeners.tcpPort}, ${listeners.httpPort}):`,
        '    try:',
        '        s = socket.create_connection(("127.0.0.1", port), timeout=1)',
        '        seen.append("connected")',
        '    except Exception as e:',
        '        seen.append(type(e).__name__)',
        'try:',
        '    import pyodide.http',
        `    pyodide.http.open_url("http://127.0.0.1:${listeners.httpPort}/")`,
        '    seen.append("fetched")',
        'except Exception as e:',
        '    seen.append(type(e).__name__)',
        'print(seen)',
      ].join('\n'),
    );
    expect(out).not.toMatch(/connected|fetched|imported/);
    expect(listeners.requests).toBe(0);
    expect(listeners.connections).toBe(0);
  });

  it('sees no host file and writes none', async () => {
    const paths = JSON.stringify([...HOST_PATHS, homedir(), marker]);
    const out = await run(
      `try { await import("node:fs"); print("imported") } catch (e) { print("refused") }
       print(typeof Deno, typeof Bun, typeof process)`,
      [
        'import os',
        `for p in ${paths}:`,
        '    print(p, os.path.exists(p))',
        `for p in (${JSON.stringify(marker)}, ${JSON.stringify(homeMarker)}, "/etc/shadow"):`,
        '    try:',
        '        os.makedirs(os.path.dirname(p), exist_ok=True)',
        '        open(p, "a").write("escaped")',
        '    except OSError:',
        '        pass',
      ].join('\n'),
    );
    expect(out).not.toContain('imported');
    if (language === 'python') for (const p of [...HOST_PATHS, homedir(), marker]) expect(out).toContain(`${p} False\n`);
    // What Pyodide wrote went to its own in-memory file system.
    hostUntouched();
  });

  it('reads none of the host environment, not through /proc', async () => {
    const out = await run(
      `print(typeof process, typeof Deno)
       print(Object.keys(globalThis).join(","))`,
      [
        'import os',
        'print(dict(os.environ))',
        'for p in ("/proc/1/environ", "/proc/self/environ", f"/proc/{os.getppid()}/environ"):',
        '    try:',
        '        print(p, open(p, "rb").read())',
        '    except OSError as e:',
        '        print(p, type(e).__name__)',
      ].join('\n'),
    );
    expect(out).not.toContain(secret);
    expect(out).not.toContain('OPENAI_API_KEY');
  });

  it('starts no subprocess, and a fork bomb starts nothing', async () => {
    const out = await run(
      `try { await import("node:child_process"); print("imported") } catch (e) { print("refused") }
       print(typeof process)`,
      [
        'import os, subprocess',
        'made = 0',
        'for _ in range(200):',
        '    try:',
        '        os.fork()',
        '        made += 1',
        '    except Exception:',
        '        pass',
        'try:',
        `    subprocess.run(["/bin/sh", "-c", "touch ${marker}"])`,
        '    made += 1',
        'except Exception:',
        '    pass',
        `print("made", made, os.system("touch ${marker}"))`,
      ].join('\n'),
    );
    expect(out).not.toContain('imported');
    if (language === 'python') expect(out).toMatch(/^made 0 -?\d+\n$/);
    expect(existsSync(marker)).toBe(false);
    expect(await run('print(context)', 'print(context)')).toBe('context\n');
  });
});
