// Tree queries over a folder of 1,000 generated sessions (test/support/session-folder.ts:
// three runs each, a fifth of them with a 100,001-character prompt), against issue 13's goal
// of under 5 s. In this process (read, fold, document, JSONata) and as a whole
// `rlm-studio query` process. Prints a Markdown section for bench/RESULTS.md.
//   node --no-node-snapshot bench/queries.ts [--sessions N]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileQuery } from '../src-shared/analysis/query.ts';
import { queryPaths } from '../src-main/analysis/query-logs.ts';
import { writeSessionFolder } from '../test/support/session-folder.ts';
import { log, median, r2, root } from './lib.ts';

const GOAL_MS = 5000;
const arg = process.argv.indexOf('--sessions');
const sessions = arg > 0 ? Number(process.argv[arg + 1]) : 1000;

const QUERIES: [string, string][] = [
  [
    'root answered, a depth-2 run hit its iteration limit',
    'runs[depth = 0 and answered] and runs[depth = 2 and stopReason = "max_iterations"]',
  ],
  ['sub-calls with a prompt over 100,000 characters', 'calls[promptChars > 100000]'],
  ['runs that never printed any of their context', 'runs[printedContext = false]'],
];

const dir = mkdtempSync(join(tmpdir(), 'rlm-bench-queries-'));
try {
  const paths = writeSessionFolder(dir, sessions);
  const bytes = paths.reduce((n, p) => n + statSync(p).size, 0);
  log(`${sessions} sessions, ${r2(bytes / 1e6)} MB`);
  const rows: string[] = [];
  for (const [name, expr] of QUERIES) {
    const q = compileQuery(expr);
    const times: number[] = [];
    let matches = 0;
    for (let round = 0; round < 3; round++) {
      const t0 = performance.now();
      const r = await queryPaths(q, [dir]);
      times.push(performance.now() - t0);
      matches = r.matches.length;
    }
    const t0 = performance.now();
    const cli = spawnSync(join(root, 'bin/rlm-studio'), ['query', expr, dir, '--json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const processMs = performance.now() - t0;
    if (cli.status !== 0) throw new Error(`rlm-studio query failed: ${cli.stderr}`);
    const inProcess = median(times);
    rows.push(`| ${name} | ${matches} | ${r2(inProcess)} | ${r2(processMs)} | ${r2(processMs / GOAL_MS)} |`);
    log(`${name}: ${r2(inProcess)} ms in process, ${r2(processMs)} ms as a process`);
  }
  process.stdout.write(
    [
      `## Tree queries (${sessions.toLocaleString('en-US')} generated sessions, ${r2(bytes / 1e6)} MB; goal < 5 s)`,
      '',
      `\`node --no-node-snapshot bench/queries.ts\` on ${new Date().toISOString().slice(0, 10)}: each query over the whole folder, median of 3 in one process (read, fold into the run tree, build the document with labels, evaluate), and once as a whole \`rlm-studio query … --json\` process (Node start included). vsGoal = process ÷ 5 s. Load average ${r2(loadavg()[0]!)} on ${navigator.hardwareConcurrency} cores at the end (the machine is shared).`,
      '',
      '| query | matches | inProcessMs | processMs | vsGoal |',
      '| --- | --- | --- | --- | --- |',
      ...rows,
      '',
    ].join('\n'),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
