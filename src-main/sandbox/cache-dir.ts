// The folder the REPLs keep files in between processes (Pyodide's snapshots): RLM_STUDIO_CACHE,
// else the user's cache folder. Inside the OS sandbox the child is told the host's folder in
// RLM_STUDIO_CACHE and sees it read-only (os-sandbox/node-sandbox.ts).
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

export function replCacheDir(): string {
  const explicit = process.env.RLM_STUDIO_CACHE;
  if (explicit) return explicit;
  const xdg = process.env.XDG_CACHE_HOME;
  const home = homedir();
  return join(xdg || (home ? join(home, '.cache') : tmpdir()), 'rlm-studio');
}
