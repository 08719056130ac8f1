// Warm interpreters: one started ahead of need per process, so a session (or a REPL reset)
// takes a loaded interpreter at once and the next one starts in the background.
import type { Interpreter } from './interpreter.ts';
import { startInterpreter } from './interpreter.ts';

let spare: Promise<Interpreter> | null = null;
let warming = false;

/** A loaded interpreter whose wasm memory may grow to `memoryLimitBytes`. */
export async function takeInterpreter(memoryLimitBytes: number): Promise<Interpreter> {
  const ready = spare;
  spare = null;
  let interp: Interpreter | null = null;
  if (ready) {
    interp = await ready.catch(() => null);
    if (interp?.isolate.isDisposed) interp = null;
  }
  interp ??= await startInterpreter(memoryLimitBytes);
  await interp.control.apply(undefined, ['limit', String(memoryLimitBytes)], { timeout: 5_000 });
  if (warming) refill();
  return interp;
}

/**
 * Keeps one interpreter ready from now on (a host's spare worker, an evaluation). The first
 * call in a process also loads or makes the snapshot.
 */
export function warmPython(): Promise<void> {
  warming = true;
  refill();
  return spare!.then(
    () => undefined,
    () => undefined,
  );
}

function refill(): void {
  if (spare) return;
  // Started without a limit of its own; `takeInterpreter` sets the REPL's.
  const next = startInterpreter(2 ** 32);
  next.catch(() => undefined);
  spare = next;
}

/** Starts one interpreter now, for the next REPL to take, without keeping one ready after that. */
export function startPython(): void {
  refill();
}

/** Lets go of the spare interpreter (tests, shutdown). */
export async function coolPython(): Promise<void> {
  warming = false;
  const s = spare;
  spare = null;
  const interp = await s?.catch(() => null);
  interp?.dispose();
}
