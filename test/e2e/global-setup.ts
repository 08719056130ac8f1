// Builds the renderer when dist/renderer is missing or older than any source it is built
// from, so `npm test` always drives the current UI.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

function newest(dir: string): number {
  let t = 0;
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    const s = statSync(p);
    t = Math.max(t, s.isDirectory() ? newest(p) : s.mtimeMs);
  }
  return t;
}

export default function setup(): void {
  const index = join(root, 'dist/renderer/index.html');
  const built = existsSync(index) ? statSync(index).mtimeMs : 0;
  const src = Math.max(newest(join(root, 'src-renderer')), newest(join(root, 'src-shared')), statSync(join(root, 'vite.config.ts')).mtimeMs);
  if (built >= src) return;
  execFileSync(process.execPath, [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
}
