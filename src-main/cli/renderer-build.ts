// Builds the UI (dist/renderer) when it is missing or older than any source it is built
// from, so the demo, serve and the browser tests always show the current UI.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(import.meta.dirname, '../..');
export const rendererDist = join(repoRoot, 'dist/renderer');

function newest(dir: string): number {
  let t = 0;
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    const s = statSync(p);
    t = Math.max(t, s.isDirectory() ? newest(p) : s.mtimeMs);
  }
  return t;
}

export function rendererIsStale(): boolean {
  const index = join(rendererDist, 'index.html');
  const built = existsSync(index) ? statSync(index).mtimeMs : 0;
  const src = Math.max(newest(join(repoRoot, 'src-renderer')), newest(join(repoRoot, 'src-shared')), statSync(join(repoRoot, 'vite.config.ts')).mtimeMs);
  return built < src;
}

/** Runs `vite build` when needed; `quiet` keeps Vite's output off the terminal. */
export function ensureRendererBuilt(quiet = false): void {
  if (!rendererIsStale()) return;
  execFileSync(process.execPath, [join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], {
    cwd: repoRoot,
    stdio: quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit',
  });
}
