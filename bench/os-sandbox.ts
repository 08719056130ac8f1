// The JavaScript and Pyodide REPLs' sandbox process with the OS sandbox (bubblewrap around it,
// os-sandbox/node-sandbox.ts) and without it (RLM_STUDIO_OS_SANDBOX=off), side by side in one
// run, rounds alternating: a new sandbox process's start to the end of its first block (the
// parent on Node's snapshot pays this once per command), block overhead (a block that does
// nothing, median of 200), and the child's proportional set size after that. Prints a Markdown
// table and one JSON line. Usage:
//   node bench/os-sandbox.ts [--rounds 5]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { ReplLanguage } from '../src-shared/events.ts';
import { SandboxProcess } from '../src-main/engine/sandbox-process/sandbox-process.ts';
import { OS_SANDBOX_SWITCH } from '../src-main/sandbox/os-sandbox/node-sandbox.ts';
import type { SubcallBridge } from '../src-main/sandbox/types.ts';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
const ROUNDS = Number(args.rounds);
const BLOCKS = 200;
const SITE = { iteration: 1, block: 1 };
const bridge: SubcallBridge = {
  llmQuery: async (p) => p,
  llmQueryBatched: async (ps) => ps,
  rlmQuery: async (p) => p,
  rlmQueryBatched: async (ps) => ps,
};
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function pssMb(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  const m = /^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

interface Round {
  startMs: number;
  blockMs: number;
  pssMb: number;
  layers: string;
}

async function round(language: ReplLanguage, os: boolean): Promise<Round> {
  if (os) delete process.env[OS_SANDBOX_SWITCH];
  else process.env[OS_SANDBOX_SWITCH] = 'off';
  const t0 = performance.now();
  const sandbox = new SandboxProcess();
  if (language === 'python') sandbox.warmPython();
  const repl = await sandbox.replFactory(language)({ bridge });
  await repl.addContext(0, 'x'.repeat(8192));
  const first = await repl.execute(language === 'python' ? 'n = len(context)' : 'const n = context.length', SITE);
  const startMs = performance.now() - t0;
  if (first.error) throw new Error(`${first.error.name}: ${first.error.message}`);
  const times: number[] = [];
  for (let i = 0; i < BLOCKS; i++) {
    const t = performance.now();
    await repl.execute(language === 'python' ? 'pass' : ';', SITE);
    times.push(performance.now() - t);
  }
  const pss = pssMb(await sandbox.runnerPid());
  repl.dispose();
  sandbox.close();
  // The child is unref'd: a timer keeps this process alive until it has gone.
  await Promise.race([sandbox.exited, new Promise((r) => setTimeout(r, 5000))]);
  return { startMs, blockMs: median(times), pssMb: pss, layers: sandbox.layers.join(' + ') };
}

const rows: Record<string, Round[]> = {};
for (let r = 0; r < ROUNDS; r++) {
  for (const language of ['javascript', 'python'] as const) {
    for (const os of r % 2 === 0 ? [false, true] : [true, false])
      (rows[`${language} ${os ? 'os' : 'no-os'}`] ??= []).push(await round(language, os));
  }
}
const result: Record<string, { startMs: number; blockMs: number; pssMb: number; layers: string }> = {};
console.log(
  '| REPL | OS sandbox | start → first block (ms) | block overhead (ms) | child PSS (MB) | layers |\n| --- | --- | --- | --- | --- | --- |',
);
for (const [key, rs] of Object.entries(rows)) {
  const r = {
    startMs: Math.round(median(rs.map((x) => x.startMs))),
    blockMs: Math.round(median(rs.map((x) => x.blockMs)) * 1000) / 1000,
    pssMb: Math.round(median(rs.map((x) => x.pssMb))),
    layers: rs[0]!.layers,
  };
  result[key] = r;
  const [language, os] = key.split(' ');
  console.log(`| ${language} | ${os === 'os' ? 'on' : 'off'} | ${r.startMs} | ${r.blockMs} | ${r.pssMb} | ${r.layers} |`);
}
console.log(JSON.stringify({ rounds: ROUNDS, ...result }));
