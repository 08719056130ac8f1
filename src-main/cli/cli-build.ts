// Bundles the command line into dist/cli, which bin/rlm-studio runs (with V8's compile
// cache): one ES module per entry plus shared chunks, so Node reads a few files instead of
// resolving, reading and type-stripping hundreds, and each command still loads only its own
// chunk (commands/index.ts imports them lazily, and so does the SDK's client). Entries: the
// CLI, the session worker that `serve`, `view` and `demo` fork (worker.mjs beside the
// bundle, see host/worker-launcher.ts), and the sandbox process of `run` (sandbox-child.mjs,
// see engine/sandbox-process/). Left outside: Node's built-ins, isolated-vm (a
// native addon), Pyodide (files read at run time), and the build tools some commands spawn.
// bin/rlm-studio builds it when it is missing or older than the sources (`isCliStale`);
// `node src-main/cli/cli-build.ts` builds it by hand.
import { copyFileSync, existsSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'rolldown';
import { builtinImportsAtRuntime, isBuiltin } from './builtin-imports.ts';
import { acquireBuildLock, newestMtime } from './renderer-build.ts';
import { repoRoot } from './repo-root.ts';

const cliDist = join(repoRoot, 'dist/cli');
/** Written last, with the time the build started: the bundle reflects the sources as of then. */
const STAMP = '.built';

/** Everything the bundle is built from (bin/rlm-studio checks the same with `find -newer`). */
const SOURCES = ['src-main', 'src-shared', 'package-lock.json'].map((p) => join(repoRoot, p));

const EXTERNAL = ['isolated-vm', 'pyodide', 'rolldown', 'vite', 'electron'];

function isExternal(id: string): boolean {
  if (isBuiltin(id)) return true;
  return EXTERNAL.some((e) => id === e || id.startsWith(`${e}/`));
}

/** True when `dist` has no finished build, or one older than a source. */
function isCliStale(dist: string = cliDist): boolean {
  const stamp = join(dist, STAMP);
  if (!existsSync(stamp)) return true;
  return statSync(stamp).mtimeMs < Math.max(...SOURCES.map(newestMtime));
}

/** Builds into a folder beside `dist` that then replaces it, so a running command never sees half a bundle. */
async function buildCli(dist: string = cliDist): Promise<void> {
  const started = new Date();
  const fresh = `${dist}.new-${process.pid}`;
  rmSync(fresh, { recursive: true, force: true });
  try {
    await build({
      input: {
        main: join(repoRoot, 'src-main/cli/main.ts'),
        worker: join(repoRoot, 'src-main/host/worker.ts'),
        'analysis-thread': join(repoRoot, 'src-main/host/analysis-thread.ts'),
        'sandbox-child': join(repoRoot, 'src-main/engine/sandbox-process/sandbox-child.ts'),
      },
      platform: 'node',
      external: isExternal,
      // One line for one line, so the source maps still point at the right lines.
      plugins: [{ name: 'builtin-imports-at-runtime', renderChunk: (code) => ({ code: builtinImportsAtRuntime(code), map: null }) }],
      logLevel: 'warn',
      write: true,
      // Flat: modules find files beside them (runtime.py, worker.mjs, analysis-thread.mjs) and the repository two levels up.
      output: { dir: fresh, format: 'esm', entryFileNames: '[name].mjs', chunkFileNames: '[name]-[hash].mjs', sourcemap: true },
    });
    // The Python REPL reads its Python half beside the module that loads it.
    copyFileSync(join(repoRoot, 'src-main/sandbox/python/runtime.py'), join(fresh, 'runtime.py'));
    writeFileSync(join(fresh, STAMP), '');
    utimesSync(join(fresh, STAMP), started, started);
  } catch (err) {
    rmSync(fresh, { recursive: true, force: true });
    throw err;
  }
  const old = `${dist}.old-${process.pid}`;
  if (existsSync(dist)) renameSync(dist, old);
  renameSync(fresh, dist);
  rmSync(old, { recursive: true, force: true });
}

/** Builds when stale, once for commands started together (the others wait); returns the bundled entry. */
export async function ensureCliBuilt(dist: string = cliDist): Promise<string> {
  if (isCliStale(dist)) {
    const release = acquireBuildLock(dist);
    try {
      if (isCliStale(dist)) {
        process.stderr.write(`rlm-studio: bundling the command line into ${dist} (it is missing or older than its sources)\n`);
        await buildCli(dist);
      }
    } finally {
      release();
    }
  }
  return join(dist, 'main.mjs');
}

if (import.meta.main) await ensureCliBuilt(process.argv[2] ? resolve(process.argv[2]) : cliDist);
