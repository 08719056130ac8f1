// `node --no-node-snapshot bench/session-memory.ts [--sessions 64] [--repl javascript|python]
// [--latency-ms 2000]`: memory per concurrent session of an evaluation (issue 39's measure).
// `rlm-studio eval` of N S-NIAH tasks at 2^13 tokens with --parallel N against mock-llm, slow
// enough per call that all N sessions are alive at once; the proportional set size (PSS, from
// /proc/PID/smaps_rollup, so pages shared between processes are split among them) of the eval
// process and every process under it (the sandbox process that holds the REPLs) is summed every
// 100 ms. Prints a Markdown table row: the peak and its ÷ N (figures, never asserted; Linux only).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeDataset } from '../src-main/cli/dataset-file.ts';
import { log, MB, r2, root, startMock } from './lib.ts';

const { values: args } = parseArgs({
  options: {
    sessions: { type: 'string', default: '64' },
    repl: { type: 'string', default: 'javascript' },
    'latency-ms': { type: 'string', default: '2000' },
  },
});
const N = Number(args.sessions);
const REPL = args.repl === 'python' ? 'python' : 'javascript';

/** Every descendant of `pid`, from /proc's children lists (processes that end meanwhile are skipped). */
function descendants(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tasks) {
    try {
      for (const c of readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)) {
        out.push(c, ...descendants(c));
      }
    } catch {
      // gone
    }
  }
  return out;
}

/** PSS of one process in bytes, 0 once it is gone. */
function pss(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'rlm-session-memory-'));
const mock = await startMock(['--latency-ms', args['latency-ms']]);
try {
  const ds = join(dir, 'tasks.jsonl');
  await writeDataset({ kinds: ['sniah'], sizes: [8192], seed: 1, count: N, out: ds, inlineMaxChars: 1 << 20 });
  const child = spawn(
    join(root, 'bin/rlm-studio'),
    ['eval', ds, '--base-url', mock.url, '--model', 'mock-root', '-o', join(dir, 'out'), '--parallel', String(N), '--repl', REPL],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  let exited = false;
  void done.then(() => (exited = true));
  let peak = 0;
  let peakProcesses = 0;
  const load0 = loadavg()[0]!;
  while (!exited) {
    const pids = [child.pid!, ...descendants(child.pid!)];
    const total = pids.reduce((sum, p) => sum + pss(p), 0);
    if (total > peak) {
      peak = total;
      peakProcesses = pids.length;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const code = await done;
  if (code !== 0) throw new Error(`eval exited with ${code}: ${stderr}`);
  const summary = JSON.parse(readFileSync(join(dir, 'out', 'summary.json'), 'utf8')) as { finished: number; accuracy: number };
  log(
    `${REPL}, ${N} sessions at once (${summary.finished} finished, accuracy ${summary.accuracy}), load average ${r2(load0)} → ${r2(loadavg()[0]!)}`,
  );
  process.stdout.write(`| ${REPL} | ${N} | ${r2(peak / MB)} MB (${peakProcesses} processes) | ${r2(peak / MB / N)} MB |\n`);
} finally {
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
}
