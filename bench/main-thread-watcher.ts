// Runs in a worker thread started by `watchMainThread` (lib.ts): says on stderr when the main
// thread's heartbeat has stopped for `quietMs`, naming the step the main thread is in.
import { writeSync } from 'node:fs';
import { workerData } from 'node:worker_threads';

const { name, beat, quietMs } = workerData as { name: Uint8Array; beat: Int32Array; quietMs: number };
let last = Atomics.load(beat, 0);
let since = Date.now();
let told = since;
setInterval(() => {
  const now = Date.now();
  const seen = Atomics.load(beat, 0);
  if (seen !== last) {
    last = seen;
    since = told = now;
    return;
  }
  if (now - told < quietMs) return;
  told = now;
  const length = new DataView(name.buffer).getUint16(0);
  const what = new TextDecoder().decode(name.slice(2, 2 + length));
  writeSync(2, `bench: the main thread has not run for ${Math.round((now - since) / 1000)} s (in ${what})\n`);
}, 1_000);
