// A `run` or `chat` with the Python REPL needs an interpreter before its first block: Pyodide's
// files and snapshot read (~45 MB) and the interpreter started from them (~0.3 s). That starts
// here, from the raw command line, while the command's own modules (the SDK among them) are
// still loading, so that the first model call hides it: in the sandbox process when this one
// runs on Node's startup snapshot (as bin/rlm-studio starts `run` and `chat`), otherwise as
// the files' reads in this process.
import { canHostIsolates } from '../sandbox/isolate-host.ts';
import { environmentIsScrubbed } from '../sandbox/sandbox-env.ts';

/** Whether `argv` (process.argv) is a `run` or `chat` with `--repl python`. */
export function wantsPythonRepl(argv: readonly string[]): boolean {
  if (argv[2] !== 'run' && argv[2] !== 'chat') return false;
  return argv.some((arg, i) => arg === '--repl=python' || (arg === 'python' && argv[i - 1] === '--repl'));
}

/**
 * The interpreter a `run` or `chat` with `--repl cpython` names (`--python BIN`, else the
 * default), or null for any other command line.
 */
export function wantsCPythonRepl(argv: readonly string[]): string | null {
  if (argv[2] !== 'run' && argv[2] !== 'chat') return null;
  if (!argv.some((arg, i) => arg === '--repl=cpython' || (arg === 'cpython' && argv[i - 1] === '--repl'))) return null;
  for (let i = 3; i < argv.length; i++) {
    if (argv[i] === '--python' && argv[i + 1] !== undefined) return argv[i + 1]!;
    if (argv[i]!.startsWith('--python=')) return argv[i]!.slice('--python='.length);
  }
  return '';
}

/** Starts what the command line's Python REPL will need; says where ('sandbox process', 'this process', 'cpython') or null. */
export async function startPythonEarly(argv: readonly string[]): Promise<'sandbox process' | 'this process' | 'cpython' | null> {
  const cpython = wantsCPythonRepl(argv);
  if (cpython !== null) {
    // Not awaited: asking the interpreter about itself takes ~50 ms, and the command goes on
    // loading meanwhile. Its first session takes the interpreter started here (cpython-process.ts).
    void prestartCPython(cpython || undefined).catch(() => undefined);
    return 'cpython';
  }
  if (!wantsPythonRepl(argv)) return null;
  // In this process only where its REPLs may live (engine/conversation.ts replsOutOfProcess):
  // `run` and `chat` hold the API key in their environment, so that is only a scrubbed one.
  if (canHostIsolates() && environmentIsScrubbed()) {
    (await import('../sandbox/python/pyodide-files.ts')).prefetchPyodide();
    return 'this process';
  }
  const sandbox = await (await import('../engine/sandbox-process/sandbox-process.ts')).sharedSandboxProcessProbed();
  // Started before the command reads its context file: bound now, the child can read it itself.
  const context = contextFileOf(argv);
  if (context !== null) sandbox.bindFile(context);
  sandbox.warmPython();
  sandbox.start();
  return 'sandbox process';
}

/** The `--context FILE` of a command line, or null. */
export function contextFileOf(argv: readonly string[]): string | null {
  for (let i = 3; i < argv.length; i++) {
    if (argv[i] === '--context' && argv[i + 1] !== undefined) return argv[i + 1]!;
    if (argv[i]!.startsWith('--context=')) return argv[i]!.slice('--context='.length);
  }
  return null;
}

async function prestartCPython(python: string | undefined): Promise<void> {
  const [{ findPython }, { prestartCPython: prestart }, { osSandboxSupport }] = await Promise.all([
    import('../sandbox/python/python-install.ts'),
    import('../sandbox/python/cpython-process.ts'),
    import('../sandbox/os-sandbox/bwrap.ts'),
  ]);
  // Where there is no OS sandbox the command refuses with the reason; nothing to start.
  if (osSandboxSupport().ok) prestart(await findPython(python));
}
