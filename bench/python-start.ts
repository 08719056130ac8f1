// One Python interpreter start in a fresh process, as a session worker would pay it. Prints one
// JSON line. The snapshot is read from (or, when absent, made in) $RLM_STUDIO_CACHE, so the
// caller chooses a cold start (an empty cache) or a start from the snapshot (a filled one).
// Usage: node --no-node-snapshot bench/python-start.ts
import { existsSync, readdirSync } from 'node:fs';
import { preparePython, startInterpreter } from '../src-main/sandbox/python/interpreter.ts';
import { exitProcess } from '../src-main/sandbox/python/lifecycle.ts';
import { holdProcess } from './lib.ts';

const cache = process.env.RLM_STUDIO_CACHE ?? '';
const hadSnapshot = cache !== '' && existsSync(cache) && readdirSync(cache).some((f) => f.endsWith('.snapshot'));
const release = holdProcess();
const t0 = performance.now();
// The package's files and the compiled wasm, then the snapshot read from disk (or made: a full
// Pyodide boot, the image taken and written).
await preparePython();
const t1 = performance.now();
const first = await startInterpreter(2 ** 32);
const t2 = performance.now();
first.dispose();
// A second interpreter in the same process: the wasm is compiled and the snapshot in memory.
const second = await startInterpreter(2 ** 32);
const t3 = performance.now();
second.dispose();
process.stdout.write(
  `${JSON.stringify({
    hadSnapshot,
    // performance.now() counts from the process's start: Node's boot and our imports included.
    processStartToReadyMs: t2,
    prepareMs: t1 - t0,
    firstStartMs: t2 - t1,
    firstTotalMs: t2 - t0,
    secondStartMs: t3 - t2,
  })}\n`,
);
release();
// A process that ran Python ends explicitly (see src-main/sandbox/python/lifecycle.ts).
await exitProcess(0);
