// Ending a process that ran Python: an interpreter still starting is let finish before every
// interpreter is disposed. Disposing it mid-start defers its teardown to isolated-vm's thread,
// where it raced `process.exit()` and crashed the process now and then.
import { describe, expect, it } from 'vitest';
import { startInterpreter } from '../../../src-main/sandbox/python/interpreter.ts';
import { settlePython } from '../../../src-main/sandbox/python/lifecycle.ts';

describe('settling Python before exit', () => {
  it('lets an interpreter that is starting finish its start, then disposes it', async () => {
    const starting = startInterpreter(64 * 1024 * 1024);
    const outcome = starting.then(
      (interp) => ({ started: true, interp }),
      (err: unknown) => ({ started: false, err }),
    );
    await settlePython();
    const o = await outcome;
    expect(o.started).toBe(true);
    if (o.started && 'interp' in o) expect(o.interp.isolate.isDisposed).toBe(true);
  });
});
