// One context-scale measurement in a fresh process (so peak RSS is this size's alone):
// write a context file of SIZE_MB, then time reading it, loading it into a REPL, and the
// first block. Prints one JSON line.
// Usage: node --no-node-snapshot bench/context-scale.ts SIZE_MB [string|array|copied|file]
//   string  the file read as one string (fails above V8's longest string, ~512 Mi characters)
//   array   the file read here as an array of ~1 MB strings, which the REPL copies: how a 1 GB
//           context was loaded before the context file reader could take one (the "before")
//   copied  readContextFile's array, but as a new array of the same strings, so the REPL copies
//           them again (what sharing the copies saves)
//   file    readContextFile, as the CLI and the workers read a context: above V8's longest string
//           an array of strings copied once, into memory the isolate shares
// node --no-node-snapshot bench/context-scale.ts --compare [SIZE_MB=1024] [--rounds 3]
//   array, copied and file side by side, alternating fresh processes (so load from other work falls on
//   both), and file once more with malloc on 4 KiB pages; prints a Markdown section with every round
//   and the medians.
// A measurement reports whether malloc was asked for huge pages (`pages`): bin/rlm-studio and the
// processes that hold contexts ask for them (src-main/sandbox/huge-pages.ts), and the fresh
// processes of --compare and `npm run bench` are started the same way unless a row says otherwise.
import { spawn } from 'node:child_process';
import { openSync, writeSync, closeSync, rmSync, createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { filler, prng } from '../src-main/corpus/seeded-text.ts';
import { readContextFile } from '../src-main/engine/context-file.ts';
import { withHugePageMalloc } from '../src-main/sandbox/huge-pages.ts';
import { createIsolatedRepl } from '../src-main/sandbox/isolated-repl.ts';
import type { SandboxValue, SubcallBridge } from '../src-main/sandbox/types.ts';
import { log, median, r2 } from './lib.ts';

const MB = 1024 * 1024;
type Shape = 'string' | 'array' | 'copied' | 'file';
export type Pages = 'huge' | '4 KiB';
/** The ways --compare alternates. */
const WAYS: [Shape, Pages][] = [
  ['array', 'huge'],
  ['copied', 'huge'],
  ['file', 'huge'],
  ['file', '4 KiB'],
];
const wayOf = (r: Record<string, unknown>): string => `${String(r['shape'])}${r['pages'] === '4 KiB' ? ', 4 KiB pages' : ''}`;
const bridge: SubcallBridge = {
  llmQuery: async () => '',
  llmQueryBatched: async (p) => p.map(() => ''),
  rlmQuery: async () => '',
  rlmQueryBatched: async (p) => p.map(() => ''),
};

// Only when run as a script: bench/run.ts imports contextScaleChild from here.
if (import.meta.main) {
  if (process.argv[2] === '--compare') {
    const rounds = process.argv.includes('--rounds') ? Number(process.argv[process.argv.indexOf('--rounds') + 1]) : 3;
    const size = process.argv[3] && !process.argv[3].startsWith('--') ? Number(process.argv[3]) : 1024;
    process.stdout.write(await compare(size, rounds));
  } else {
    const out = await measure(Number(process.argv[2] ?? '1'), (process.argv[3] ?? 'string') as Shape);
    process.stdout.write(`${JSON.stringify(out)}\n`);
  }
}

/** One measurement in this process. */
async function measure(sizeMb: number, shape: Shape): Promise<Record<string, unknown>> {
  const file = join(tmpdir(), `rlm-bench-ctx-${process.pid}.txt`);
  // 1 MB of seeded text repeated, with a line number, so writing 1 GB stays quick.
  const unit = filler(prng(7), MB - 16);
  const fd = openSync(file, 'w');
  for (let i = 0; i < sizeMb; i++) writeSync(fd, `${String(i).padStart(12, '0')}: ${unit}\n`.slice(0, MB));
  closeSync(fd);
  const bytes = sizeMb * MB;
  const rssBefore = process.memoryUsage().rss;
  const pages: Pages = /(^|:)glibc\.malloc\.hugetlb=1/.test(process.env['GLIBC_TUNABLES'] ?? '') ? 'huge' : '4 KiB';
  const out: Record<string, unknown> = { sizeMb, shape, pages, bytes };
  try {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let context: SandboxValue;
    if (shape === 'string') {
      context = await readFile(file, 'utf8');
    } else if (shape === 'file') {
      context = await readContextFile(file);
    } else if (shape === 'copied') {
      const read = await readContextFile(file);
      context = Array.isArray(read) ? [...read] : read;
    } else {
      // An array of ~1 MB strings: the shape a context larger than V8's longest string must take.
      const parts: string[] = [];
      let rest = '';
      for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: MB })) {
        rest += chunk as string;
        const cut = rest.lastIndexOf('\n');
        if (cut >= 0) {
          parts.push(rest.slice(0, cut));
          rest = rest.slice(cut + 1);
        }
      }
      if (rest) parts.push(rest);
      context = parts;
    }
    const tRead = performance.now();
    const repl = await createIsolatedRepl({ bridge, memoryLimitMb: 256 });
    await repl.addContext(0, context);
    const tLoad = performance.now();
    const res = await repl.execute('print(typeof context, context.length)', { iteration: 1, block: 0 });
    const tFirst = performance.now();
    const cpu = process.cpuUsage(cpu0);
    if (res.error) throw new Error(`${res.error.name}: ${res.error.message}`);
    repl.dispose();
    const peak = process.resourceUsage().maxRSS * 1024;
    Object.assign(out, {
      ok: true,
      readMs: tRead - t0,
      loadMs: tLoad - tRead,
      firstBlockMs: tFirst - tLoad,
      totalMs: tFirst - t0,
      // CPU of the whole process (user + system: page faults, the reads), steadier than wall
      // time when other work shares the cores.
      cpuMs: (cpu.user + cpu.system) / 1000,
      sysMs: cpu.system / 1000,
      peakRssBytes: peak,
      peakOverSize: peak / bytes,
      rssBeforeBytes: rssBefore,
      stdout: res.stdout.trim(),
    });
  } catch (err) {
    Object.assign(out, {
      ok: false,
      error: err instanceof Error ? `${(err as NodeJS.ErrnoException).code ?? err.name}: ${err.message}` : String(err),
    });
  } finally {
    rmSync(file, { force: true });
  }
  return out;
}

/** The old way (array), readContextFile without (copied) and with its shared copies (file), and file on 4 KiB pages, alternating fresh processes; a Markdown section. */
async function compare(sizeMb: number, rounds: number): Promise<string> {
  const load0 = loadavg();
  const rows: Record<string, unknown>[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const [shape, pages] of WAYS) {
      const row: Record<string, unknown> = { round, ...(await contextScaleChild(sizeMb, shape, pages)) };
      log(`context ${sizeMb} MB ${wayOf(row)} round ${round}: ${row['ok'] ? `${r2(Number(row['totalMs']))} ms` : String(row['error'])}`);
      rows.push(row);
    }
  }
  const load1 = loadavg();
  const num = (r: Record<string, unknown>, k: string): number => (typeof r[k] === 'number' ? r[k] : Number.NaN);
  const cells = (r: Record<string, unknown>): string =>
    [
      num(r, 'readMs'),
      num(r, 'loadMs'),
      num(r, 'firstBlockMs'),
      num(r, 'totalMs'),
      num(r, 'cpuMs'),
      num(r, 'sysMs'),
      Math.round(num(r, 'peakRssBytes') / MB),
      r2(num(r, 'peakOverSize')),
    ]
      .map((x) => (Number.isNaN(x) ? '' : String(Math.round(x * 100) / 100)))
      .join(' | ');
  const lines = [
    `## Context load, ${sizeMb} MB: before (array), the new reader without sharing (copied) and after (file), with malloc on huge and on 4 KiB pages, side by side`,
    '',
    `Fresh process per row, rounds alternating; load average ${load0.map((x) => x.toFixed(1)).join(' / ')} at the start, ` +
      `${load1.map((x) => x.toFixed(1)).join(' / ')} at the end (1 / 5 / 15 min). totalMs = file on disk to the first block's end; cpuMs = the process's CPU meanwhile (user + system), sysMs its system part.`,
    '',
    '| round | way | readMs | loadMs | firstBlockMs | totalMs | cpuMs | sysMs | peakRssMb | peakOverSize |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${String(r['round'])} | ${wayOf(r)}${r['ok'] ? '' : ` (${String(r['error'])})`} | ${cells(r)} |`),
  ];
  for (const [shape, pages] of WAYS) {
    const ok = rows.filter((r) => r['shape'] === shape && r['pages'] === pages && r['ok']);
    const med = Object.fromEntries(
      ['readMs', 'loadMs', 'firstBlockMs', 'totalMs', 'cpuMs', 'sysMs', 'peakRssBytes', 'peakOverSize'].map((k) => [
        k,
        median(ok.map((r) => num(r, k))),
      ]),
    );
    lines.push(`| median | ${wayOf({ shape, pages })} | ${cells(med)} |`);
  }
  return `${lines.join('\n')}\n`;
}

/** One measurement in a fresh process, with malloc on huge pages (as the launcher starts one) or on 4 KiB pages. */
export function contextScaleChild(sizeMb: number, shape: Shape, pages: Pages = 'huge'): Promise<Record<string, unknown>> {
  const own = pages === 'huge' ? process.env : { ...process.env, GLIBC_TUNABLES: 'glibc.malloc.hugetlb=0' };
  return new Promise((res) => {
    const p = spawn(process.execPath, ['--no-node-snapshot', import.meta.filename, String(sizeMb), shape], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: withHugePageMalloc(own),
    });
    let text = '';
    p.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
    p.on('close', (code, signal) =>
      res(
        text.trim()
          ? (JSON.parse(text) as Record<string, unknown>)
          : { sizeMb, shape, ok: false, error: `ended (${signal ?? code}) without a result` },
      ),
    );
  });
}
