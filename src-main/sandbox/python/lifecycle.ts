// Ending a process that has run Pyodide. With an interpreter's isolate disposed, V8's wasm
// engine teardown at a natural exit waits forever on isolated-vm's threads (seen on every
// depth-2 run), and `process.exit()` within a few milliseconds of a dispose can crash; exiting
// explicitly once the disposals have settled is clean. This module is cheap to import: the
// CLI entry point asks it whether Python was used at all.
//
// An idle isolate is torn down within `dispose()`. One that is running (an interpreter still
// starting: the pool's spare, started when the last session took one) is torn down later, on
// isolated-vm's thread, once its task stops; `process.exit()` meanwhile disposes the platform
// that teardown unregisters from, and the process crashed (SIGSEGV in UnregisterIsolate, about
// one evaluation in 150 here, after its results were written). So starts in flight finish first.

const live = new Set<() => void>();
let used = false;
let lastDispose = 0;
let starting = 0;
const startsDone: (() => void)[] = [];
/** Longer than any teardown seen (10 ms was always enough in 40 tries); short for a CLI. */
const SETTLE_MS = 30;
/** How long an exit waits for interpreters still starting (making the snapshot takes ~2.5 s). */
const START_WAIT_MS = 15_000;

/** Registers a live interpreter's disposer; returns what to call once it is disposed. */
export function trackInterpreter(dispose: () => void): () => void {
  used = true;
  live.add(dispose);
  return () => {
    live.delete(dispose);
    lastDispose = performance.now();
  };
}

/** An interpreter's start began; returns what to call once (when it has ended, started or not). */
export function trackStart(): () => void {
  starting++;
  return () => {
    if (--starting === 0) for (const resolve of startsDone.splice(0)) resolve();
  };
}

/** Whether this process has started a Python interpreter. */
export function pythonUsed(): boolean {
  return used;
}

/** Lets interpreters still starting finish (15 s at most), disposes every one alive and waits until their teardown has settled. */
export async function settlePython(): Promise<void> {
  if (starting > 0) await atMost(new Promise<void>((resolve) => startsDone.push(resolve)), START_WAIT_MS);
  for (const dispose of [...live]) dispose();
  const wait = lastDispose + SETTLE_MS - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/** Resolves once `promise` has settled or `ms` have passed. */
async function atMost(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([promise.then(noop, noop), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

function noop(): void {}

/** Ends the process: at once without Python, after `settlePython()` with it. */
export async function exitProcess(code: number): Promise<never> {
  if (used) await settlePython();
  // Pipes are asynchronous on some systems (macOS): let what was printed go out first.
  await Promise.all([process.stdout, process.stderr].map((s) => new Promise<void>((resolve) => s.write('', () => resolve()))));
  process.exit(code);
}
