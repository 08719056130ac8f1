// Where a CPython session's start goes, and what the start-up changes of the osbox branch cut,
// side by side in one run (rounds alternating): an interpreter from spawn to runtime.py's
// `ready` frame as it was started before (`site` imported, runtime.py compiled from source at
// every start) and as now (-S with the import path given, runtime.py precompiled); bwrap alone
// (a sandbox running /bin/true); then, with the current code, a session's start to the end of
// its first block with the spare (`warmCPython`) ready, and the overhead of a block that does
// nothing. Prints a Markdown table and one JSON line. Usage:
//   node --no-node-snapshot bench/cpython-start.ts [--python /usr/bin/python3] [--rounds 15]
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { processCpuMs, spawnSandboxed } from '../src-main/sandbox/os-sandbox/bwrap.ts';
import { cpythonEnvironment } from '../src-main/sandbox/os-sandbox/environment.ts';
import { coolCPython, warmCPython } from '../src-main/sandbox/python/cpython-process.ts';
import { createCPythonRepl } from '../src-main/sandbox/python/cpython-repl.ts';
import { readFrames } from '../src-main/sandbox/python/frames.ts';
import { findPython, type PythonInstall } from '../src-main/sandbox/python/python-install.ts';
import type { SubcallBridge } from '../src-main/sandbox/types.ts';

const { values: args } = parseArgs({
  options: { python: { type: 'string', default: '/usr/bin/python3' }, rounds: { type: 'string', default: '15' } },
});
const ROUNDS = Number(args.rounds);
const BLOCKS = 200;
const SITE = { iteration: 1, block: 1 };
const RUNTIME = fileURLToPath(new URL('../src-main/sandbox/python/runtime.py', import.meta.url));
const bridge: SubcallBridge = {
  llmQuery: async (p) => p,
  llmQueryBatched: async (ps) => ps,
  rlmQuery: async (p) => p,
  rlmQueryBatched: async (ps) => ps,
};
const install = await findPython(args.python);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round1 = (n: number): number => Math.round(n * 10) / 10;

type Variant = 'before' | 'now';

/**
 * Spawn to the `ready` frame, as `startInterpreter` started an interpreter before and does now:
 * the wall time, and the interpreter's own CPU time to get there (which the machine's load does
 * not stretch).
 */
async function toReady(i: PythonInstall, variant: Variant): Promise<{ ms: number; cpuMs: number }> {
  const t0 = performance.now();
  const now = variant === 'now' && i.compiledRuntime !== null;
  const config = { fd: 3, ...(variant === 'now' ? { import_path: i.importPath } : {}), limits: { RLIMIT_CORE: 0 } };
  const flags = variant === 'now' ? ['-E', '-S', '-B'] : ['-E', '-B'];
  const files = [{ source: RUNTIME, dest: '/rlm/runtime.py' }];
  if (now) files.push({ source: i.compiledRuntime!, dest: '/rlm/runtime.pyc' });
  const s = spawnSandboxed({
    argv: [i.executable, ...flags, '-X', 'utf8', now ? '/rlm/runtime.pyc' : '/rlm/runtime.py', JSON.stringify(config)],
    readOnly: i.readOnly,
    files,
    env: cpythonEnvironment(),
    extraFds: 1,
  });
  await new Promise<void>((resolve, reject) => {
    readFrames(s.fds[0]!, (f) => f.header.t === 'ready' && resolve(), reject);
    s.child.on('exit', () => reject(new Error('exited before ready')));
  });
  const ms = performance.now() - t0;
  const pid = await s.pid;
  const cpuMs = pid === null ? NaN : (processCpuMs(pid) ?? NaN);
  s.child.kill('SIGKILL');
  await new Promise((r) => s.child.once('exit', r));
  return { ms, cpuMs };
}

async function bwrapAlone(): Promise<number> {
  const t0 = performance.now();
  const s = spawnSandboxed({ argv: ['/bin/true'], readOnly: [], env: {}, extraFds: 0 });
  await new Promise((r) => s.child.once('exit', r));
  return performance.now() - t0;
}

async function warmStart(): Promise<number> {
  warmCPython(install);
  // The spare is started ahead of the session: give it time to be ready, as a queued session's would.
  await new Promise((r) => setTimeout(r, 400));
  const t0 = performance.now();
  const repl = await createCPythonRepl({ bridge, python: args.python });
  await repl.addContext(0, 'x'.repeat(8192));
  const r = await repl.execute('n = len(context)', SITE);
  const ms = performance.now() - t0;
  if (r.error) throw new Error(`${r.error.name}: ${r.error.message}`);
  repl.dispose();
  return ms;
}

/** A block that does nothing: its median wall time, and the CPU both processes spend on it (this one's and the interpreter's). */
async function overhead(): Promise<{ ms: number; cpuMs: number }> {
  const repl = await createCPythonRepl({ bridge, python: args.python });
  await repl.execute('pass', SITE);
  const times: number[] = [];
  const ours = process.cpuUsage();
  const theirs0 = (await repl.execute('import time\nprint(time.process_time())', SITE)).stdout;
  for (let i = 0; i < BLOCKS; i++) {
    const t0 = performance.now();
    await repl.execute('pass', SITE);
    times.push(performance.now() - t0);
  }
  const theirs1 = (await repl.execute('print(time.process_time())', SITE)).stdout;
  const used = process.cpuUsage(ours);
  repl.dispose();
  const pythonMs = (Number(theirs1) - Number(theirs0)) * 1000;
  return { ms: median(times), cpuMs: ((used.user + used.system) / 1000 + pythonMs) / (BLOCKS + 1) };
}

const ready: Record<Variant, { ms: number; cpuMs: number }[]> = { before: [], now: [] };
const bwrap: number[] = [];
const warm: number[] = [];
await toReady(install, 'now');
for (let r = 0; r < ROUNDS; r++) {
  for (const v of r % 2 === 0 ? (['before', 'now'] as const) : (['now', 'before'] as const)) ready[v].push(await toReady(install, v));
  bwrap.push(await bwrapAlone());
  warm.push(await warmStart());
}
// No spare being started meanwhile: the blocks alone.
coolCPython();
await new Promise((r) => setTimeout(r, 500));
const block = await overhead();
const result = {
  python: `${install.executable} ${install.version.join('.')}`,
  rounds: ROUNDS,
  bwrapAloneMs: round1(median(bwrap)),
  spawnToReadyBeforeMs: round1(median(ready.before.map((r) => r.ms))),
  spawnToReadyNowMs: round1(median(ready.now.map((r) => r.ms))),
  interpreterCpuToReadyBeforeMs: round1(median(ready.before.map((r) => r.cpuMs))),
  interpreterCpuToReadyNowMs: round1(median(ready.now.map((r) => r.cpuMs))),
  warmStartToFirstBlockMs: round1(median(warm)),
  blockOverheadMs: Math.round(block.ms * 1000) / 1000,
  blockCpuMs: Math.round(block.cpuMs * 1000) / 1000,
};
console.log('| measure (median) | ms |\n| --- | --- |');
console.log(`| bwrap alone (sandbox running /bin/true) | ${result.bwrapAloneMs} |`);
console.log(`| interpreter spawn → ready, before (site, runtime.py from source) | ${result.spawnToReadyBeforeMs} |`);
console.log(`| interpreter spawn → ready, now (-S, precompiled runtime) | ${result.spawnToReadyNowMs} |`);
console.log(`| interpreter's CPU to ready, before | ${result.interpreterCpuToReadyBeforeMs} |`);
console.log(`| interpreter's CPU to ready, now | ${result.interpreterCpuToReadyNowMs} |`);
console.log(`| session start → first block ended, spare ready | ${result.warmStartToFirstBlockMs} |`);
console.log(`| block overhead (\`pass\`) | ${result.blockOverheadMs} |`);
console.log(`| CPU per block (\`pass\`), both processes | ${result.blockCpuMs} |`);
console.log(JSON.stringify(result));
