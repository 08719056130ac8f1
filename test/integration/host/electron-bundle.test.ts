// The desktop shell runs bundled JavaScript (dist/electron), never TypeScript. Electron
// cannot run here, so: build the bundles, check they parse, that they import nothing a
// packaged app would lack (only Node built-ins, electron, isolated-vm), and run the bundled
// host process and session worker for real under Node (desktop-shell.test.ts runs the main
// process too, with a double for Electron).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildElectron, repoRoot, RUNTIME_EXTERNALS } from '../../../src-main/cli/electron-build.ts';
import { RemoteHost } from '../../../src-main/transport/remote-host.ts';
import { connectInProcess, tempDirs } from './helpers.ts';

// Inside the repo, so the bundles resolve isolated-vm from node_modules as the app does.
const out = join(repoRoot, '.runtime', `electron-bundle-test-${process.pid}`);
let files: string[] = [];

/** Every module specifier a bundle loads: static imports, dynamic imports, require(). */
function specifiers(source: string): Set<string> {
  const found = new Set<string>();
  // Comments (bundled JSDoc says `import("./argument.js")`) are not imports.
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  for (const re of [
    /^\s*import\s+(?:[^'";]*?\s+from\s+)?["']([^"']+)["']/gm,
    /^\s*export\s+[^'";]*?\s+from\s+["']([^"']+)["']/gm,
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
    /\brequire\(\s*["']([^"']+)["']\s*\)/g,
  ]) {
    for (const m of code.matchAll(re)) found.add(m[1]!);
  }
  return found;
}

// A relative specifier left in a bundle is a pre-bundled package's own (jsonata ships as one
// browserify file whose modules call its private `require('./utils')`): rolldown fails the
// build on any relative import it cannot resolve, so none of ours survives it.
const allowed = (s: string): boolean =>
  s.startsWith('./') || s.startsWith('node:') || builtinModules.includes(s) || RUNTIME_EXTERNALS.includes(s);

describe('the bundled desktop shell (dist/electron)', () => {
  beforeAll(async () => {
    mkdirSync(out, { recursive: true });
    files = await buildElectron(out);
  });
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('builds main, preload, host process, worker and the analysis thread, and package.json main points at the bundled main', () => {
    expect(files.map((f) => f.slice(out.length + 1)).sort()).toEqual([
      'analysis-thread.mjs',
      'host-process.mjs',
      'main.mjs',
      'preload.cjs',
      'worker.mjs',
    ]);
    for (const f of files) expect(statSync(f).size).toBeGreaterThan(100);
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { main: string };
    expect(pkg.main).toBe('dist/electron/main.mjs');
    const builder = readFileSync(join(repoRoot, 'electron-builder.yml'), 'utf8');
    expect(builder).toMatch(/runAsNode: false/);
    // The shipped Node (staged into dist/node by build:electron) and what it runs, outside the asar.
    expect(builder).toMatch(/extraResources:\s*\n(\s*#.*\n)*\s*- from: dist\/node\s*\n\s*to: node\n/);
    const unpack = builder.slice(builder.indexOf('asarUnpack:'));
    for (const p of [
      'dist/electron/host-process.mjs',
      'dist/electron/worker.mjs',
      'dist/electron/analysis-thread.mjs',
      'dist/electron/runtime.py',
      'node_modules/isolated-vm/**',
    ])
      expect(unpack).toContain(`- ${p}\n`);
    // isolated-vm keeps its Node 24 binary: Electron never loads it.
    expect(builder).toMatch(/npmRebuild: false/);
  });

  it('every bundle parses (node --check)', () => {
    for (const f of files) execFileSync(process.execPath, ['--check', f]);
  });

  it('imports nothing but Node built-ins, electron and isolated-vm; the preload only electron', () => {
    for (const f of files) {
      const bad = [...specifiers(readFileSync(f, 'utf8'))].filter((s) => !allowed(s));
      expect(bad, f).toEqual([]);
    }
    expect([...specifiers(readFileSync(join(out, 'preload.cjs'), 'utf8'))]).toEqual(['electron']);
    // The main process starts the bundled host and workers, not their TypeScript sources.
    const main = readFileSync(join(out, 'main.mjs'), 'utf8');
    expect(main).toMatch(/"host-process\.mjs"/);
    expect(main).toMatch(/"worker\.mjs"/);
    expect(main).toMatch(/"preload\.cjs"/);
    const worker = readFileSync(join(out, 'worker.mjs'), 'utf8');
    expect(specifiers(worker).has('isolated-vm')).toBe(true);
    expect(specifiers(readFileSync(join(out, 'main.mjs'), 'utf8')).has('ws')).toBe(false);
  });

  it('the bundled host process and worker run a session end to end (under Node)', async () => {
    const host = new RemoteHost({
      ...tempDirs(),
      demoLatencyMs: 5,
      entry: join(out, 'host-process.mjs'),
      workerEntry: join(out, 'worker.mjs'),
    });
    const c = connectInProcess(host);
    try {
      await c.call('hello', { protocol: 1 });
      const { session } = await c.call('session.start', {
        params: { profile: 'demo', context: { kind: 'demo', name: 'recursive' }, query: null },
      });
      await c.call('subscribe', { sessionId: session.sessionId, fromSeq: 0 });
      const done = await c.status(session.sessionId, 'finished', 'failed', 'cancelled');
      expect(done.status, done.message ?? '').toBe('finished');
      expect(c.events.get(session.sessionId)?.some((e) => e.type === 'run.end')).toBe(true);
    } finally {
      c.closeCarrier();
      await host.close();
    }
  });
});
