// `--repl cpython` checked before anything runs: an OS sandbox here, and a CPython ≥ 3.10 at
// `--python` (or python3 on PATH). Either missing is a usage error naming it (exit 2), not a
// failure of the session's first block.
import type { ReplChoice } from '../../src-shared/events.ts';
import { UsageError } from './errors.ts';

export async function checkReplChoice(o: { repl?: ReplChoice | undefined; python?: string | undefined }): Promise<void> {
  if (o.python !== undefined && o.repl !== 'cpython')
    throw new UsageError('--python names the interpreter of --repl cpython; add --repl cpython');
  if (o.repl !== 'cpython') return;
  const [{ cpythonUnavailable }, { findPython }] = await Promise.all([
    import('../sandbox/python/cpython-repl.ts'),
    import('../sandbox/python/python-install.ts'),
  ]);
  const missing = cpythonUnavailable();
  if (missing) throw new UsageError(missing);
  try {
    await findPython(o.python);
  } catch (err) {
    throw new UsageError((err as Error).message, { cause: err });
  }
}
