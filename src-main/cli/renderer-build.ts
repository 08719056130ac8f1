// Builds the UI (dist/renderer) when it is missing or older than any source it is built
// from, so `demo`, `serve`, `view`, `start` and the browser tests always show the current UI,
// on a fresh clone too.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');

/** Where the desktop shell loads the UI from (beside dist/electron); fixed by its bundle. */
export const defaultRendererDist = join(repoRoot, 'dist/renderer');

/**
 * Where web mode builds and serves the UI: dist/renderer, or RLM_STUDIO_UI_DIR (a read-only
 * checkout can build elsewhere; the tests build into a temporary folder).
 */
export const rendererDist = process.env['RLM_STUDIO_UI_DIR'] ? resolve(process.env['RLM_STUDIO_UI_DIR']) : defaultRendererDist;

/** Everything the build reads: a change to any of them makes the built UI stale. */
export const rendererSources: readonly string[] = ['src-renderer', 'src-shared', 'vite.config.ts', 'package-lock.json'].map((p) => join(repoRoot, p));

function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  let t = 0;
  for (const n of readdirSync(path)) t = Math.max(t, newest(join(path, n)));
  return t;
}

/** True when `dist` has no index.html, or one older than the newest file under `sources`. */
export function rendererIsStale(dist: string = rendererDist, sources: readonly string[] = rendererSources): boolean {
  const index = join(dist, 'index.html');
  const built = existsSync(index) ? statSync(index).mtimeMs : 0;
  return built < Math.max(...sources.map(newest));
}

/**
 * Runs `vite build` into `dist` when it is stale (emptying it first). Vite's stdout is dropped:
 * the commands print their address there, and scripts read it; warnings still reach stderr.
 */
export function ensureRendererBuilt(dist: string = rendererDist): void {
  if (!rendererIsStale(dist)) return;
  process.stderr.write(`rlm-studio: building the UI into ${dist} (it is missing or older than its sources)\n`);
  try {
    execFileSync(process.execPath, [join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn', '--outDir', dist, '--emptyOutDir'], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  } catch {
    throw new Error(`could not build the UI into ${dist}: vite build failed (its errors are above)`);
  }
}
