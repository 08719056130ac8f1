// `node --no-node-snapshot bench/coverage.ts [--mb 100] [--calls 2000]`: the context coverage
// map (issue 13 part 1; goal: 100 MB with 2,000 sub-calls in under 5 s). A real session makes
// the log: `rlm-studio run` against mock-llm prints the head, sends the whole context to
// `llm_query_batched` in CALLS chunks, prints the needle line, answers. The context is the
// evaluation tasks' seeded filler prose (12 words over and over: the hardest case for anchors,
// which repeat everywhere). Then `rlm-studio coverage` on it, whole process, and the same
// phases in this process. Prints a Markdown section for bench/RESULTS.md (--keep keeps the
// log and context in a temp folder).
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
  process.stdout.write(`${lines.join('\n')}\n`);
}

try {
  await main();
} finally {
  if (args.keep) log(`coverage: kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
