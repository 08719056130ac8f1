// Bundles the desktop shell's five entry points to JavaScript in dist/electron, so nothing
// depends on Node's TypeScript stripping (which cannot read from an asar archive): the main
// process, the preload (CommonJS: sandboxed preloads cannot import), the host process and
// the session worker (both run by the project's own Node 24, see
// src-main/electron/session-runtime.ts). Everything is bundled but Electron itself and
// isolated-vm, a native addon loaded from node_modules (unpacked from the asar by
// electron-builder); the Python REPL's runtime.py is copied beside the bundles and Pyodide's
// files are read from node_modules.
// For a package (`npm run build:electron`, i.e. `--package`), the Node running this build
// (Node 24, as bin/ provisions it) is also staged into dist/node, which electron-builder.yml
// ships as resources/node. `rlm-studio start` needs no copy: it hands the shell its own Node.
import { copyFileSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'rolldown';

export const repoRoot = resolve(import.meta.dirname, '../..');
export const electronDist = join(repoRoot, 'dist/electron');
const nodeDist = join(repoRoot, 'dist/node');
const NODE_MAJOR = 24;

/** What the bundles may import at run time; anything else must be inside them. */
export const RUNTIME_EXTERNALS: readonly string[] = ['electron', 'isolated-vm'];

const ENTRIES = [
  { src: 'src-main/electron/main.ts', out: 'main.mjs', format: 'esm' },
  { src: 'src-main/electron/preload.ts', out: 'preload.cjs', format: 'cjs' },
  { src: 'src-main/transport/host-process.ts', out: 'host-process.mjs', format: 'esm' },
  { src: 'src-main/host/worker.ts', out: 'worker.mjs', format: 'esm' },
  { src: 'src-main/host/analysis-thread.ts', out: 'analysis-thread.mjs', format: 'esm' },
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

/**
 * Copies this Node (and its licence) into `outDir` as electron-builder.yml expects it
 * (bin/node, or node.exe on Windows); returns the binary's path. Skipped when the copy is
 * already there and up to date.
 */
export function stageNodeRuntime(outDir: string = nodeDist, node: string = process.execPath): string {
  const major = Number(process.versions.node.split('.')[0]);
  if (node === process.execPath && major !== NODE_MAJOR)
    throw new Error(
      `the packaged app ships the Node that builds it, and this is Node ${process.versions.node}, not ${NODE_MAJOR}: build with ./bin/ or npm from this repository`,
    );
  const target = process.platform === 'win32' ? join(outDir, 'node.exe') : join(outDir, 'bin', 'node');
  const src = statSync(node);
  const fresh = existsSync(target) && statSync(target).size === src.size && statSync(target).mtimeMs >= src.mtimeMs;
  if (!fresh) {
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(node, target);
  }
  // Node's own distribution keeps LICENSE one level above bin/.
  const licence = join(dirname(node), '..', 'LICENSE');
  if (existsSync(licence)) copyFileSync(licence, join(outDir, 'LICENSE'));
  return target;
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({ options: { package: { type: 'boolean' } }, allowPositionals: true });
  const files = await buildElectron(positionals[0] ? resolve(positionals[0]) : electronDist);
  process.stdout.write(`built ${files.length} files in ${resolve(files[0] ?? '', '..')}\n`);
  if (values.package) process.stdout.write(`staged ${stageNodeRuntime()} for the package (resources/node)\n`);
}
