// `node --no-node-snapshot bench/coverage.ts [--mb 100] [--calls 2000]`: the context coverage
// map (issue 13 part 1; goal: 100 MB with 2,000 sub-calls in under 5 s). A real session makes
// the log: `rlm-studio run` against mock-llm prints the head, sends the whole context to
// `llm_query_batched` in CALLS chunks, prints the needle line, answers. The context is the
// evaluation tasks' seeded filler prose (12 words over and over: the hardest case for anchors,
// which repeat everywhere). Then `rlm-studio coverage` on it, whole process, and the same
// phases in this process. Prints a Markdown section for bench/RESULTS.md (--keep keeps the
// log and context in a temp folder). `--before DIR` (another checkout with node_modules, e.g.
// a worktree of the previous commit) measures its command and its index beside ours, rounds
// alternating, both commands from their sources, so load from other work falls on both.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AnchorIndex, MIN_SPAN_CHARS } from '../src-shared/analysis/anchor-index.ts';
import { coverageRuns, coverageSources, sourceSpans, summarizeCoverage } from '../src-shared/analysis/coverage.ts';
import { applyEvent, createTrajectoryState } from '../src-shared/trajectory/reducer.ts';
import { filler, prng } from '../src-main/corpus/seeded-text.ts';
import { readLogBatches } from '../src-main/logs/read-log.ts';
import { MB, log, median, r2, repl, root, startMock, writeScript } from './lib.ts';

const { values: args } = parseArgs({
  options: {
    mb: { type: 'string', default: '100' },
    calls: { type: 'string', default: '2000' },
    keep: { type: 'boolean', default: false },
    before: { type: 'string' },
  },
});
const sizeMb = Number(args.mb);
const calls = Number(args.calls);
const work = mkdtempSync(join(tmpdir(), 'rlm-bench-coverage-'));
const NEEDLE = 'NOTE from admin: the secret access code is 7-ALPHA-2931 (rotate after the audit)';

function makeContext(): string {
  const body = filler(prng(7), sizeMb * MB - NEEDLE.length - 2);
  const at = body.indexOf('\n', Math.floor(body.length * 0.6));
  return `${body.slice(0, at + 1)}${NEEDLE}\n${body.slice(at + 1)}`;
}

const cli = (argv: string[]): { ms: number; stdout: string } => {
  const t0 = performance.now();
  const r = spawnSync(join(root, 'bin/rlm-studio'), argv, { encoding: 'utf8', maxBuffer: 1 << 30 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`rlm-studio ${argv[0]} exited ${r.status}: ${r.stderr}`);
  return { ms, stdout: r.stdout };
};

/** `rlm-studio coverage` of the checkout `dir` from its sources (as bin/rlm-studio runs them with RLM_STUDIO_SOURCES): wall and CPU ms. */
function coverageFromSources(dir: string, argv: string[]): { ms: number; cpuMs: number; stdout: string } {
  const t0 = performance.now();
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', '%U %S', process.execPath, '--no-node-snapshot', join(dir, 'src-main/cli/main.ts'), 'coverage', ...argv],
    {
      encoding: 'utf8',
      maxBuffer: 1 << 30,
      env: { ...process.env, NODE_COMPILE_CACHE: join(work, `compile-cache-${dir.replace(/\W+/g, '_')}`) },
    },
  );
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${dir}: rlm-studio coverage exited ${r.status}: ${r.stderr}`);
  const [user, sys] = r.stderr.trim().split('\n').at(-1)!.split(' ').map(Number) as [number, number];
  return { ms, cpuMs: (user + sys) * 1000, stdout: r.stdout };
}

interface IndexModule {
  AnchorIndex: new (context: string) => { find(text: string): { textStart: number; textEnd: number; contextStart: number }[] };
}

/** One fresh index of `text` with `mod` and every source matched: CPU ms of each (steadier than wall on a shared machine), and the copies found. */
function indexAndMatch(mod: IndexModule, text: string, sources: { text: string }[]): { indexCpu: number; matchCpu: number; found: string } {
  const c0 = process.cpuUsage();
  const index = new mod.AnchorIndex(text);
  const c1 = process.cpuUsage();
  const found = sources.map((s) => index.find(s.text));
  const c2 = process.cpuUsage();
  const ms = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage): number => (b.user + b.system - a.user - a.system) / 1000;
  return { indexCpu: ms(c0, c1), matchCpu: ms(c1, c2), found: JSON.stringify(found) };
}

async function main(): Promise<void> {
  const context = makeContext();
  const contextFile = join(work, 'context.txt');
  writeFileSync(contextFile, context);
  const turns = [
    'print(context.slice(0, 2000));',
    `const size = Math.ceil(context.length / ${calls});\nconst parts = [];\nfor (let i = 0; i < context.length; i += size) parts.push('Summarise this part:\\n' + context.slice(i, i + size));\nconst replies = llm_query_batched(parts);\nprint(replies.length);`,
    "const line = context.split('\\n').find((l) => l.includes('secret access code'));\nprint(line);",
    'answer.content = "7-ALPHA-2931";\nanswer.ready = true;',
  ];
  const script = writeScript(
    work,
    'coverage',
    turns.map((code, i) => ({ match: { kind: 'rlm', turn: i + 1 }, reply: repl(code) })),
  );
  const mock = await startMock(['--latency-ms', '0', '--script', script]);
  const logDir = join(work, 'runs');
  try {
    log(`coverage: running a session over ${sizeMb} MB with ${calls} sub-calls`);
    cli([
      'run',
      '--context',
      contextFile,
      '--query',
      'q',
      '--base-url',
      mock.url,
      '--model',
      'mock-root',
      '--max-concurrency',
      '64',
      '--log-dir',
      logDir,
      '--json',
    ]);
  } finally {
    await mock.close();
  }
  const logFile = join(
    logDir,
    readdirSync(logDir).find((f) => f.endsWith('.rlm.jsonl'))!,
  );
  const logMb = statSync(logFile).size / MB;

  log('coverage: whole process, 3 runs');
  const wall: number[] = [];
  let report: ReturnType<typeof summarizeCoverage> | null = null;
  for (let i = 0; i < 3; i++) {
    const r = cli(['coverage', logFile, '--context', contextFile, '--json']);
    wall.push(r.ms);
    report = JSON.parse(r.stdout) as ReturnType<typeof summarizeCoverage>;
  }

  log('coverage: phases in this process');
  const t0 = performance.now();
  const state = createTrajectoryState();
  for await (const batch of readLogBatches(logFile)) for (const item of batch) if (item.kind === 'event') applyEvent(state, item.event);
  const t1 = performance.now();
  const text = await readFile(contextFile, 'utf8');
  const t2 = performance.now();
  const index = new AnchorIndex(text);
  const t3 = performance.now();
  const sources = coverageSources(state);
  const spans = sources.flatMap((s) => sourceSpans(index, s));
  const t4 = performance.now();
  const inProcess = summarizeCoverage(text.length, coverageRuns(state), spans);
  const t5 = performance.now();
  // A yardstick measured alongside, for a machine shared with other work: one pass reading
  // every character of the context (the least any exact matcher must do; the index reads
  // each once, the matching each copied one about twice).
  let newlines = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) newlines++;
  const t6 = performance.now();
  const loadNow = loadavg()[0]!;
  const scanned = sources.reduce((n, s) => n + s.text.length, 0);

  const s = report!.session;
  const lines = [
    `## Context coverage (${sizeMb} MB context of seeded filler prose, ${calls} sub-calls; goal < 5 s)`,
    '',
    `A session run by \`rlm-studio run\` against mock-llm: the root prints the first 2,000 characters, sends the whole context to \`llm_query_batched\` in ${calls} chunks, prints the needle line, answers. Log ${r2(logMb)} MB; ${r2(scanned / MB)} MB of shown output and prompts scanned; anchors of 16 characters every 16 (copies of at least ${MIN_SPAN_CHARS} characters counted).`,
    '',
    '| phase | ms |',
    '| --- | --- |',
    `| \`rlm-studio coverage LOG --context FILE --json\`, whole process (median of 3: ${wall.map((x) => Math.round(x)).join(', ')}) | ${Math.round(median(wall))} |`,
    `| in process: read the log and build the run tree | ${Math.round(t1 - t0)} |`,
    `| in process: read the context | ${Math.round(t2 - t1)} |`,
    `| in process: index the context | ${Math.round(t3 - t2)} |`,
    `| in process: match ${sources.length} texts | ${Math.round(t4 - t3)} |`,
    `| in process: figures per run and session | ${Math.round(t5 - t4)} |`,
    `| coverage alone (index + match + figures) | ${Math.round(t5 - t2)} |`,
    `| yardstick: one pass reading every character of the context (counting its ${newlines} newlines) | ${Math.round(t6 - t5)} (coverage alone = ${r2((t5 - t2) / (t6 - t5))} × it) |`,
    '',
    `Machine: ${cpus().length} cores shared with other work, load average ${r2(loadNow)} at the end; times on it move by a factor of 3 between runs, the ratio to the yardstick much less.`,
    '',
    `Result: contextChars ${s.contextChars}, seenByRootChars ${s.seenByRootChars}, sentToSubcallsChars ${s.sentToSubcallsChars}, unseenChars ${s.unseenChars}; ${inProcess.spans.length} spans (the same figures in process: ${JSON.stringify(inProcess.session) === JSON.stringify(s)}).`,
  ];
  if (args.before) lines.push('', ...(await beforeAndAfter(args.before, logFile, contextFile, text, sources)));
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** The same command and index of another checkout beside ours, three rounds alternating. */
async function beforeAndAfter(
  before: string,
  logFile: string,
  contextFile: string,
  text: string,
  sources: { text: string }[],
): Promise<string[]> {
  log(`coverage: before (${before}) and after, 3 rounds alternating`);
  const mods: Record<'before' | 'after', IndexModule> = {
    before: (await import(join(before, 'src-shared/analysis/anchor-index.ts'))) as IndexModule,
    after: { AnchorIndex },
  };
  const dirs = { before, after: root };
  type Round = { ms: number; cpuMs: number; indexCpu: number; matchCpu: number };
  const rows: Record<'before' | 'after', Round[]> = { before: [], after: [] };
  const outputs: Record<string, string> = {};
  for (let round = 0; round < 3; round++) {
    for (const side of ['before', 'after'] as const) {
      const whole = coverageFromSources(dirs[side], [logFile, '--context', contextFile, '--json']);
      const phases = indexAndMatch(mods[side], text, sources);
      rows[side].push({ ms: whole.ms, cpuMs: whole.cpuMs, indexCpu: phases.indexCpu, matchCpu: phases.matchCpu });
      const { log: _log, ...report } = JSON.parse(whole.stdout) as Record<string, unknown>;
      outputs[`${side}-report`] = JSON.stringify(report);
      outputs[`${side}-found`] = phases.found;
    }
  }
  const med = (side: 'before' | 'after', k: 'ms' | 'cpuMs' | 'indexCpu' | 'matchCpu'): number =>
    Math.round(median(rows[side].map((r) => r[k])));
  const row = (label: string, k: 'ms' | 'cpuMs' | 'indexCpu' | 'matchCpu'): string =>
    `| ${label} | ${med('before', k)} | ${med('after', k)} | ${r2(med('after', k) / med('before', k))} |`;
  return [
    `Before and after, side by side (before: \`${before}\`; 3 rounds alternating, medians; both commands from their sources with a compile cache):`,
    '',
    '| ms | before | after | after ÷ before |',
    '| --- | --- | --- | --- |',
    row('`rlm-studio coverage LOG --context FILE --json`, whole process, wall', 'ms'),
    row('the same, CPU (user + system)', 'cpuMs'),
    row('in process: index the context, CPU', 'indexCpu'),
    row(`in process: match the ${sources.length} texts, CPU`, 'matchCpu'),
    '',
    `Same output: the command's JSON ${outputs['before-report'] === outputs['after-report']}, every copy found in process ${outputs['before-found'] === outputs['after-found']}.`,
  ];
}

try {
  await main();
} finally {
  if (args.keep) log(`coverage: kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
