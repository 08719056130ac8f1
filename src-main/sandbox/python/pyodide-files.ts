// Pyodide's files and the interpreter's saved memory snapshot, read from disk. Only the file
// system here, no isolated-vm: the command line starts these reads as soon as its arguments
// say a run will use Python, ~0.1 s before the command's own modules have loaded, and the
// interpreter (interpreter.ts) takes them when it starts. A run's first block waits for that
// interpreter, so reads started later are time the model's first reply no longer hides.
import { createHash } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { guardAllocations } from '../allocation-guard.ts';
import { replCacheDir } from '../cache-dir.ts';
import { bootPython } from './isolate-side.ts';

export interface PyodideFiles {
  version: string;
  wasmBytes: Buffer;
  stdlib: Buffer;
  lockFile: string;
  /** Pyodide's two ES modules, as the isolate evaluates them. */
  asmSource: string;
  loaderSource: string;
  runtimeSource: string;
  /** Identifies a snapshot's inputs: Pyodide's version, our runtime and our isolate code. */
  fingerprint: string;
}

/** The reads in flight: the files, and the snapshot an earlier process saved for them (null if none). */
export interface PyodideReads {
  files: Promise<PyodideFiles>;
  snapshot: Promise<Buffer | null>;
}

export const BOOT_SOURCE = String(bootPython);
/** Evaluated in the interpreter's isolate before BOOT_SOURCE runs (allocation-guard.ts). */
export const GUARD_SOURCE = String(guardAllocations);

let prefetched: PyodideReads | null = null;

/** Starts reading now; the next `takePyodideReads` gets these reads. */
export function prefetchPyodide(): void {
  prefetched ??= startReads();
}

/**
 * The prefetched reads, or new ones. Each set is handed out once: the buffers are moved into
 * the interpreter's copies, and nothing here keeps ~45 MB alive after that.
 */
export function takePyodideReads(): PyodideReads {
  const reads = prefetched ?? startReads();
  prefetched = null;
  return reads;
}

/**
 * The two small files that name the snapshot are read first, so that the snapshot (31 MB)
 * is read beside Pyodide's own files (13 MB) rather than after them.
 */
function startReads(): PyodideReads {
  const require = createRequire(import.meta.url);
  const dir = (async () => dirname(require.resolve('pyodide/package.json')))();
  const identity = (async () => {
    const [pkgText, runtimeSource] = await Promise.all([
      readFile(join(await dir, 'package.json'), 'utf8'),
      readFile(new URL('./runtime.py', import.meta.url), 'utf8'),
    ]);
    const version = (JSON.parse(pkgText) as { version: string }).version;
    return { version, runtimeSource, fingerprint: fingerprintOf(version, runtimeSource) };
  })();
  const snapshot = identity.then(
    (id) => readWhole(snapshotPath(id)).catch(() => null),
    () => null,
  );
  const files = (async (): Promise<PyodideFiles> => {
    const at = await dir;
    const [id, wasmBytes, stdlib, lockFile, asm, loader] = await Promise.all([
      identity,
      readWhole(join(at, 'pyodide.asm.wasm')),
      readWhole(join(at, 'python_stdlib.zip')),
      readFile(join(at, 'pyodide-lock.json'), 'utf8'),
      readWhole(join(at, 'pyodide.asm.mjs')),
      readFile(join(at, 'pyodide.mjs'), 'utf8'),
    ]);
    // The isolate has no import.meta; the loader only uses it to find its own folder.
    const moduleSource = (text: string, file: string): string =>
      text.replaceAll('import.meta.url', JSON.stringify(`file:///pyodide/${file}`));
    return {
      ...id,
      wasmBytes,
      stdlib,
      lockFile,
      asmSource: moduleSource(asm.toString('utf8'), 'pyodide.asm.mjs'),
      loaderSource: moduleSource(loader, 'pyodide.mjs'),
    };
  })();
  // Whoever takes them handles a failure; a prefetch nobody takes must not be an unhandled rejection.
  files.catch(() => undefined);
  return { files, snapshot };
}

function fingerprintOf(version: string, runtimeSource: string): string {
  return createHash('sha256')
    .update(version)
    .update('\0')
    .update(runtimeSource)
    .update('\0')
    .update(BOOT_SOURCE)
    .update('\0')
    .update(GUARD_SOURCE)
    .digest('hex')
    .slice(0, 16);
}

/**
 * A file's bytes in as few reads as the kernel allows (one, for a file in the page cache).
 * `readFile` reads 512 KiB at a time, each a trip through the event loop, and the main thread
 * is busy loading the command's modules meanwhile: 13 MB took ~190 ms that way.
 */
async function readWhole(path: string): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    const buffer = Buffer.allocUnsafeSlow(size);
    let at = 0;
    while (at < size) {
      const { bytesRead } = await file.read(buffer, at, size - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return at === size ? buffer : buffer.subarray(0, at);
  } finally {
    await file.close();
  }
}

export function snapshotPath(f: Pick<PyodideFiles, 'version' | 'fingerprint'>): string {
  return join(replCacheDir(), `pyodide-${f.version}-${f.fingerprint}.snapshot`);
}
