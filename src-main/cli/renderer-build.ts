// Builds the UI (dist/renderer, and in it the shareable-HTML template) when it is missing
// or older than any source it is built from, so the demo, serve, `bundle` and the browser
// tests always show the current UI.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildBundleTemplate, bundleTemplatePath } from './bundle-build.ts';

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
  // The app's build empties dist/renderer: the template is built after it, so the older of the two is when the UI was built.
  const built = existsSync(index) && existsSync(bundleTemplatePath) ? Math.min(statSync(index).mtimeMs, statSync(bundleTemplatePath).mtimeMs) : 0;
  const configs = ['vite.config.ts', 'vite.bundle.config.ts', 'src-main/cli/bundle-build.ts'].map((f) => statSync(join(repoRoot, f)).mtimeMs);
  const src = Math.max(newest(join(repoRoot, 'src-renderer')), newest(join(repoRoot, 'src-shared')), ...configs);
  return built < src;
}

/** Runs `vite build` (the app, then the bundle template) when needed; `quiet` keeps Vite's output off the terminal. */
export function ensureRendererBuilt(quiet = false): void {
  if (!rendererIsStale()) return;
  execFileSync(process.execPath, [join(repoRoot, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], {
    cwd: repoRoot,
    // Vitest runs this with NODE_ENV=test, which would make Vite build React's development bundle.
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: quiet ? ['ignore', 'ignore', 'inherit'] : 'inherit',
  });
  buildBundleTemplate(quiet);
}
