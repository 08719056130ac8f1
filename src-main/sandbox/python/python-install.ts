// Which CPython `--repl cpython` runs, and what of the file system it needs. The `python3` on
// PATH may be a shim (pyenv's, under the home folder the sandbox hides), so the interpreter is
// asked once, outside the sandbox, for its real executable, its prefixes and its import path;
// those folders are bound read-only inside. The asking runs the user's own interpreter with
// the user's own environment (a shim needs it to pick its version), and no model code.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { replCacheDir } from '../cache-dir.ts';

const MIN_PYTHON: readonly [number, number] = [3, 10];
const DEFAULT_PYTHON = 'python3';

export interface PythonInstall {
  /** What was asked for (`python3`, a path). */
  requested: string;
  /** The interpreter to run inside (sys.executable: a virtual environment's stays itself). */
  executable: string;
  version: [number, number, number];
  /** Host paths the interpreter reads: its prefixes, its real executable's folder, its import path. */
  readOnly: string[];
  /**
   * sys.path as the interpreter has it after `site` ran (site-packages, .pth entries), in order:
   * the sandbox starts Python without `site` (-S: ~5 ms, more where a .pth file imports
   * something) and runtime.py sets this path instead.
   */
  importPath: string[];
  /** runtime.py compiled by this interpreter (a .pyc in the REPLs' cache), or null where it could not be written. */
  compiledRuntime: string | null;
}

// argv: runtime.py's path, and where its compiled form goes (the cache folder, a name for its digest).
const PROBE = `
import json, os, site, sys
paths = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, os.path.dirname(os.path.realpath(sys.executable))]
try:
    paths += site.getsitepackages()
except Exception:
    pass
user = site.getusersitepackages() if site.ENABLE_USER_SITE else None
if user:
    paths.append(user)
import_path = [p for p in sys.path if p]
paths += import_path
compiled = None
try:
    import py_compile
    target = os.path.join(sys.argv[2], sys.argv[3] + "." + sys.implementation.cache_tag + ".pyc")
    if not os.path.isfile(target):
        os.makedirs(sys.argv[2], exist_ok=True)
        py_compile.compile(sys.argv[1], cfile=target, dfile="/rlm/runtime.py", doraise=True)
    compiled = target
except Exception:
    pass
print(json.dumps({"executable": sys.executable, "version": list(sys.version_info[:3]), "paths": paths, "import_path": import_path, "compiled": compiled}))
`;
const RUNTIME_PATH = fileURLToPath(new URL('./runtime.py', import.meta.url));

const cache = new Map<string, Promise<PythonInstall>>();

/** The interpreter `bin` names (default `python3`), checked to be CPython ≥ 3.10; throws with the reason. */
export function findPython(bin: string = DEFAULT_PYTHON): Promise<PythonInstall> {
  let found = cache.get(bin);
  if (!found) {
    found = probe(bin);
    cache.set(bin, found);
    found.catch(() => cache.delete(bin));
  }
  return found;
}

async function probe(bin: string): Promise<PythonInstall> {
  let stdout: string;
  try {
    // -E: the import path as the sandbox will see it (it runs Python with -E too).
    const digest = createHash('sha256')
      .update(await readFile(RUNTIME_PATH))
      .digest('hex')
      .slice(0, 16);
    const args = ['-E', '-c', PROBE, RUNTIME_PATH, join(replCacheDir(), 'cpython'), `runtime-${digest}`];
    ({ stdout } = await promisify(execFile)(bin, args, { timeout: 30_000, maxBuffer: 1024 * 1024 }));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new Error(`${bin} was not found: the CPython REPL needs Python ${MIN_PYTHON.join('.')} or newer (name one with --python BIN)`, {
        cause: err,
      });
    }
    const said = ((err as { stderr?: string }).stderr ?? '').trim().split('\n').pop() ?? '';
    throw new Error(`${bin} could not be run as Python (${said || (err as Error).message})`, { cause: err });
  }
  let info: { executable?: unknown; version?: unknown; paths?: unknown; import_path?: unknown; compiled?: unknown };
  try {
    info = JSON.parse(stdout.trim().split('\n').pop() ?? '') as typeof info;
  } catch {
    throw new Error(`${bin} did not answer as CPython does: is it Python ${MIN_PYTHON.join('.')} or newer?`);
  }
  const version = (Array.isArray(info.version) ? info.version.map(Number) : [0, 0, 0]) as [number, number, number];
  if (typeof info.executable !== 'string' || info.executable === '' || version.some((n) => !Number.isInteger(n))) {
    throw new Error(`${bin} did not say which interpreter it is (sys.executable is empty)`);
  }
  const [major, minor] = version;
  if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])) {
    throw new Error(
      `${bin} is Python ${version.join('.')}; the CPython REPL needs ${MIN_PYTHON.join('.')} or newer (name one with --python BIN)`,
    );
  }
  const home = homedir();
  const readOnly = new Set<string>([dirname(info.executable)]);
  for (const p of Array.isArray(info.paths) ? info.paths : []) {
    if (typeof p !== 'string' || !p.startsWith('/') || !existsSync(p)) continue;
    const real = realpathSync(p);
    // Never a whole home folder or the file system's root: only what Python itself lives in.
    if (real === '/' || real === home || home.startsWith(`${real}/`)) continue;
    readOnly.add(real);
    if (real !== p) readOnly.add(p);
  }
  const importPath = (Array.isArray(info.import_path) ? info.import_path : []).filter(
    (p): p is string => typeof p === 'string' && p.startsWith('/'),
  );
  const compiledRuntime = typeof info.compiled === 'string' && existsSync(info.compiled) ? info.compiled : null;
  return { requested: bin, executable: info.executable, version, readOnly: [...readOnly].sort(), importPath, compiledRuntime };
}
