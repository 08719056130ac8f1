// The packaged app's layout as electron-builder itself makes it (issue 16), where Electron
// cannot be downloaded: electron-builder runs with the project's electron-builder.yml (loaded
// as it is, a few settings laid over it) for a Linux `dir` target, from a folder holding the
// bundles, the UI, the staged Node and a link to the checkout's node_modules, with a stand-in
// for Electron (`electronDist`: a folder whose `electron` is a placeholder script, which
// electron-builder copies and renames as it would the real binary). The fuses are switched
// off for this build (`electronFuses: null`): flipping them patches a sentinel inside the real
// Electron binary, which the stand-in lacks, so the fuses themselves are not checked here.
// What must hold: app.asar has what Electron loads; what plain Node runs or reads is unpacked
// beside it; resources/node is the shipped Node 24; and session-runtime.ts, told what a
// packaged app knows, finds them, so that the host started as main.ts starts it runs a
// JavaScript block in a session worker whose isolated-vm comes from app.asar.unpacked.
import { execFile } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildElectron, repoRoot, stageNodeRuntime } from '../../../src-main/cli/electron-build.ts';
import { ensureRendererBuilt, rendererDist } from '../../../src-main/cli/renderer-build.ts';
import { bundledNodePath, sessionRuntime } from '../../../src-main/electron/session-runtime.ts';
import { RemoteHost } from '../../../src-main/transport/remote-host.ts';
import type { BlockEndEvent, TrajectoryEvent } from '../../../src-shared/events.ts';
import { connectInProcess, tempDirs } from './helpers.ts';

/** What this test uses of @electron/asar (electron-builder's own archive library). */
interface Asar {
  listPackage(archive: string, options: { isPack: boolean }): string[];
  statFile(archive: string, filename: string): { unpacked?: boolean };
  extractFile(archive: string, filename: string): Buffer;
}

// The checkout's packages, resolved as its own modules resolve them.
const require = createRequire(join(repoRoot, 'package.json'));

/** A devDependency's entry; not installed is a failure that says what to do, never a skip. */
function installed(name: string, resolve: () => string): string {
  try {
    return resolve();
  } catch {
    throw new Error(
      `${name} is not installed: it is a devDependency of this repository (this test packages the app with it). Run \`npm install\` in ${repoRoot}.`,
    );
  }
}

// electron-builder's programmatic build(), in a child Node so its log is kept for a failure.
const BUILD_SCRIPT = 'require(process.argv[1]).build(JSON.parse(process.argv[2])).catch((e) => { console.error(e); process.exit(1); });';

let root = '';
let resources = '';
let appDir = '';
let asar: Asar;
const archive = (): string => join(resources, 'app.asar');

/**
 * Runs electron-builder for a Linux `dir` target into `out`; returns the packaged app's folder
 * (out/linux-unpacked, or linux-ARCH-unpacked).
 */
async function packageApp(builder: string, project: string, standIn: string, out: string): Promise<string> {
  const options = {
    projectDir: project,
    linux: ['dir'],
    publish: 'never',
    config: {
      // A path here is the configuration file; what follows is laid over it.
      extends: join(repoRoot, 'electron-builder.yml'),
      electronDist: standIn,
      electronFuses: null,
      directories: { output: out },
    },
  };
  try {
    await promisify(execFile)(process.execPath, ['-e', BUILD_SCRIPT, builder, JSON.stringify(options)], {
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        // Which production packages go in: the project has no lockfile, so electron-builder
        // picks its collector from this, and 'traversal' walks package.json dependencies on
        // disk. Its npm collector (`npm ls`) cannot see through the linked node_modules: from
        // here every package in it looks extraneous and their own dependencies missing.
        npm_config_user_agent: 'traversal',
      },
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
    throw new Error(`electron-builder failed:\n${stdout}\n${stderr}`, { cause: err });
  }
  const unpacked = readdirSync(out).filter((n) => /^linux(-\w+)?-unpacked$/.test(n));
  if (unpacked.length !== 1) throw new Error(`expected one linux-*-unpacked folder in ${out}, found ${readdirSync(out).join(', ')}`);
  return join(out, unpacked[0]!);
}

/** Pids of processes that have a file under `dir` mapped (a loaded native addon). */
function processesMapping(dir: string): number[] {
  const pids: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/maps`, 'utf8').includes(dir)) pids.push(Number(d));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}

describe.runIf(process.platform === 'linux')('the packaged layout, built by electron-builder with a stand-in for Electron', () => {
  beforeAll(async () => {
    const builder = installed('electron-builder', () => require.resolve('electron-builder'));
    asar = require(installed('@electron/asar', () => require.resolve('@electron/asar'))) as Asar;
    root = mkdtempSync(join(tmpdir(), 'rlm-packaged-'));
    // The project as `npm run build:renderer && npm run build:electron` leave it, in a folder
    // of its own: the checkout's package.json, a link to its node_modules, the built dist/.
    const project = join(root, 'project');
    mkdirSync(project);
    cpSync(join(repoRoot, 'package.json'), join(project, 'package.json'));
    symlinkSync(join(repoRoot, 'node_modules'), join(project, 'node_modules'), 'dir');
    await buildElectron(join(project, 'dist/electron'));
    ensureRendererBuilt(rendererDist);
    cpSync(rendererDist, join(project, 'dist/renderer'), { recursive: true });
    stageNodeRuntime(join(project, 'dist/node'));
    const standIn = join(root, 'electron-stand-in');
    mkdirSync(standIn);
    writeFileSync(join(standIn, 'electron'), '#!/bin/sh\necho "a stand-in for Electron (packaged-layout.test.ts)" >&2\nexit 1\n');
    chmodSync(join(standIn, 'electron'), 0o755);

    appDir = await packageApp(builder, project, standIn, join(root, 'out'));
    resources = join(appDir, 'resources');
  }, 600_000);
  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('is electron-builder’s layout: the executable renamed from the stand-in, the app in resources/app.asar', () => {
    expect(readFileSync(join(appDir, 'rlm-studio'), 'utf8')).toContain('a stand-in for Electron');
    expect(statSync(archive()).isFile()).toBe(true);
    expect(existsSync(join(resources, 'app'))).toBe(false);
  });

  it('app.asar holds what Electron loads; what plain Node runs or reads is unpacked beside it', () => {
    const listed = new Set(asar.listPackage(archive(), { isPack: false }));
    const packed = ['package.json', 'dist/electron/main.mjs', 'dist/electron/preload.cjs', 'dist/renderer/index.html'];
    const unpacked = [
      'dist/electron/host-process.mjs',
      'dist/electron/worker.mjs',
      'dist/electron/analysis-thread.mjs',
      'dist/electron/runtime.py',
      'node_modules/isolated-vm/package.json',
      'node_modules/node-gyp-build/index.js',
      'node_modules/pyodide/pyodide.asm.wasm',
      'node_modules/pyodide/python_stdlib.zip',
    ];
    for (const f of [...packed, ...unpacked]) expect(listed, f).toContain(`/${f}`);
    // Of node_modules only what plain Node reads at run time: the bundles carry everything else.
    const packages = new Set([...listed].map((f) => /^\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f)?.[1]).filter((p) => p !== undefined));
    expect([...packages].sort()).toEqual(['isolated-vm', 'node-gyp-build', 'pyodide']);
    for (const f of packed) expect(asar.statFile(archive(), f).unpacked, f).toBeFalsy();
    for (const f of unpacked) {
      expect(asar.statFile(archive(), f).unpacked, f).toBe(true);
      expect(statSync(join(resources, 'app.asar.unpacked', f)).isFile(), f).toBe(true);
    }
    // The package.json electron-builder wrote names the bundled main process.
    const pkg = JSON.parse(asar.extractFile(archive(), 'package.json').toString('utf8')) as { main: string };
    expect(pkg.main).toBe('dist/electron/main.mjs');
    // isolated-vm's native addon for this platform, unpacked with it.
    const addons = readdirSync(join(resources, 'app.asar.unpacked/node_modules/isolated-vm'), { recursive: true, encoding: 'utf8' }).filter(
      (f) => f.endsWith('.node') && f.includes(`${process.platform}-${process.arch}`),
    );
    expect(addons.length).toBeGreaterThan(0);
  });

  it('ships the Node that built it in resources/node, executable', async () => {
    const node = bundledNodePath(resources, process.platform);
    expect(node).toBe(join(resources, 'node/bin/node'));
    expect(statSync(node).mode & 0o111).toBe(0o111);
    const { stdout } = await promisify(execFile)(node, ['--version']);
    expect(stdout.trim()).toBe(process.version);
  });

  it('session-runtime.ts finds the shipped Node and the unpacked bundles; the host it names runs a JavaScript block with isolated-vm from app.asar.unpacked', async () => {
    const rt = sessionRuntime({
      isPackaged: true,
      resourcesPath: resources,
      bundleDir: join(archive(), 'dist/electron'),
      appPath: archive(),
      env: {},
      platform: process.platform,
      arch: process.arch,
    });
    expect(rt).toEqual({
      node: join(resources, 'node/bin/node'),
      hostEntry: join(resources, 'app.asar.unpacked/dist/electron/host-process.mjs'),
      workerEntry: join(resources, 'app.asar.unpacked/dist/electron/worker.mjs'),
    });

    // As main.ts starts it (no keychain: nothing here stores keys).
    const host = new RemoteHost({ ...tempDirs(), demoLatencyMs: 5, execPath: rt.node, entry: rt.hostEntry, workerEntry: rt.workerEntry });
    const c = connectInProcess(host);
    try {
      await c.call('hello', { protocol: 1 });
      const { session } = await c.call('session.start', {
        params: { profile: 'demo', context: { kind: 'demo', name: 'recursive' }, query: null, repl: 'javascript' },
      });
      await c.call('subscribe', { sessionId: session.sessionId, fromSeq: 0 });
      const isBlockEnd = (e: TrajectoryEvent): e is BlockEndEvent => e.type === 'block.end';
      const seen = await c.until(
        () => {
          const block = c.events.get(session.sessionId)?.find(isBlockEnd);
          if (block) return { block, ended: null };
          const s = c.latest(session.sessionId);
          return s && ['finished', 'failed', 'cancelled'].includes(s.status) ? { block: null, ended: s } : null;
        },
        'the first REPL block to run',
        60_000,
      );
      expect(seen.block, JSON.stringify(seen.ended)).not.toBeNull();
      expect(seen.block?.error).toBeNull();

      expect(realpathSync(`/proc/${host.pid}/exe`)).toBe(realpathSync(rt.node));
      const ivm = join(resources, 'app.asar.unpacked/node_modules/isolated-vm/');
      const workers = processesMapping(ivm);
      expect(workers.length).toBeGreaterThan(0);
      for (const pid of workers) expect(realpathSync(`/proc/${pid}/exe`)).toBe(realpathSync(rt.node));
      expect(workers).not.toContain(host.pid);
    } finally {
      c.closeCarrier();
      await host.close();
    }
  }, 120_000);
});
