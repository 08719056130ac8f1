// Bundles the desktop shell's four entry points to JavaScript in dist/electron, so Electron
// never depends on Node's TypeScript stripping (which Electron's Node may lack, and which
// cannot read from an asar archive): the main process, the preload (CommonJS: sandboxed
// preloads cannot import), the host process and the session worker (both started as
// utility processes). Everything is bundled but Electron itself and isolated-vm, a native
// addon loaded from node_modules (unpacked from the asar by electron-builder); the Python
// REPL's runtime.py is copied beside the bundles and Pyodide's files are read from node_modules.
// Run: node src-main/cli/electron-build.ts (`rlm-studio start` and `npm run build:electron` do).
import { copyFileSync, mkdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';
import { build } from 'rolldown';

export const repoRoot = resolve(import.meta.dirname, '../..');
export const electronDist = join(repoRoot, 'dist/electron');

/** What the bundles may import at run time; anything else must be inside them. */
export const RUNTIME_EXTERNALS: readonly string[] = ['electron', 'isolated-vm'];

const ENTRIES = [
  { src: 'src-main/electron/main.ts', out: 'main.mjs', format: 'esm' },
  { src: 'src-main/electron/preload.ts', out: 'preload.cjs', format: 'cjs' },
  { src: 'src-main/transport/host-process.ts', out: 'host-process.mjs', format: 'esm' },
  { src: 'src-main/host/worker.ts', out: 'worker.mjs', format: 'esm' },
] as const;

function isExternal(id: string): boolean {
  if (id.startsWith('node:') || builtinModules.includes(id)) return true;
  return RUNTIME_EXTERNALS.some((e) => id === e || id.startsWith(`${e}/`));
}

/** Builds every entry into `outDir` (default dist/electron); returns the files written. */
export async function buildElectron(outDir: string = electronDist): Promise<string[]> {
  const files: string[] = [];
  for (const e of ENTRIES) {
    const file = join(outDir, e.out);
    await build({
      input: join(repoRoot, e.src),
      platform: 'node',
      external: isExternal,
      logLevel: 'warn',
      write: true,
      output: { file, format: e.format, codeSplitting: false, sourcemap: true },
    });
    files.push(file);
  }
  // The Python REPL reads its Python half next to the module that loads it (the worker bundle).
  mkdirSync(outDir, { recursive: true });
  copyFileSync(join(repoRoot, 'src-main/sandbox/python/runtime.py'), join(outDir, 'runtime.py'));
  return files;
}

if (import.meta.main) {
  const files = await buildElectron(process.argv[2] ? resolve(process.argv[2]) : electronDist);
  process.stdout.write(`built ${files.length} files in ${resolve(files[0] ?? '', '..')}\n`);
}
