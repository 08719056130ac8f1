// Builds and serves the reference library's web viewer (its `visualizer/`, a Next.js app) from
// a local copy of the library, for the side-by-side benchmark. Nothing of it enters this
// repository: it is copied into a cache folder keyed by its sources, installed there with its
// own lockfile (`npm ci`) and built with `next build` (production), once per source version.
//
// The machine has no network beyond the npm registry, and the viewer's layout loads two
// Google fonts at build time (`next/font/google`); those imports are replaced by the same
// CSS variables pointing at local fonts. That changes what the text looks like, not how a
// log is read or rendered.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** Where the reference's sources are: a work tree holding `visualizer/`, or a bare git mirror. */
export interface ReferenceSource {
  /** The folder holding `visualizer/package.json` (a copy of it, for a git mirror). */
  dir: string;
  /** A short name for its version (the commit, or a hash of the files). */
  version: string;
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): void {
  const r = spawnSync(cmd, args, { cwd, stdio: 'inherit', env });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) failed with exit code ${String(r.status)}`);
}

/** Resolves `path` (a checkout of the reference library, its `visualizer/` folder, or a bare git mirror) into sources. */
export function referenceSource(path: string, cache: string): ReferenceSource {
  if (existsSync(join(path, 'visualizer', 'package.json'))) return { dir: path, version: hashTree(join(path, 'visualizer')) };
  if (existsSync(join(path, 'package.json')) && existsSync(join(path, 'src', 'lib', 'parse-logs.ts')))
    return { dir: join(path, '..'), version: hashTree(path) };
  // A bare repository (e.g. a mirror): its HEAD's visualizer/, extracted once.
  const head = spawnSync('git', ['--git-dir', path, 'rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' });
  if (head.status !== 0)
    throw new Error(`${path}: neither a checkout of the reference library (no visualizer/package.json) nor a git repository`);
  const version = head.stdout.trim();
  const dir = join(cache, `reference-src-${version}`);
  if (!existsSync(join(dir, 'visualizer', 'package.json'))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const tar = spawnSync('sh', ['-c', `git --git-dir "${path}" archive HEAD visualizer | tar -x -C "${dir}"`], { stdio: 'inherit' });
    if (tar.status !== 0) throw new Error(`${path}: could not extract visualizer/ from HEAD`);
  }
  return { dir, version };
}

/** A hash of a folder's files (without node_modules and build output), to key the build cache. */
function hashTree(dir: string): string {
  const h = createHash('sha256');
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      if (name === 'node_modules' || name === '.next') continue;
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else h.update(p.slice(dir.length)).update(readFileSync(p));
    }
  };
  walk(dir);
  return h.digest('hex').slice(0, 12);
}

/** The layout without `next/font/google` (no network here): same CSS variables, local fonts. */
function withoutGoogleFonts(layout: string): string {
  if (!layout.includes('next/font/google')) return layout;
  return layout
    .replace(/import\s*\{[^}]*\}\s*from\s*["']next\/font\/google["'];?\n/, '')
    .replace(/const (\w+) = \w+\(\{[^}]*\}\);/g, (_m, name: string) => {
      const variable = name.toLowerCase().includes('mono') ? '--font-geist-mono' : '--font-geist-sans';
      return `const ${name} = { variable: "${variable.replace('--', 'local-')}" };`;
    })
    .replace(
      '<html',
      `<html style={{ ["--font-geist-sans" as string]: "system-ui, sans-serif", ["--font-geist-mono" as string]: "ui-monospace, monospace" }}`,
    );
}

/**
 * Builds the viewer (cached in `cache`): its own `npm ci` and `next build`. Returns the
 * folder to start it from.
 */
export function buildReferenceViewer(src: ReferenceSource, cache: string): string {
  const dir = join(cache, `reference-viewer-${src.version}`);
  if (existsSync(join(dir, '.next', 'BUILD_ID'))) return dir;
  mkdirSync(dir, { recursive: true });
  cpSync(join(src.dir, 'visualizer'), dir, {
    recursive: true,
    filter: (p) => !p.includes('node_modules') && !p.includes('.next'),
  });
  const layout = join(dir, 'src', 'app', 'layout.tsx');
  if (existsSync(layout)) writeFileSync(layout, withoutGoogleFonts(readFileSync(layout, 'utf8')));
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };
  if (!existsSync(join(dir, 'node_modules', 'next'))) run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], dir, env);
  run(join(dir, 'node_modules', '.bin', 'next'), ['build'], dir, env);
  return dir;
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => res(port));
    });
    s.on('error', rej);
  });
}

/** Starts the built viewer (`next start`) on a free local port. */
export async function startReferenceViewer(dir: string): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn(join(dir, 'node_modules', '.bin', 'next'), ['start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: dir,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = `http://127.0.0.1:${port}/`;
  await new Promise<void>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`the reference viewer did not start in 60 s:\n${out}`)), 60_000);
    const on = (b: Buffer): void => {
      out += b.toString();
      if (/Ready|started server|Local:/i.test(out)) {
        clearTimeout(timer);
        res();
      }
    };
    child.stdout?.on('data', on);
    child.stderr?.on('data', on);
    child.on('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`the reference viewer exited (${String(code)}):\n${out}`));
    });
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
