// The whole command line side by side with the reference Python library (alexzhang13/rlm, see
// reference-lib.ts) on DESIGN.md's three "Numbers to beat" cases at 300 ms per call:
// `./bin/rlm-studio run … --json` from spawn to exit, alternating in every round with the
// reference's `RLM.completion` in a fresh `python3`, both against one mock-llm serving the same
// scripted replies (ours in JavaScript, the reference's in Python; the sub-call prompts are the
// same bytes). The mock runs in this process so that it can timestamp each request: each run
// splits into start (spawn → first request), the calls (first request → last reply) and exit
// (last reply → exit). Every run is checked to do the same work as the other side: the same
// number of requests of each kind, the same context length printed by the first block, the
// same sub-call prompts, and the right answer. Ratios are reported, never asserted.
// Run: node --no-node-snapshot bench/cli-vs-reference.ts [--rounds 7] [--write]
// (--write puts the section into bench/RESULTS.md between its markers).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { needleContext, ticketsContext } from '../src-main/demo/contexts.ts';
import { classify, type Policy } from '../src-main/mock-llm/policy.ts';
import { parseScript, scriptPolicy } from '../src-main/mock-llm/policies/script.ts';
import { startMockLlm, type MockLlmServer } from '../src-main/mock-llm/server.ts';
import { ensureCliBuilt } from '../src-main/cli/cli-build.ts';
import { withHugePageMalloc } from '../src-main/sandbox/huge-pages.ts';
import { log, median, needleRules, r2, r3, repl, root, type ScriptRule } from './lib.ts';
import { prepareReference, type ReferenceLib } from './reference-lib.ts';
import { upsertSection } from './sections.ts';

export const SECTION_ID = 'cli-vs-reference';
const LATENCY_MS = 300;
/** Our model name and the reference's: one mock serves both scripts, each side's turns matched by it. */
const OURS_MODEL = 'mock-root';
const REF_MODEL = 'mock-root-py';
/** Ours with the Python REPL, given the reference's Python blocks. */
const OURS_PY_MODEL = 'mock-root-studio-py';

/** The aggregation in both languages: inspect; 17 counting calls in one batch and one combining call; submit. */
function aggregationRules(model: string, language: 'javascript' | 'python'): ScriptRule[] {
  const turns =
    language === 'javascript'
      ? [
          "const items = context.split('\\n');\nprint(context.length, items.length, JSON.stringify(items.slice(0, 2)));",
          "const per = Math.ceil(items.length / 17);\nconst chunks = [];\nfor (let i = 0; i < items.length; i += per) chunks.push(items.slice(i, i + per).join('\\n'));\nconst counts = llm_query_batched(chunks.map((c) => 'TASK: count-labels\\nITEMS:\\n' + c));\nlet total = 0;\nfor (const r of counts) total += JSON.parse(r).billing || 0;\nconst note = llm_query('TASK: summarise\\nTEXT:\\n' + counts.join('\\n'));\nprint(chunks.length, total, note.slice(0, 80));",
          'answer.content = String(total);\nanswer.ready = true;',
        ]
      : [
          "items = context.split('\\n')\nprint(len(context), len(items), items[:2])",
          "import json\nper = -(-len(items) // 17)\nchunks = ['\\n'.join(items[i:i + per]) for i in range(0, len(items), per)]\ncounts = llm_query_batched(['TASK: count-labels\\nITEMS:\\n' + c for c in chunks])\ntotal = sum(json.loads(r).get('billing', 0) for r in counts)\nnote = llm_query('TASK: summarise\\nTEXT:\\n' + '\\n'.join(counts))\nprint(len(chunks), total, note[:80])",
          'answer["content"] = str(total)\nanswer["ready"] = True',
        ];
  return turns.map((code, i) => ({ match: { kind: 'rlm', turn: i + 1, model }, reply: repl(code) }));
}

const withModel = (rules: ScriptRule[], model: string): ScriptRule[] => rules.map((r) => ({ ...r, match: { ...r.match, model } }));

export interface Case {
  name: string;
  file: string;
  /** Characters of the context (the first block prints them on both sides). */
  chars: number;
  query: string;
  expect: string;
  /** Requests per run: RLM turns and sub-calls. */
  turns: number;
  subCalls: number;
  /** Of the sub-calls, how many one `llm_query_batched` makes (the rest one after another). */
  batch: number;
  floorS: number;
  rules: ScriptRule[];
}

export function cases(work: string): Case[] {
  const tickets = ticketsContext(2000, 42);
  const aggText = tickets.items.join('\n');
  const aggFile = join(work, 'tickets.txt');
  writeFileSync(aggFile, aggText);
  const needles = [4, 40].map((mb): Case => {
    const ctx = needleContext(mb * 1_000_000, 42);
    const file = join(work, `needle-${mb}.txt`);
    writeFileSync(file, ctx.text);
    return {
      name: `${mb} MB needle search`,
      file,
      chars: ctx.text.length,
      query: 'What is the magic number?',
      expect: ctx.answer,
      turns: 3,
      subCalls: 0,
      batch: 0,
      floorS: 0.9,
      rules: [
        ...withModel(needleRules('javascript'), OURS_MODEL),
        ...withModel(needleRules('python'), REF_MODEL),
        ...withModel(needleRules('python'), OURS_PY_MODEL),
      ],
    };
  });
  return [
    {
      name: '21-call batched aggregation',
      file: aggFile,
      chars: aggText.length,
      query: 'How many tickets have the label billing?',
      expect: String(tickets.counts['billing']),
      turns: 3,
      subCalls: 18,
      batch: 17,
      // Critical path: 3 turns, the batch of 17 (concurrent), the combining call.
      floorS: 1.5,
      rules: [
        ...aggregationRules(OURS_MODEL, 'javascript'),
        ...aggregationRules(REF_MODEL, 'python'),
        ...aggregationRules(OURS_PY_MODEL, 'python'),
      ],
    },
    ...needles,
  ];
}

/** Both sides' default cap on a batch's calls in flight (ours: maxConcurrencyLlm; the reference: LMHandler's batch_max_concurrent). */
const DEFAULT_CONCURRENCY = 16;

/**
 * The model's own time in a run: the calls on the critical path times the mock's latency, with
 * a batch in waves of `concurrency` calls. What a run takes beyond it is the side's overhead.
 */
export function modelSeconds(c: Pick<Case, 'turns' | 'subCalls' | 'batch'>, concurrency: number): number {
  const waves = c.batch > 0 ? Math.ceil(c.batch / concurrency) : 0;
  return ((c.turns + waves + (c.subCalls - c.batch)) * LATENCY_MS) / 1000;
}

export interface Arrival {
  at: number;
  kind: string;
  model: string;
  /** The REPL output shown in this turn (RLM turns), or the prompt (sub-calls). */
  text: string;
}

/** A mock whose policy notes when each request arrived and what it carried. */
export async function timedMock(rules: ScriptRule[]): Promise<{ mock: MockLlmServer; arrivals: Arrival[] }> {
  const inner: Policy = scriptPolicy(parseScript({ rules, fallback: 'scenarios' }, 'cli-vs-reference'));
  const arrivals: Arrival[] = [];
  const policy: Policy = (req) => {
    const at = performance.now();
    const c = classify(req);
    arrivals.push({ at, kind: c.kind, model: req.model, text: c.kind === 'sub' ? c.lastUser : (c.replOutputs[0] ?? '') });
    return inner(req);
  };
  return { mock: await startMockLlm({ latencyMs: LATENCY_MS, policy }), arrivals };
}

interface RunResult {
  answer: string;
  calls: number;
  wallS: number;
  cpuS: number | null;
  t0: number;
}

const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

/**
 * Spawns a process and times it to exit (asynchronously: the mock answers from this process);
 * with /usr/bin/time, also its CPU (user + system, children included), which other work on the
 * machine moves far less than wall time.
 */
function timedSpawn(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cpuFile: string,
): Promise<{ out: string; wallS: number; cpuS: number | null; t0: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = TIME
      ? spawn(TIME, ['-o', cpuFile, '-f', '%U %S', command, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallS = (performance.now() - t0) / 1000;
      if (code !== 0) return reject(new Error(`${command} exited with ${code}: ${err.slice(-2000)}`));
      const cpu = TIME ? /^(\d+\.\d+) (\d+\.\d+)$/m.exec(readFileSync(cpuFile, 'utf8')) : null;
      resolve({ out, wallS, cpuS: cpu ? Number(cpu[1]) + Number(cpu[2]) : null, t0 });
    });
  });
}

interface Side {
  name: string;
  model: string;
  /** Its cap on a batch's calls in flight. */
  concurrency: number;
  go(url: string, c: Case): Promise<RunResult>;
}

/** The sides, in the order `runCase` indexes them; `baseline`: also ours from another checkout (a before/after in the same rounds). */
function sides(reference: ReferenceLib, work: string, baseline: string | null): Side[] {
  const cpuFile = join(work, 'cpu.txt');
  // Each side at its own defaults; ours also with the batch's cap raised (`concurrency`).
  const oursWith = (language: 'javascript' | 'python', model: string, concurrency = DEFAULT_CONCURRENCY, tree = root): Side => ({
    name: `rlm-studio run (${language === 'python' ? 'Python' : 'JavaScript'} REPL${concurrency !== DEFAULT_CONCURRENCY ? `, --max-concurrency ${concurrency}` : ''}${tree !== root ? `, from ${tree}` : ''})`,
    model,
    concurrency,
    async go(url, c) {
      const args = ['run', '--context', c.file, '--query', c.query, '--base-url', url, '--model', model, '--repl', language];
      const raised = concurrency !== DEFAULT_CONCURRENCY ? ['--max-concurrency', String(concurrency)] : [];
      const run = await timedSpawn(join(tree, 'bin/rlm-studio'), [...args, ...raised, '--json'], process.env, cpuFile);
      const res = JSON.parse(run.out) as { answer: string; usage: { calls: number } };
      return { ...run, answer: res.answer, calls: res.usage.calls };
    },
  });
  const referenceSide = (name: string, env: (e: NodeJS.ProcessEnv) => NodeJS.ProcessEnv): Side => ({
    name,
    model: REF_MODEL,
    concurrency: DEFAULT_CONCURRENCY,
    async go(url, c) {
      const cmd = reference.command(url, c.file, c.query, REF_MODEL);
      const run = await timedSpawn(cmd.file, cmd.args, env(cmd.env), cpuFile);
      const res = JSON.parse(run.out.trim().split('\n').at(-1) ?? '{}') as { answer: string; calls: number };
      return { ...run, answer: res.answer, calls: res.calls };
    },
  });
  // The reference as its users run it, and with the same malloc setting as ours: on this VM a
  // process that faulted in 40 MB of contexts on 4 KiB pages takes ~0.5 s to exit, and ours
  // would get credit for an environment variable rather than for what it does.
  // In this order: the rows of `runCase` are indexed so.
  return [
    oursWith('javascript', OURS_MODEL),
    referenceSide(`reference (Python ${reference.python})`, withoutHugePageMalloc),
    referenceSide(`reference (Python ${reference.python}), malloc on huge pages`, (e) => withHugePageMalloc(e)),
    oursWith('python', OURS_PY_MODEL),
    oursWith('javascript', OURS_MODEL, RAISED_CONCURRENCY),
    ...(baseline ? [oursWith('javascript', OURS_MODEL, DEFAULT_CONCURRENCY, baseline)] : []),
  ];
}

/** Ours once more with the batch's cap raised above its size (all 17 at once), as the benchmark ran before. */
const RAISED_CONCURRENCY = 32;

/** `env` without a hugetlb setting in GLIBC_TUNABLES (one the bench itself was started with). */
export function withoutHugePageMalloc(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const kept = (env['GLIBC_TUNABLES'] ?? '').split(':').filter((t) => t !== '' && !t.startsWith('glibc.malloc.hugetlb='));
  const { GLIBC_TUNABLES: _, ...rest } = env;
  return kept.length > 0 ? { ...rest, GLIBC_TUNABLES: kept.join(':') } : rest;
}

interface Sample {
  wallS: number;
  overheadS: number;
  cpuS: number | null;
  startS: number;
  callsS: number;
  exitS: number;
}

interface SideRow {
  side: string;
  wallS: number;
  /** User + system CPU of the whole process tree; null without /usr/bin/time. */
  cpuS: number | null;
  startS: number;
  callsS: number;
  exitS: number;
  vsFloor: number;
  /** The model's time at this side's concurrency (`modelSeconds`), and the median of wall − that. */
  modelS: number;
  overheadS: number;
}

export interface CaseRow {
  name: string;
  requests: number;
  floorS: number;
  chars: number;
  ours: SideRow;
  reference: SideRow;
  /** The reference with glibc's malloc asked for huge pages, as ours runs (`withHugePageMalloc`). */
  referenceHuge: SideRow;
  /** Median over rounds of ours ÷ reference within the round. */
  vsReference: number;
  /** The same against the reference on huge pages. */
  vsReferenceHuge: number;
  /** Median over rounds of ours' overhead ÷ the reference's within the round (goal ≤ 0.5). */
  overheadVsReference: number;
  /** With `--baseline DIR`: ours from that checkout at its defaults, and ours ÷ it within each round. */
  baseline?: { row: SideRow; vsReference: number; overheadVsReference: number; oursVsBaseline: number };
  /** Ours with the batch's cap raised (RAISED_CONCURRENCY). */
  oursRaised: SideRow;
  raisedVsReference: number;
  raisedOverheadVsReference: number;
  /** Ours with the Python REPL, the same blocks as the reference's. */
  oursPython: SideRow;
  /** Median over rounds of ours (Python REPL) ÷ reference, and ÷ reference on huge pages. */
  pythonVsReference: number;
  pythonVsReferenceHuge: number;
  sameWork: string;
}

/** Checks one run's requests against the case; returns the sub-call prompts (to compare between the sides). */
export function checkWork(
  c: Pick<Case, 'name' | 'chars' | 'expect' | 'turns' | 'subCalls'>,
  side: Pick<Side, 'name' | 'model'>,
  res: Pick<RunResult, 'answer' | 'calls'>,
  arrivals: Arrival[],
): string[] {
  const turns = arrivals.filter((a) => a.kind === 'rlm');
  const subs = arrivals.filter((a) => a.kind === 'sub');
  const problems: string[] = [];
  if (res.answer !== c.expect) problems.push(`answer ${JSON.stringify(res.answer)}, not ${c.expect}`);
  if (turns.length !== c.turns || subs.length !== c.subCalls)
    problems.push(`${turns.length} turns and ${subs.length} sub-calls, not ${c.turns} and ${c.subCalls}`);
  if (res.calls !== c.turns + c.subCalls) problems.push(`it counted ${res.calls} calls`);
  if (arrivals.some((a) => a.kind !== 'sub' && a.model !== side.model)) problems.push('a turn came with the other side’s model name');
  // The first block prints the context's length: the second turn must show it.
  if (!turns[1]?.text.includes(String(c.chars))) problems.push(`the first block did not print a context of ${c.chars} characters`);
  if (problems.length > 0) throw new Error(`${side.name} on ${c.name}: ${problems.join('; ')}`);
  return subs.map((s) => s.text).sort();
}

async function runCase(c: Case, all: Side[], rounds: number): Promise<CaseRow> {
  const { mock, arrivals } = await timedMock(c.rules);
  const samples = all.map(() => [] as Sample[]);
  const prompts: string[][] = all.map(() => []);
  try {
    // One untimed run each (compile caches, __pycache__, the page cache), then alternating rounds.
    for (let round = 0; round <= rounds; round++) {
      for (const [k, side] of all.entries()) {
        arrivals.length = 0;
        const res = await side.go(mock.url, c);
        prompts[k] = checkWork(c, side, res, arrivals);
        if (round === 0) continue;
        const first = arrivals[0]!.at;
        const lastReply = Math.max(...arrivals.map((a) => a.at)) + LATENCY_MS;
        const end = res.t0 + res.wallS * 1000;
        samples[k]!.push({
          wallS: res.wallS,
          overheadS: res.wallS - modelSeconds(c, side.concurrency),
          cpuS: res.cpuS,
          startS: (first - res.t0) / 1000,
          callsS: (lastReply - first) / 1000,
          exitS: (end - lastReply) / 1000,
        });
      }
      if (prompts.some((p) => JSON.stringify(p) !== JSON.stringify(prompts[0])))
        throw new Error(`${c.name}: the sides sent different sub-call prompts`);
    }
  } finally {
    await mock.close();
  }
  const row = (k: number): SideRow => {
    const s = samples[k]!;
    const wallS = median(s.map((x) => x.wallS));
    const cpus = s.flatMap((x) => (x.cpuS === null ? [] : [x.cpuS]));
    return {
      side: all[k]!.name,
      wallS: r3(wallS),
      cpuS: cpus.length > 0 ? r3(median(cpus)) : null,
      startS: r3(median(s.map((x) => x.startS))),
      callsS: r3(median(s.map((x) => x.callsS))),
      exitS: r3(median(s.map((x) => x.exitS))),
      vsFloor: r2(wallS / c.floorS),
      modelS: r3(modelSeconds(c, all[k]!.concurrency)),
      overheadS: r3(median(s.map((x) => x.overheadS))),
    };
  };
  const vs = (k: number, j = 0): number => r2(median(samples[j]!.map((s, i) => s.wallS / samples[k]![i]!.wallS)));
  const overheadVs = (k: number, j: number): number => r2(median(samples[j]!.map((s, i) => s.overheadS / samples[k]![i]!.overheadS)));
  const result: CaseRow = {
    name: c.name,
    requests: c.turns + c.subCalls,
    floorS: c.floorS,
    chars: c.chars,
    ours: row(0),
    reference: row(1),
    referenceHuge: row(2),
    vsReference: vs(1),
    vsReferenceHuge: vs(2),
    overheadVsReference: overheadVs(1, 0),
    oursRaised: row(4),
    raisedVsReference: vs(1, 4),
    raisedOverheadVsReference: overheadVs(1, 4),
    oursPython: row(3),
    ...(all.length > 5
      ? { baseline: { row: row(5), vsReference: vs(1, 5), overheadVsReference: overheadVs(1, 5), oursVsBaseline: vs(5, 0) } }
      : {}),
    pythonVsReference: vs(1, 3),
    pythonVsReferenceHuge: vs(2, 3),
    sameWork: `${c.turns} turns + ${c.subCalls} sub-calls each, ${c.chars.toLocaleString('en')} characters printed by the first block, ${c.subCalls > 0 ? 'identical sub-call prompts, ' : ''}right answer`,
  };
  log(
    `${c.name}: ours ${result.ours.wallS} s (overhead ${result.ours.overheadS} s), reference ${result.reference.wallS} s (overhead ${result.reference.overheadS} s; ratios ${result.vsReference}, overhead ${result.overheadVsReference}); ours at --max-concurrency ${RAISED_CONCURRENCY} ${result.oursRaised.wallS} s (overhead ${result.oursRaised.overheadS} s), on huge pages ${result.referenceHuge.wallS} s (ratio ${result.vsReferenceHuge}); ours with the Python REPL ${result.oursPython.wallS} s (ratios ${result.pythonVsReference}, ${result.pythonVsReferenceHuge})`,
  );
  return result;
}

export interface CliVsReference {
  date: string;
  rounds: number;
  loadAtStart: number;
  loadAtEnd: number;
  source: string;
  rows: CaseRow[];
}

export async function cliVsReference(rounds: number, baseline: string | null = null): Promise<CliVsReference | { unavailable: string }> {
  const work = mkdtempSync(join(tmpdir(), 'rlm-cli-vs-ref-'));
  try {
    const reference = prepareReference(work);
    if ('unavailable' in reference) return reference;
    await ensureCliBuilt();
    const loadAtStart = r2(loadavg()[0] ?? 0);
    const rows: CaseRow[] = [];
    for (const c of cases(work)) rows.push(await runCase(c, sides(reference, work, baseline), rounds));
    return { date: new Date().toISOString(), rounds, loadAtStart, loadAtEnd: r2(loadavg()[0] ?? 0), source: reference.source, rows };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export function cliVsReferenceMarkdown(r: CliVsReference): string {
  const s = (x: number): string => `${x.toFixed(2)}`;
  const cpu = (x: SideRow): string => (x.cpuS === null ? '–' : `${s(x.cpuS)} s`);
  const wall = (x: SideRow): string => `${s(x.wallS)} s (${s(x.startS)} / ${s(x.callsS)} / ${s(x.exitS)})`;
  const over = (x: SideRow): string => `${s(x.overheadS)} s (model ${s(x.modelS)} s)`;
  const oursRows = (x: CaseRow): string[] => [
    `| ${x.name} | defaults | ${wall(x.ours)} | ${over(x.ours)} | ${wall(x.reference)} | ${over(x.reference)} | ${x.vsReference} | **${x.overheadVsReference}** | ${wall(x.referenceHuge)}, overhead ${s(x.referenceHuge.overheadS)} s | ${x.vsReferenceHuge} | ${x.ours.vsFloor} | ${cpu(x.reference)} / ${cpu(x.ours)} |`,
    ...(x.baseline
      ? [
          `| ${x.name} | defaults, the baseline checkout (ours ÷ it: ${x.baseline.oursVsBaseline}) | ${wall(x.baseline.row)} | ${over(x.baseline.row)} | (same rounds) | | ${x.baseline.vsReference} | ${x.baseline.overheadVsReference} | | | ${x.baseline.row.vsFloor} | – / ${cpu(x.baseline.row)} |`,
        ]
      : []),
    `| ${x.name} | --max-concurrency ${RAISED_CONCURRENCY} | ${wall(x.oursRaised)} | ${over(x.oursRaised)} | (same rounds) | | ${x.raisedVsReference} | ${x.raisedOverheadVsReference} | | | ${x.oursRaised.vsFloor} | – / ${cpu(x.oursRaised)} |`,
  ];
  const lines = [
    '## Whole process beside the reference library (300 ms per call)',
    '',
    `\`node --no-node-snapshot bench/cli-vs-reference.ts --rounds ${r.rounds}\` on ${r.date.slice(0, 10)}, load average ${r.loadAtStart} at start and ${r.loadAtEnd} at the end (2 cores shared with other work; rounds alternate, so it falls on both). Ours: \`./bin/rlm-studio run … --json\` at its defaults, and in the same rounds with \`--max-concurrency ${RAISED_CONCURRENCY}\` (the second row of each case), spawn to exit. Reference: ${r.source}, \`RLM.completion\` with the local REPL in a fresh \`python3\` per run, at its defaults. Both sides' default cap on a batch's calls in flight is ${DEFAULT_CONCURRENCY} (ours \`maxConcurrencyLlm\`, the reference's \`LMHandler.batch_max_concurrent\`), so at the defaults the aggregation's batch of 17 goes in two waves on both sides. The reference runs twice in each round: as its users run it, and with glibc's malloc asked for transparent huge pages (\`GLIBC_TUNABLES=glibc.malloc.hugetlb=1\`) as \`bin/rlm-studio\` asks for ours; on this VM a process that touched tens of MB of fresh memory exits far sooner that way. One mock-llm (in the bench process, so it can timestamp requests) serves all sides the same scripted replies: ours in JavaScript (the first table) and in Python (the second, the same blocks as the reference's), theirs in Python. Medians of ${r.rounds} rounds after one untimed run each; start = spawn → first request, calls = first request → last reply, exit = last reply → exit; model = the mock's 300 ms times the calls on the critical path at that side's cap (a batch in waves), overhead = wall − model; the ratios are medians of the ratios within each round; CPU = user + system of the whole process (\`/usr/bin/time\`; Python's threads and our bash launcher included; not our sandbox process, which \`run\` does not wait for), which other work moves far less than wall time. Goals: issue 16, ours ÷ reference ≤ 0.8 and ours ÷ floor ≤ 1.3; issue 41, ours' overhead ÷ the reference's ≤ 0.5 (in bold).`,
    '',
    '| case | ours at | ours: wall (start / calls / exit) | ours: overhead | reference: wall (start / calls / exit) | reference: overhead | ours ÷ reference | overhead ÷ reference’s | reference on huge pages | ours ÷ reference on huge pages | ours ÷ floor | CPU: reference / ours |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...r.rows.flatMap(oursRows),
    '',
    'Ours with the Python REPL (`--repl python`, defaults), given the same Python blocks as the reference, in the same rounds:',
    '',
    '| case | ours, Python REPL: wall (start / calls / exit) | overhead | ÷ reference | ÷ reference on huge pages | ÷ floor | CPU (`run` only: the interpreter runs in its sandbox process) |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...r.rows.map(
      (x) =>
        `| ${x.name} | ${wall(x.oursPython)} | ${over(x.oursPython)} | ${x.pythonVsReference} | ${x.pythonVsReferenceHuge} | ${x.oursPython.vsFloor} | ${cpu(x.oursPython)} |`,
    ),
    '',
    `Same work, checked on every run from the requests the mock received: ${r.rows.map((x) => `${x.name}: ${x.sameWork}`).join('; ')}.`,
  ];
  return lines.join('\n');
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { rounds: { type: 'string', default: '7' }, write: { type: 'boolean', default: false }, baseline: { type: 'string' } },
  });
  const res = await cliVsReference(Number(values.rounds), values.baseline ?? null);
  if ('unavailable' in res) {
    log(`not side by side: ${res.unavailable}`);
    process.exitCode = 1;
  } else {
    const md = cliVsReferenceMarkdown(res);
    process.stdout.write(`${md}\n`);
    if (values.write) {
      const path = join(root, 'bench/RESULTS.md');
      writeFileSync(path, upsertSection(readFileSync(path, 'utf8'), SECTION_ID, md));
      log(`wrote the ${SECTION_ID} section of ${path}`);
    }
  }
}
