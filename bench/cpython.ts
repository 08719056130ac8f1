// The CPython REPL (`--repl cpython`) beside the Pyodide one, in one process, rounds
// alternating: session start to the end of its first block (cold: a process started for the
// session; warm: the spare `warmCPython` keeps), block overhead (a block that does nothing), and
// memory per concurrent session (proportional set size of every process this one started,
// divided by the sessions, each holding an 8 K context after one block). Prints a Markdown
// table and one JSON line. Usage:
//   node --no-node-snapshot bench/cpython.ts [--python /usr/bin/python3] [--rounds 7] [--sessions 32]
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { coolCPython, warmCPython } from '../src-main/sandbox/python/cpython-process.ts';
import { createCPythonRepl } from '../src-main/sandbox/python/cpython-repl.ts';
import { findPython } from '../src-main/sandbox/python/python-install.ts';
import { coolPython, warmPython } from '../src-main/sandbox/python/pool.ts';
import { createPythonRepl } from '../src-main/sandbox/python/pyodide-repl.ts';
import { exitProcess } from '../src-main/sandbox/python/lifecycle.ts';
import type { Repl, ReplOptions, SubcallBridge } from '../src-main/sandbox/types.ts';

const { values: args } = parseArgs({
  options: {
    python: { type: 'string', default: '/usr/bin/python3' },
    rounds: { type: 'string', default: '7' },
    sessions: { type: 'string', default: '32' },
  },
});
const ROUNDS = Number(args.rounds);
const SESSIONS = Number(args.sessions);
const BLOCKS = 200;
const SITE = { iteration: 1, block: 1 };
const CONTEXT = 'x'.repeat(8192);
const bridge: SubcallBridge = {
  llmQuery: async (p) => p,
  llmQueryBatched: async (ps) => ps,
  rlmQuery: async (p) => p,
  rlmQueryBatched: async (ps) => ps,
};

type Make = (o: ReplOptions) => Promise<Repl>;
const install = await findPython(args.python);
const cpython: Make = (o) => createCPythonRepl({ ...o, python: args.python });
const pyodide: Make = (o) => createPythonRepl(o);

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Create a REPL, load a context, run its first block: the time until that block has ended. */
async function startToFirstBlock(make: Make): Promise<number> {
  const t0 = performance.now();
  const repl = await make({ bridge });
  await repl.addContext(0, CONTEXT);
  const r = await repl.execute('n = len(context)', SITE);
  const ms = performance.now() - t0;
  if (r.error) throw new Error(`${r.error.name}: ${r.error.message}`);
  repl.dispose();
  return ms;
}

/** The median time of a block that does nothing, in a started session. */
async function blockOverhead(make: Make): Promise<number> {
  const repl = await make({ bridge });
  await repl.addContext(0, CONTEXT);
  await repl.execute('pass', SITE);
  const times: number[] = [];
  for (let i = 0; i < BLOCKS; i++) {
    const t0 = performance.now();
    await repl.execute('pass', SITE);
    times.push(performance.now() - t0);
  }
  repl.dispose();
  return median(times);
}

/** Every process descended from this one. */
function descendants(): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone
    }
  }
  const out: number[] = [];
  const walk = (pid: number): void => {
    for (const [child, parent] of parents) {
      if (parent === pid) {
        out.push(child);
        walk(child);
      }
    }
  };
  walk(process.pid);
  return out;
}

function pssKb(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Proportional set size (MB) of this process and its descendants with `n` sessions alive, per session, beyond the baseline. */
async function memoryPerSession(make: Make, n: number): Promise<{ perSessionMb: number; childPerSessionMb: number }> {
  const before = pssKb(process.pid) + descendants().reduce((a, p) => a + pssKb(p), 0);
  const repls = await Promise.all(Array.from({ length: n }, () => make({ bridge })));
  for (const repl of repls) await repl.addContext(0, CONTEXT);
  await Promise.all(repls.map((repl) => repl.execute('words = context.split("x")\nn = len(words)', SITE)));
  const children = descendants().reduce((a, p) => a + pssKb(p), 0);
  const after = pssKb(process.pid) + children;
  for (const repl of repls) repl.dispose();
  return { perSessionMb: (after - before) / 1024 / n, childPerSessionMb: children / 1024 / n };
}

const rows: Record<string, Record<string, number>> = { cpython: {}, pyodide: {} };
const cold: Record<string, number[]> = { cpython: [], pyodide: [] };
const warm: Record<string, number[]> = { cpython: [], pyodide: [] };
for (let round = 0; round < ROUNDS; round++) {
  // Cold: nothing started ahead (Pyodide: the wasm is compiled once per process, so its
  // "cold" is an interpreter from the snapshot with no spare).
  coolCPython();
  await coolPython();
  cold.cpython!.push(await startToFirstBlock(cpython));
  cold.pyodide!.push(await startToFirstBlock(pyodide));
  // Warm: a spare started ahead, as `eval` and the host keep one; one REPL's spares at a time
  // (a Pyodide spare takes seconds of CPU to start, which would fall on the CPython session).
  warmCPython(install);
  await new Promise((r) => setTimeout(r, 1500));
  warm.cpython!.push(await startToFirstBlock(cpython));
  coolCPython();
  void warmPython();
  await new Promise((r) => setTimeout(r, 5000));
  warm.pyodide!.push(await startToFirstBlock(pyodide));
  await coolPython();
}
coolCPython();
await coolPython();
for (const [name, make] of [
  ['cpython', cpython],
  ['pyodide', pyodide],
] as const) {
  rows[name]!.coldStartMs = median(cold[name]!);
  rows[name]!.warmStartMs = median(warm[name]!);
  rows[name]!.blockOverheadMs = await blockOverhead(make);
}
const memory = {
  cpython: await memoryPerSession(cpython, SESSIONS),
  pyodide: await memoryPerSession(pyodide, Math.min(SESSIONS, 8)),
};
rows.cpython!.pssPerSessionMb = memory.cpython.perSessionMb;
rows.pyodide!.pssPerSessionMb = memory.pyodide.perSessionMb;

const f = (n: number | undefined): string => (n === undefined ? '—' : n.toFixed(n < 10 ? 2 : 0));
process.stdout.write(
  [
    `CPython ${install.version.join('.')} (${install.executable}) beside Pyodide; ${ROUNDS} rounds, medians; memory at ${SESSIONS} CPython / ${Math.min(SESSIONS, 8)} Pyodide sessions`,
    '',
    '| REPL | start → first block, cold (ms) | warm (ms) | block overhead (ms) | PSS per session (MB) |',
    '| --- | --- | --- | --- | --- |',
    ...(['cpython', 'pyodide'] as const).map(
      (k) =>
        `| ${k} | ${f(rows[k]!.coldStartMs)} | ${f(rows[k]!.warmStartMs)} | ${f(rows[k]!.blockOverheadMs)} | ${f(rows[k]!.pssPerSessionMb)} |`,
    ),
    '',
    JSON.stringify({ rows, memory, rounds: ROUNDS, sessions: SESSIONS }),
    '',
  ].join('\n'),
);
await exitProcess(0);
