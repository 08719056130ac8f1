// Which Python REPL the shared Python REPL tests (python-repl.test.ts) run against: Pyodide's,
// unless a test file that imports them sets another first (cpython-repl.test.ts). One suite for
// both, so the two REPLs cannot drift apart in what the model sees.
import { createPythonRepl } from '../../../src-main/sandbox/python/pyodide-repl.ts';
import type { Repl, ReplOptions } from '../../../src-main/sandbox/types.ts';

export const pythonBackend: { create: (options: ReplOptions) => Promise<Repl> } = { create: createPythonRepl };
