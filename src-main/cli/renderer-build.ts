// Builds the UI (dist/renderer, and in it the shareable-HTML template of `bundle`) when it is
// missing or older than any source it is built from, so `demo`, `serve`, `view`, `start`,
// `bundle` and the browser tests always show the current UI, on a fresh clone too.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { BUNDLE_TEMPLATE, buildBundleTemplate } from './bundle-build.ts';
import { repoRoot } from './repo-root.ts';

/** Where the desktop shell loads the UI from (beside dist/electron); fixed by its bundle. */
export const defaultRendererDist = join(repoRoot, 'dist/renderer');

/**
 * Where web mode builds and serves the UI: dist/renderer, or RLM_STUDIO_UI_DIR (a read-only
 * checkout can build elsewhere; the tests build into a temporary folder).
 */
export const rendererDist = process.env['RLM_STUDIO_UI_DIR'] ? resolve(process.env['RLM_STUDIO_UI_DIR']) : defaultRendererDist;

/** Everything the build reads: a change to any of them makes the built UI stale. */
export const rendererSources: readonly string[] = [
  'src-renderer',
  'src-shared',
  'vite.config.ts',
  'package-lock.json',
  'vite.bundle.config.ts',
  'src-main/cli/bundle-build.ts',
].map((p) => join(repoRoot, p));

export function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  let t = 0;
  for (const n of readdirSync(path)) t = Math.max(t, newestMtime(join(path, n)));
  return t;
}

/** Where a build records the switches it was built with. */
const FLAGS_FILE = 'build-flags.json';

/** The build-time switches of this process's environment (the tests' build exposes console handles to them). */
function buildFlags(): string {
  return JSON.stringify({ testHandles: process.env['RLM_STUDIO_TEST_HANDLES'] === '1' });
}

/** Records in a built folder the switches this environment builds with. */
export function writeBuildFlags(dist: string): void {
  writeFileSync(join(dist, FLAGS_FILE), buildFlags());
}

function builtWith(dist: string): string | null {
  try {
    return readFileSync(join(dist, FLAGS_FILE), 'utf8');
  } catch {
    return null;
  }
}

/**
 * True when `dist` has no index.html or bundle template, an index.html older than the newest
 * file under `sources`, or was built with other switches than this environment asks for.
 */
export function rendererIsStale(dist: string = rendererDist, sources: readonly string[] = rendererSources): boolean {
  const index = join(dist, 'index.html');
  const built = existsSync(index) && existsSync(join(dist, BUNDLE_TEMPLATE)) ? statSync(index).mtimeMs : 0;
  return built < Math.max(...sources.map(newestMtime)) || builtWith(dist) !== buildFlags();
}

const LOCK_STALE_MS = 5 * 60_000;
/** A holder writes its pid right after taking the lock: a lock without one for this long was left half-made. */
const LOCK_PIDLESS_MS = 10_000;
/** The file inside the lock that names its holder. */
const LOCK_OWNER = 'pid';

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function ageMs(path: string): number | null {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

function holderOf(lock: string): number | null {
  try {
    const pid = Number(readFileSync(join(lock, LOCK_OWNER), 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Why the lock at `lock` is left over from a process that is gone, or null while its holder may still be building. */
function staleBecause(lock: string): string | null {
  const age = ageMs(lock);
  if (age === null) return null;
  const pid = holderOf(lock);
  if (pid !== null && !isAlive(pid)) return `its holder (pid ${pid}) has ended`;
  if (pid === null && age > LOCK_PIDLESS_MS) return 'it names no holder';
  if (age > LOCK_STALE_MS) return `it is older than ${LOCK_STALE_MS / 60_000} minutes`;
  return null;
}

/** Build folders (`<dist>.new-PID`, `<dist>.old-PID`) of processes that ended before moving them. */
function removeLeftovers(dist: string): void {
  const dir = dirname(dist);
  const prefix = `${basename(dist)}.`;
  for (const name of readdirSync(dir)) {
    const m = name.startsWith(prefix) ? /^(?:new|old)-(\d+)$/.exec(name.slice(prefix.length)) : null;
    if (m && Number(m[1]) !== process.pid && !isAlive(Number(m[1]))) rmSync(join(dir, name), { recursive: true, force: true });
  }
}

/**
 * Takes `<dist>.lock` (a directory: mkdir is atomic), so commands started together (the
 * tests, two terminals) build once and the others wait, saying so; returns its release. The
 * lock names its holder: one whose holder has ended (a build interrupted by Ctrl-C, a killed
 * process) is taken over at once, and any lock after a build's longest time.
 */
export function acquireBuildLock(dist: string): () => void {
  const lock = `${dist}.lock`;
  mkdirSync(dirname(dist), { recursive: true });
  const giveUp = Date.now() + LOCK_STALE_MS;
  let said = false;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, LOCK_OWNER), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const stale = staleBecause(lock);
      if (stale !== null) {
        // Checked again just before: another waiter may have taken it over in between.
        if (staleBecause(lock) !== null) {
          rmSync(lock, { recursive: true, force: true });
          process.stderr.write(`rlm-studio: took over ${lock}: ${stale}\n`);
        }
      } else if (Date.now() > giveUp) {
        throw new Error(`another build has held ${lock} for too long; remove it if no build is running`, { cause: err });
      } else {
        if (!said) {
          const pid = holderOf(lock);
          process.stderr.write(`rlm-studio: waiting for another build of ${dist}${pid === null ? '' : ` (pid ${pid})`} to finish\n`);
          said = true;
        }
        sleepSync(200);
      }
    }
  }
  removeLeftovers(dist);
  return () => rmSync(lock, { recursive: true, force: true });
}

function withBuildLock(dist: string, fn: () => void): void {
  const release = acquireBuildLock(dist);
  try {
    fn();
  } finally {
    release();
  }
}

/**
 * Runs `vite build` for `dist` when it is stale. The build goes to a folder beside it that then
 * replaces it, so a server never sees a half-written UI. Vite's stdout is dropped: the commands
 * print their address there, and scripts read it; warnings still reach stderr.
 */
export function ensureRendererBuilt(dist: string = rendererDist): void {
  if (!rendererIsStale(dist)) return;
  withBuildLock(dist, () => {
    if (!rendererIsStale(dist)) return; // built by the process we waited for
    process.stderr.write(`rlm-studio: building the UI into ${dist} (it is missing or older than its sources)\n`);
    const fresh = `${dist}.new-${process.pid}`;
    try {
      execFileSync(
        process.execPath,
        [join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn', '--outDir', fresh, '--emptyOutDir'],
        {
          cwd: repoRoot,
          // Vitest runs this with NODE_ENV=test, which would make Vite build React's development bundle.
          env: { ...process.env, NODE_ENV: 'production' },
          stdio: ['ignore', 'ignore', 'inherit'],
        },
      );
      buildBundleTemplate(join(fresh, BUNDLE_TEMPLATE));
      writeBuildFlags(fresh);
    } catch {
      rmSync(fresh, { recursive: true, force: true });
      throw new Error(`could not build the UI into ${dist}: vite build failed (its errors are above)`);
    }
    const old = `${dist}.old-${process.pid}`;
    if (existsSync(dist)) renameSync(dist, old);
    renameSync(fresh, dist);
    rmSync(old, { recursive: true, force: true });
  });
}
