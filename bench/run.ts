// `npm run bench [-- --quick] [-- --out FILE] [-- --json FILE]`: performance figures against
// mock-llm with a fixed per-call latency. Ratios are reported, never asserted. The full run
// writes bench/RESULTS.md; --quick (CI, about a minute) writes a smaller report of the same shape.
// See bench/README.md for what each figure means.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, freemem, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { makeHeader } from '../src-shared/codecs/native-lines.ts';
import { asSessionId, type TrajectoryEvent } from '../src-shared/events.ts';
import { applyEvent, createTrajectoryState, criticalPath, reduceEvents } from '../src-shared/trajectory/index.ts';
import { needleContext, ticketsContext } from '../src-main/demo/contexts.ts';
import { EventRecorder, RlmConversation } from '../src-main/engine/index.ts';
import { generateTask, TASK_KINDS, scoreAnswer, type TaskKind } from '../src-main/eval/tasks/index.ts';
import { OpenAiCompatibleClient } from '../src-main/lm/openai-client.ts';
import { NativeLogFile } from '../src-main/logs/native-file-sink.ts';
import { readLogBatches } from '../src-main/logs/read-log.ts';
import { createIsolatedRepl } from '../src-main/sandbox/isolated-repl.ts';
import type { SandboxValue, SubcallBridge } from '../src-main/sandbox/types.ts';
import {
  log,
  MB,
  median,
  needleRules,
  step,
  watchMainThread,
  r2,
  r3,
  repl,
  root,
  startMock,
  writeScript as writeScriptIn,
  type ScriptRule,
} from './lib.ts';
import { exitProcess } from '../src-main/sandbox/python/lifecycle.ts';
import { pythonBench, pythonMarkdown } from './python.ts';
import { policyBench, policyMarkdown } from './policy-metrics.ts';
import { carryOver } from './sections.ts';
import { contextScaleChild, type Pages } from './context-scale.ts';

const { values: args } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, out: { type: 'string' }, json: { type: 'string' } },
});
const quick = args.quick ?? false;
const work = mkdtempSync(join(tmpdir(), 'rlm-bench-'));
const writeScript = (name: string, rules: ScriptRule[]): string => writeScriptIn(work, name, rules);

async function session(url: string, context: SandboxValue, query: string, maxDepth = 1, maxConcurrency = 8) {
  const events: TrajectoryEvent[] = [];
  const client = new OpenAiCompatibleClient({ baseUrl: url, apiKey: 'bench', maxRetries: 0 });
  const s = new RlmConversation(
    { client, model: 'mock-root', maxDepth, maxConcurrency },
    { sink: new EventRecorder((e) => events.push(e)) },
  );
  const t0 = performance.now();
  try {
    const outcome = await s.completion(context, query);
    return { outcome, events, wallMs: performance.now() - t0 };
  } finally {
    s.close();
  }
}

// ---- 1. engine overhead --------------------------------------------------------------

interface OverheadRow {
  kind: TaskKind;
  sizeTokens: number;
  wallMs: number;
  pathCalls: number;
  floorMs: number;
  ratio: number;
  calls: number;
  correct: boolean;
}

async function engineOverhead(latencyMs: number, sizes: number[]): Promise<OverheadRow[]> {
  const mock = await startMock(['--latency-ms', String(latencyMs)]);
  const rows: OverheadRow[] = [];
  try {
    await session(mock.url, 'warm up', 'What is the special passcode for the amber-falcon vault?'); // JIT and connections
    for (const sizeTokens of sizes) {
      for (const kind of TASK_KINDS) {
        const task = generateTask(kind, sizeTokens, 1);
        const { outcome, events, wallMs } = await session(mock.url, task.context, task.query);
        const state = reduceEvents(events);
        const rootId = state.roots[0]!;
        // Model calls on the critical path, each costs exactly `latencyMs` at the server.
        const pathCalls = criticalPath(state, rootId).filter((s) => s.kind === 'model' || s.kind === 'llm').length;
        const floorMs = pathCalls * latencyMs;
        rows.push({
          kind,
          sizeTokens,
          wallMs: r2(wallMs),
          pathCalls,
          floorMs,
          ratio: r3(wallMs / floorMs),
          calls: outcome.usage.calls,
          correct: scoreAnswer(task.scorer, task.expected, outcome.answer).correct,
        });
        log(`overhead ${kind} 2^${Math.log2(sizeTokens)}: ${r3(wallMs / floorMs)}`);
      }
    }
  } finally {
    await mock.close();
  }
  return rows;
}

// ---- 2. concurrency --------------------------------------------------------------------

interface ConcurrencyRow {
  concurrency: number;
  calls: number;
  latencyMs: number;
  batchMs: number;
  idealMs: number;
  callsPerSec: number;
  idealCallsPerSec: number;
  ratio: number;
}

async function concurrency(calls: number, latencyMs: number, levels: number[]): Promise<ConcurrencyRow[]> {
  const script = writeScript('concurrency', [
    {
      match: { kind: 'rlm' },
      reply: repl(
        `const rs = llm_query_batched(Array.from({ length: ${calls} }, (_, i) => 'ping ' + i));\nprint(rs.length);\nanswer.content = String(rs.length);\nanswer.ready = true;`,
      ),
    },
    { match: { kind: 'sub' }, reply: 'pong' },
  ]);
  const mock = await startMock(['--latency-ms', String(latencyMs), '--script', script]);
  const rows: ConcurrencyRow[] = [];
  try {
    await session(mock.url, 'x', 'warm up', 1, 8);
    for (const c of levels) {
      const { events } = await session(mock.url, 'x', 'batch', 1, c);
      const block = events.find((e): e is Extract<TrajectoryEvent, { type: 'block.end' }> => e.type === 'block.end');
      const batchMs = block?.durationMs ?? Number.NaN;
      const idealMs = Math.ceil(calls / c) * latencyMs;
      rows.push({
        concurrency: c,
        calls,
        latencyMs,
        batchMs: r2(batchMs),
        idealMs,
        callsPerSec: r2((calls / batchMs) * 1000),
        idealCallsPerSec: r2((calls / idealMs) * 1000),
        ratio: r3(idealMs / batchMs),
      });
      log(`concurrency ${c}: ${r3(idealMs / batchMs)}`);
    }
  } finally {
    await mock.close();
  }
  return rows;
}

// ---- 3. context scale (one process per size) -----------------------------------------

async function contextScale(
  sizes: { mb: number; shape: 'string' | 'array' | 'file'; pages?: Pages }[],
): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  for (const s of sizes) {
    const row = await contextScaleChild(s.mb, s.shape, s.pages);
    rows.push(row);
    log(`context ${s.mb} MB ${s.shape} (${String(row['pages'])} pages): ${row['ok'] ? 'ok' : row['error']}`);
  }
  return rows;
}

// ---- 4. sandbox per-block overhead ----------------------------------------------------

async function sandbox(reps: number): Promise<Record<string, number>> {
  const bridge: SubcallBridge = {
    llmQuery: async () => '',
    llmQueryBatched: async (p) => p.map(() => ''),
    rlmQuery: async () => '',
    rlmQueryBatched: async (p) => p.map(() => ''),
  };
  const r = await createIsolatedRepl({ bridge });
  await r.addContext(0, needleContext(10 * MB, 3).text);
  const time = async (code: string): Promise<number> => {
    const xs: number[] = [];
    for (let i = 0; i < reps; i++) {
      const t0 = performance.now();
      const res = await r.execute(code, { iteration: 1, block: i });
      xs.push(performance.now() - t0);
      if (res.error) throw new Error(`${res.error.name}: ${res.error.message}`);
    }
    return r3(median(xs));
  };
  try {
    await time('1');
    return {
      emptyBlockMs: await time(''),
      print10KbMs: await time("print('x'.repeat(10240))"),
      regex10MbMs: await time('print((context.match(/magic number is \\d+/g) || []).length)'),
    };
  } finally {
    r.dispose();
  }
}

// ---- 5. log I/O ------------------------------------------------------------------------

async function logIo(events: number, bigMb: number): Promise<Record<string, number>> {
  const header = makeHeader(asSessionId('bench-session'), new Date());
  const recorder = new EventRecorder();
  const path = join(work, 'write.rlm.jsonl');
  const file = new NativeLogFile(path, header);
  recorder.listen((e) => file.append(e));
  const env = { runId: 'run-0', parentRunId: null, depth: 0 } as const;
  const prompt = 'TASK: count-labels\nITEMS:\n'.padEnd(400, 'x');
  const t0 = performance.now();
  for (let i = 0; i < events / 2; i++) {
    const callId = `call-${i}`;
    recorder.emit({
      type: 'subcall.start',
      ...env,
      runId: env.runId as never,
      callId: callId as never,
      iteration: 1,
      block: 0,
      kind: 'llm',
      leaf: false,
      prompt,
      model: 'm',
      batch: null,
      childRunId: null,
    });
    recorder.emit({
      type: 'subcall.end',
      ...env,
      runId: env.runId as never,
      callId: callId as never,
      response: '{"billing": 3}',
      error: null,
      usage: { inputTokens: 100, outputTokens: 5, costUsd: 0.0001 },
      latencyMs: 300,
    });
  }
  const writeMs = performance.now() - t0;
  file.close();

  // A big realistic log: a real session's events, repeated as further root runs of one file.
  const task = generateTask('oolong', 2 ** 14, 1);
  const mock = await startMock([]);
  let sample: TrajectoryEvent[];
  try {
    sample = (await session(mock.url, task.context, task.query)).events;
  } finally {
    await mock.close();
  }
  const bigPath = join(work, 'big.rlm.jsonl');
  const big = new NativeLogFile(bigPath, header);
  let bytes = 0;
  let seq = 0;
  for (let k = 0; bytes < bigMb * MB; k++) {
    for (const e of sample) {
      const copy = {
        ...e,
        seq: seq++,
        runId: `${e.runId}-${k}`,
        parentRunId: e.parentRunId === null ? null : `${e.parentRunId}-${k}`,
      } as TrajectoryEvent;
      big.append(copy);
      bytes += JSON.stringify(copy).length + 1;
    }
  }
  big.close();
  const t1 = performance.now();
  let read = 0;
  for await (const batch of readLogBatches(bigPath)) read += batch.length;
  const readMs = performance.now() - t1;
  const t2 = performance.now();
  const state = createTrajectoryState();
  for await (const batch of readLogBatches(bigPath)) for (const item of batch) if (item.kind === 'event') applyEvent(state, item.event);
  const treeMs = performance.now() - t2;
  return {
    eventsWritten: events,
    eventsPerSecWritten: Math.round((events / writeMs) * 1000),
    bigLogMb: r2(bytes / MB),
    eventsRead: read,
    readMbPerSec: r2(bytes / MB / (readMs / 1000)),
    treeBuildMs: Math.round(treeMs),
    runsInTree: state.runs.size,
  };
}

// ---- 6. DESIGN.md "Numbers to beat": whole-process `rlm-studio run` at 300 ms per call ---

interface VsReference {
  name: string;
  calls: number;
  floorS: number;
  referenceS: number;
  oursS: number;
  vsReference: number;
  vsFloor: number;
  answerOk: boolean;
}

async function numbersToBeat(reps: number): Promise<VsReference[]> {
  const latency = 300;
  // Needle: the reference's scripted model takes 3 calls (inspect, search, submit).
  const needleScript = writeScript('needle', needleRules('javascript'));
  // Aggregation, 21 calls with a 5-call floor: inspect; one batch of 17 counts (concurrent) and one
  // combining call; submit.
  const aggScript = writeScript('aggregate', [
    {
      match: { kind: 'rlm', turn: 1 },
      reply: repl("const items = context.split('\\n');\nprint(items.length, JSON.stringify(items.slice(0, 2)));"),
    },
    {
      match: { kind: 'rlm', turn: 2 },
      reply: repl(
        "const per = Math.ceil(items.length / 17);\nconst chunks = [];\nfor (let i = 0; i < items.length; i += per) chunks.push(items.slice(i, i + per).join('\\n'));\nconst counts = llm_query_batched(chunks.map((c) => 'TASK: count-labels\\nITEMS:\\n' + c));\nlet total = 0;\nfor (const r of counts) total += JSON.parse(r).billing || 0;\nconst note = llm_query('TASK: summarise\\nTEXT:\\n' + counts.join('\\n'));\nprint(chunks.length, total, note.slice(0, 80));",
      ),
    },
    { match: { kind: 'rlm', turn: 3 }, reply: repl('answer.content = String(total);\nanswer.ready = true;') },
  ]);
  const tickets = ticketsContext(2000, 42);
  const aggFile = join(work, 'tickets.txt');
  writeFileSync(aggFile, tickets.items.join('\n'));
  const cases = [
    {
      name: '21-call batched aggregation',
      script: aggScript,
      file: aggFile,
      query: 'How many tickets have the label billing?',
      expect: String(tickets.counts['billing']),
      calls: 21,
      floorS: 1.5,
      referenceS: 1.96,
    },
    ...[
      { mb: 4, referenceS: 1.36 },
      { mb: 40, referenceS: 2.24 },
    ].map((n) => {
      const ctx = needleContext(n.mb * 1_000_000, 42);
      const file = join(work, `needle-${n.mb}.txt`);
      writeFileSync(file, ctx.text);
      return {
        name: `${n.mb} MB needle search`,
        script: needleScript,
        file,
        query: 'What is the magic number?',
        expect: ctx.answer,
        calls: 3,
        floorS: 0.9,
        referenceS: n.referenceS,
      };
    }),
  ];
  const rows: VsReference[] = [];
  for (const c of cases) {
    const mock = await startMock(['--latency-ms', String(latency), '--script', c.script]);
    try {
      const times: number[] = [];
      let ok = true;
      // One untimed run fills the compile cache, as any second use of the command would.
      for (let i = 0; i <= reps; i++) {
        const t0 = performance.now();
        const out = execFileSync(
          join(root, 'bin/rlm-studio'),
          [
            'run',
            '--context',
            c.file,
            '--query',
            c.query,
            '--base-url',
            mock.url,
            '--model',
            'mock-root',
            '--max-concurrency',
            '32',
            '--json',
          ],
          { encoding: 'utf8', maxBuffer: 64 * MB },
        );
        const s = (performance.now() - t0) / 1000;
        const res = JSON.parse(out) as { answer: string; usage: { calls: number } };
        if (i > 0) times.push(s);
        ok &&= res.answer === c.expect && res.usage.calls === c.calls;
      }
      const ours = median(times);
      rows.push({
        name: c.name,
        calls: c.calls,
        floorS: c.floorS,
        referenceS: c.referenceS,
        oursS: r3(ours),
        vsReference: r3(ours / c.referenceS),
        vsFloor: r3(ours / c.floorS),
        answerOk: ok,
      });
      log(`vs reference ${c.name}: ${r3(ours)} s`);
    } finally {
      await mock.close();
    }
  }
  return rows;
}

// ---- report ------------------------------------------------------------------------------

function table(rows: Record<string, unknown>[], cols: string[]): string {
  const fmt = (v: unknown): string => (typeof v === 'number' ? String(v) : v === undefined ? '' : String(v));
  return [
    `| ${cols.join(' | ')} |`,
    `| ${cols.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${cols.map((c) => fmt(r[c])).join(' | ')} |`),
  ].join('\n');
}

watchMainThread();
const started = performance.now();
const config = quick
  ? {
      latencyMs: 50,
      sizes: [2 ** 13],
      calls: 200,
      callLatencyMs: 20,
      contexts: [
        { mb: 1, shape: 'string' as const },
        { mb: 16, shape: 'string' as const },
      ],
      reps: 5,
      events: 20_000,
      bigMb: 5,
      vsReps: 1,
    }
  : {
      latencyMs: 200,
      sizes: [2 ** 13, 2 ** 16, 2 ** 18, 2 ** 20],
      calls: 1000,
      callLatencyMs: 50,
      contexts: [
        { mb: 1, shape: 'string' as const },
        { mb: 100, shape: 'string' as const },
        { mb: 1024, shape: 'string' as const },
        // The old way and readContextFile's, and readContextFile's with malloc on 4 KiB pages,
        // twice alternating (bench/context-scale.ts --compare for more).
        { mb: 1024, shape: 'array' as const },
        { mb: 1024, shape: 'file' as const },
        { mb: 1024, shape: 'file' as const, pages: '4 KiB' as const },
        { mb: 1024, shape: 'array' as const },
        { mb: 1024, shape: 'file' as const },
        { mb: 1024, shape: 'file' as const, pages: '4 KiB' as const },
      ],
      reps: 20,
      events: 200_000,
      bigMb: 100,
      vsReps: 7, // whole-process runs are the noisiest figure (other work on the same cores)
    };
try {
  const report = {
    mode: quick ? 'quick' : 'full',
    date: new Date().toISOString(),
    machine: {
      nproc: cpus().length,
      cpu: cpus()[0]?.model ?? 'unknown',
      memTotalGb: r2(totalmem() / 1024 ** 3),
      memFreeGb: r2(freemem() / 1024 ** 3),
      node: process.version,
      // Other work on the machine moves every figure: the 1-minute load average at start and end.
      loadAtStart: r2(loadavg()[0] ?? 0),
      loadAtEnd: 0,
    },
    command: quick ? 'npm run bench -- --quick' : 'npm run bench',
    engineOverhead: {
      latencyMs: config.latencyMs,
      goal: 1.05,
      rows: await step('engine overhead', () => engineOverhead(config.latencyMs, config.sizes)),
    },
    concurrency: await step('concurrency', () => concurrency(config.calls, config.callLatencyMs, [8, 32, 128])),
    contextScale: await step('context scale', () => contextScale(config.contexts)),
    sandbox: await step('sandbox', () => sandbox(config.reps)),
    logIo: await step('log I/O', () => logIo(config.events, config.bigMb)),
    numbersToBeat: await step('numbers to beat', () => numbersToBeat(config.vsReps)),
    python: await pythonBench({ quick, work }),
    policyMetrics: await step('policy metrics', () => policyBench({ sessions: quick ? 200 : 1000, work })),
    durationS: 0,
  };
  report.durationS = r2((performance.now() - started) / 1000);
  report.machine.loadAtEnd = r2(loadavg()[0] ?? 0);
  const o = report.engineOverhead.rows;
  const md = [
    `# Benchmark results (${report.mode})`,
    '',
    `Produced by \`${report.command}\` on ${report.date.slice(0, 10)} in ${report.durationS} s. Machine: ${report.machine.nproc} cores (${report.machine.cpu}), ${report.machine.memTotalGb} GB RAM (${report.machine.memFreeGb} GB free), Node ${report.machine.node}, load average ${report.machine.loadAtStart} at start and ${report.machine.loadAtEnd} at the end. mock-llm runs as its own process; latency is its fixed per-call delay.`,
    '',
    '## DESIGN.md "Numbers to beat": whole process, 300 ms per call',
    '',
    "Wall time of `./bin/rlm-studio run … --json` from spawn to exit (median), mock-llm `--script` replies shaped like the reference's scripted model. Target: ≤ 0.8 × reference and ≤ 1.3 × floor.",
    '',
    table(report.numbersToBeat as unknown as Record<string, unknown>[], [
      'name',
      'calls',
      'floorS',
      'referenceS',
      'oursS',
      'vsReference',
      'vsFloor',
      'answerOk',
    ]),
    '',
    `## Engine overhead (session wall ÷ model latency on the critical path, ${config.latencyMs} ms per call; goal ≤ 1.05)`,
    '',
    table(o as unknown as Record<string, unknown>[], ['kind', 'sizeTokens', 'wallMs', 'pathCalls', 'floorMs', 'ratio', 'calls', 'correct']),
    '',
    `Worst ratio ${Math.max(...o.map((r) => r.ratio))}, median ${median(o.map((r) => r.ratio))}.`,
    '',
    `## Concurrency (${config.calls} batched sub-calls at ${config.callLatencyMs} ms each; ratio = achieved calls/s ÷ ideal)`,
    '',
    table(report.concurrency as unknown as Record<string, unknown>[], [
      'concurrency',
      'calls',
      'batchMs',
      'idealMs',
      'callsPerSec',
      'idealCallsPerSec',
      'ratio',
    ]),
    '',
    '## Context scale (fresh process per size: read the file, load into the REPL, first block; peak RSS ÷ context size)',
    '',
    table(
      report.contextScale.map((r) => ({
        ...r,
        readMs: typeof r['readMs'] === 'number' ? r2(r['readMs']) : '',
        loadMs: typeof r['loadMs'] === 'number' ? r2(r['loadMs']) : '',
        firstBlockMs: typeof r['firstBlockMs'] === 'number' ? r2(r['firstBlockMs']) : '',
        totalMs: typeof r['totalMs'] === 'number' ? r2(r['totalMs']) : '',
        cpuMs: typeof r['cpuMs'] === 'number' ? r2(r['cpuMs']) : '',
        peakOverSize: typeof r['peakOverSize'] === 'number' ? r2(r['peakOverSize']) : '',
        peakRssMb: typeof r['peakRssBytes'] === 'number' ? Math.round(r['peakRssBytes'] / MB) : '',
      })),
      ['sizeMb', 'shape', 'pages', 'ok', 'readMs', 'loadMs', 'firstBlockMs', 'totalMs', 'cpuMs', 'peakRssMb', 'peakOverSize', 'error'],
    ),
    '',
    "A 1 GB context cannot be one string: V8's longest string is 2^29 − 24 UTF-16 units (≈ 512 Mi characters), so reading it as one string throws before the sandbox sees it. `array`: the bench reads it as an array of ~1 MB strings and the REPL copies each (the way before the context file reader took such files; peak RSS ≈ 2 × the size). `file`: `readContextFile` makes it an array of strings of up to 16 MiB, each decoded and copied once into external copies that the host's strings and the isolate share (peak RSS ≈ 1.15 × the size). totalMs = file to the first block's end; cpuMs = the process's CPU meanwhile (compare this one when the machine is busy).",
    '',
    '## Sandbox (median per block)',
    '',
    table([report.sandbox], ['emptyBlockMs', 'print10KbMs', 'regex10MbMs']),
    '',
    '## Log I/O',
    '',
    table([report.logIo], ['eventsWritten', 'eventsPerSecWritten', 'bigLogMb', 'eventsRead', 'readMbPerSec', 'treeBuildMs', 'runsInTree']),
    '',
    pythonMarkdown(report.python, table),
    '',
    policyMarkdown(report.policyMetrics),
  ].join('\n');
  const outPath = args.out ?? (quick ? join(tmpdir(), 'rlm-bench-quick.md') : join(root, 'bench/RESULTS.md'));
  // The sections benches run on their own put in this file (queue.ts --write, …) stay in it.
  writeFileSync(outPath, carryOver(md, existsSync(outPath) ? readFileSync(outPath, 'utf8') : null));
  if (args.json) writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
  log(`wrote ${outPath}${args.json ? ` and ${args.json}` : ''} in ${report.durationS} s`);
} catch (err) {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
// A process that ran Python ends explicitly (see src-main/sandbox/python/lifecycle.ts).
await exitProcess(typeof process.exitCode === 'number' ? process.exitCode : 0);
