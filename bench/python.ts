// The "Python REPL" section of `npm run bench`: what Python costs next to JavaScript, measured
// side by side in one run, and the reference Python library on the same task and server.
// See bench/README.md for what each figure means. Ratios are reported, never asserted.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReplLanguage } from '../src-shared/events.ts';
import { needleContext } from '../src-main/demo/contexts.ts';
import { EventRecorder, RlmConversation } from '../src-main/engine/index.ts';
import { Host } from '../src-main/host/host.ts';
import { OpenAiCompatibleClient } from '../src-main/lm/openai-client.ts';
import type { PolicyRequest } from '../src-main/mock-llm/policy.ts';
import { startMockLlm } from '../src-main/mock-llm/server.ts';
import { createIsolatedRepl } from '../src-main/sandbox/isolated-repl.ts';
import { createPythonRepl } from '../src-main/sandbox/python/pyodide-repl.ts';
import { coolPython, takeInterpreter, warmPython } from '../src-main/sandbox/python/pool.ts';
import type { Repl, SubcallBridge } from '../src-main/sandbox/types.ts';
import { ProtocolClient } from '../src-shared/protocol-client.ts';
import { endpointCarrier } from '../src-main/transport/node-carriers.ts';
import { holdProcess, log, MB, step, median, needleRules, r2, r3, repl, root, startMock, writeScript } from './lib.ts';
import { prepareReference, type ReferenceLib } from './reference-lib.ts';

export interface PythonConfig {
  quick: boolean;
  work: string;
}

const bridge: SubcallBridge = {
  llmQuery: async () => '',
  llmQueryBatched: async (p) => p.map(() => ''),
  rlmQuery: async () => '',
  rlmQueryBatched: async (p) => p.map(() => ''),
};
const site = (block: number) => ({ iteration: 1, block });

async function run(r: Repl, code: string, block = 0): Promise<string> {
  const res = await r.execute(code, site(block));
  if (res.error) throw new Error(`${res.error.name}: ${res.error.message} (in ${JSON.stringify(code.slice(0, 60))})`);
  return res.stdout;
}

async function timeBlocks(r: Repl, code: string, reps: number): Promise<number> {
  for (let i = 0; i < Math.min(20, reps); i++) await run(r, code, i); // JIT, caches
  const xs: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    await run(r, code, i);
    xs.push(performance.now() - t0);
  }
  return median(xs);
}

// ---- 1. a trivial block ------------------------------------------------------------------

async function blocks(reps: number) {
  await warmPython();
  const py = await createPythonRepl({ bridge });
  const js = await createIsolatedRepl({ bridge });
  try {
    await py.addContext(0, 'hello');
    await js.addContext(0, 'hello');
    // Alternating rounds, so load from other work falls on both alike.
    const pyRounds: number[] = [];
    const jsRounds: number[] = [];
    for (let round = 0; round < 3; round++) {
      pyRounds.push(await timeBlocks(py, 'x = 1', Math.ceil(reps / 3)));
      jsRounds.push(await timeBlocks(js, 'x = 1', Math.ceil(reps / 3)));
    }
    // The block's own work, timed inside the interpreter: compiling and running `x = 1`.
    const own = await run(
      py,
      'import time as _time\n_t = _time.perf_counter()\nfor _i in range(1000):\n    exec(compile("x = 1", "<block>", "exec"), {})\nprint((_time.perf_counter() - _t) * 1000 / 1000)',
    );
    const pyBlockMs = median(pyRounds);
    const jsBlockMs = median(jsRounds);
    const pyOwnWorkMs = Number(own.trim());
    const pyOverheadMs = pyBlockMs - pyOwnWorkMs;
    return {
      reps: 3 * Math.ceil(reps / 3),
      pyBlockMs: r3(pyBlockMs),
      jsBlockMs: r3(jsBlockMs),
      pyOwnWorkMs: r3(pyOwnWorkMs),
      pyOverheadMs: r3(pyOverheadMs),
      goalMs: 2,
      vsGoal: r3(pyOverheadMs / 2),
      pyOverJs: r2(pyBlockMs / jsBlockMs),
    };
  } finally {
    py.dispose();
    js.dispose();
  }
}

// ---- 2. a 100 MB string context --------------------------------------------------------

async function context100(reps: number) {
  const { text } = needleContext(100 * MB, 5);
  const py: { load: number; first: number }[] = [];
  const js: { load: number; first: number }[] = [];
  for (let i = 0; i < reps; i++) {
    for (const language of ['python', 'javascript'] as const) {
      const at = (what: string): string => `the 100 MB context (${language}, round ${i + 1}): ${what}`;
      if (language === 'python') await step(at('a warm interpreter'), warmPython);
      const r = await step(at('a REPL'), () => (language === 'python' ? createPythonRepl({ bridge }) : createIsolatedRepl({ bridge })));
      try {
        // The interpreter or isolate is up.
        await step(at('a first block'), () => run(r, language === 'python' ? 'x = 1' : 'const x = 1'));
        const t0 = performance.now();
        await step(at('loading the context'), () => r.addContext(0, text));
        const t1 = performance.now();
        const out = await step(at('the block reading it'), () =>
          run(r, language === 'python' ? 'print(len(context))' : 'print(context.length)'),
        );
        const t2 = performance.now();
        if (out.trim() !== String(text.length))
          throw new Error(`${language} saw a context of ${out.trim()} characters, not ${text.length}`);
        (language === 'python' ? py : js).push({ load: t1 - t0, first: t2 - t1 });
      } finally {
        r.dispose();
      }
    }
  }
  const pyLoadMs = median(py.map((x) => x.load));
  const jsLoadMs = median(js.map((x) => x.load));
  return {
    chars: text.length,
    reps,
    pyLoadMs: Math.round(pyLoadMs),
    jsLoadMs: Math.round(jsLoadMs),
    pyFirstBlockMs: r2(median(py.map((x) => x.first))),
    jsFirstBlockMs: r2(median(js.map((x) => x.first))),
    goalMs: 500,
    vsGoal: r3(pyLoadMs / 500),
    pyOverJs: r2(pyLoadMs / jsLoadMs),
  };
}

// ---- 3. interpreter start ----------------------------------------------------------------

interface StartChild {
  hadSnapshot: boolean;
  processStartToReadyMs: number;
  prepareMs: number;
  firstStartMs: number;
  firstTotalMs: number;
  secondStartMs: number;
}

function startChild(cacheDir: string): Promise<StartChild> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, ['--no-node-snapshot', join(root, 'bench/python-start.ts')], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, RLM_STUDIO_CACHE: cacheDir },
    });
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (text += d));
    child.on('close', (code, signal) =>
      code === 0 ? res(JSON.parse(text) as StartChild) : rej(new Error(`bench/python-start.ts exited with ${code ?? `signal ${signal}`}`)),
    );
  });
}

async function interpreterStart(work: string, reps: number) {
  const cache = mkdtempSync(join(work, 'py-cache-'));
  try {
    const cold = await startChild(cache); // empty cache: Pyodide's own boot, and the snapshot made
    if (cold.hadSnapshot) throw new Error('the cold start found a snapshot');
    const fromSnapshot: StartChild[] = [];
    for (let i = 0; i < reps; i++) fromSnapshot.push(await startChild(cache));
    if (!fromSnapshot.every((s) => s.hadSnapshot)) throw new Error('a start from the snapshot found none');
    const m = (k: keyof StartChild): number => Math.round(median(fromSnapshot.map((s) => s[k] as number)));
    // A warm interpreter taken from this process's pool, and a new REPL's first block with one.
    const takes: number[] = [];
    const firstBlocks: number[] = [];
    for (let i = 0; i < reps; i++) {
      await warmPython();
      const t0 = performance.now();
      const interp = await takeInterpreter(512 * MB);
      takes.push(performance.now() - t0);
      interp.dispose();
      await warmPython();
      const t1 = performance.now();
      const r = await createPythonRepl({ bridge });
      await run(r, 'x = 1');
      firstBlocks.push(performance.now() - t1);
      r.dispose();
    }
    return {
      cold: {
        processStartToReadyMs: Math.round(cold.processStartToReadyMs),
        prepareMs: Math.round(cold.prepareMs),
        firstStartMs: Math.round(cold.firstStartMs),
        totalMs: Math.round(cold.firstTotalMs),
      },
      snapshot: {
        reps,
        processStartToReadyMs: m('processStartToReadyMs'),
        prepareMs: m('prepareMs'),
        firstStartMs: m('firstStartMs'),
        totalMs: m('firstTotalMs'),
        inProcessStartMs: m('secondStartMs'),
      },
      warm: { reps, takeMs: r2(median(takes)), newReplFirstBlockMs: r2(median(firstBlocks)) },
    };
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}

// ---- 4. session start to the first model request -----------------------------------------

/**
 * An in-process mock-llm that notes when each request arrives. Turn 1 prints, turn 2 submits,
 * so the second request's arrival also tells when the first block had run.
 */
async function recordingMock() {
  const arrivals: number[] = [];
  let language: ReplLanguage = 'javascript';
  const policy = (req: PolicyRequest): string => {
    arrivals.push(performance.now());
    if (!req.messages.some((m) => m.role === 'assistant')) return repl('print(1)');
    return repl(
      language === 'python' ? 'answer["content"] = "ok"\nanswer["ready"] = True' : "answer.content = 'ok';\nanswer.ready = true;",
    );
  };
  const server = await startMockLlm({ policy, latencyMs: 0 });
  return {
    url: server.url,
    close: () => server.close(),
    /** Starts a measurement: clears the arrivals and sets the language of the replies. */
    reset(l: ReplLanguage) {
      arrivals.length = 0;
      language = l;
    },
    arrivals,
  };
}

interface StartRow {
  path: 'host' | 'engine';
  language: ReplLanguage;
  reps: number;
  firstRequestMs: number;
  secondRequestMs: number;
  vsGoal: number;
}

function startRow(path: StartRow['path'], language: ReplLanguage, samples: { first: number; second: number }[]): StartRow {
  const first = median(samples.map((s) => s.first));
  return {
    path,
    language,
    reps: samples.length,
    firstRequestMs: r2(first),
    secondRequestMs: r2(median(samples.map((s) => s.second))),
    vsGoal: r3(first / 200),
  };
}

/** Idle time given to a booted spare before a timed session (a Python interpreter starts in ~0.4 s). */
const SPARE_IDLE_MS = 1500;

async function until(check: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Through the host (`Host`, in this process, as `serve` runs it) with its spare worker booted:
 * `session.start` to the mock receiving the session's first request.
 */
async function hostStart(mock: Awaited<ReturnType<typeof recordingMock>>, work: string, reps: number): Promise<StartRow[]> {
  const dirs = mkdtempSync(join(work, 'host-'));
  // Workers run with the compile cache `bin/rlm-studio serve` sets for them.
  const savedCache = process.env.NODE_COMPILE_CACHE;
  process.env.NODE_COMPILE_CACHE ??= join(root, '.runtime/compile-cache');
  const host = new Host({ runsDir: join(dirs, 'runs'), settingsDir: join(dirs, 'settings'), prewarm: true });
  const statuses = new Map<string, string>();
  // Every message crosses JSON, as over a real carrier.
  const client = new ProtocolClient(endpointCarrier(host));
  client.onPush((m) => {
    if (m.kind === 'session') statuses.set(m.session.sessionId, m.session.status);
  });
  const spareReady = (): boolean => host.spareReady();
  const samples = new Map<ReplLanguage, { first: number; second: number }[]>([
    ['javascript', []],
    ['python', []],
  ]);
  try {
    await client.call('profiles.save', {
      profile: { name: 'bench', baseUrl: mock.url, model: 'mock-root', subModel: null, apiKeyRef: null, prices: {} },
    });
    const once = async (language: ReplLanguage): Promise<{ first: number; second: number }> => {
      mock.reset(language);
      const t0 = performance.now();
      const { session } = await client.call('session.start', {
        params: { profile: 'bench', context: { kind: 'text', text: 'hello' }, query: 'bench', repl: language },
      });
      await until(
        () => ['finished', 'failed', 'cancelled'].includes(statuses.get(session.sessionId) ?? ''),
        `${language} session ${session.sessionId}`,
      );
      if (statuses.get(session.sessionId) !== 'finished' || mock.arrivals.length !== 2)
        throw new Error(`${language} session ended ${statuses.get(session.sessionId)} after ${mock.arrivals.length} requests`);
      return { first: mock.arrivals[0]! - t0, second: mock.arrivals[1]! - t0 };
    };
    // Untimed: the first session forks its own worker; a Python one tells a host that warms
    // spares for Python (after its first Python session) to do so.
    await once('javascript');
    await until(spareReady, 'the spare worker to boot');
    await once('python');
    for (let i = 0; i < reps; i++) {
      for (const language of ['javascript', 'python'] as const) {
        // A warm host: the spare has booted, and had a moment idle to warm what it warms.
        await until(spareReady, 'the spare worker to boot');
        await new Promise((r) => setTimeout(r, SPARE_IDLE_MS));
        samples.get(language)!.push(await once(language));
      }
    }
  } finally {
    client.close();
    await host.close();
    if (savedCache === undefined) delete process.env.NODE_COMPILE_CACHE;
    rmSync(dirs, { recursive: true, force: true });
  }
  return [startRow('host', 'javascript', samples.get('javascript')!), startRow('host', 'python', samples.get('python')!)];
}

/** In this process: `RlmConversation.completion()` to the first request, Python's pool warm. */
async function engineStart(mock: Awaited<ReturnType<typeof recordingMock>>, reps: number): Promise<StartRow[]> {
  const client = new OpenAiCompatibleClient({ baseUrl: mock.url, apiKey: 'bench', maxRetries: 0 });
  const once = async (language: ReplLanguage): Promise<{ first: number; second: number }> => {
    if (language === 'python') await warmPython();
    mock.reset(language);
    const s = new RlmConversation({ client, model: 'mock-root', repl: language }, { sink: new EventRecorder() });
    const t0 = performance.now();
    try {
      const outcome = await s.completion('hello', 'bench');
      if (outcome.answer !== 'ok' || mock.arrivals.length !== 2)
        throw new Error(`${language} session: ${outcome.stopReason}, ${mock.arrivals.length} requests`);
    } finally {
      s.close();
    }
    return { first: mock.arrivals[0]! - t0, second: mock.arrivals[1]! - t0 };
  };
  await once('javascript');
  await once('python');
  const samples: Record<ReplLanguage, { first: number; second: number }[]> = { javascript: [], python: [] };
  for (let i = 0; i < reps; i++) for (const language of ['javascript', 'python'] as const) samples[language].push(await once(language));
  return [startRow('engine', 'javascript', samples.javascript), startRow('engine', 'python', samples.python)];
}

// ---- 5 and 6. whole-process `run` on the 4 MB needle, and the reference library ------------

interface CliRow {
  name: string;
  runs: number;
  floorS: number;
  wallS: number;
  vsFloor: number;
  answerOk: boolean;
}

async function wholeProcess(work: string, reps: number, reference: ReferenceLib | { unavailable: string }): Promise<CliRow[]> {
  const latency = 300;
  const floorS = 0.9;
  const ctx = needleContext(4_000_000, 42);
  const file = join(work, 'py-needle-4.txt');
  writeFileSync(file, ctx.text);
  const query = 'What is the magic number?';
  const jsMock = await startMock(['--latency-ms', String(latency), '--script', writeScript(work, 'needle-js', needleRules('javascript'))]);
  const pyMock = await startMock(['--latency-ms', String(latency), '--script', writeScript(work, 'needle-py', needleRules('python'))]);
  const cli = (url: string, language: ReplLanguage) => () => {
    const t0 = performance.now();
    const out = execFileSync(
      join(root, 'bin/rlm-studio'),
      ['run', '--repl', language, '--context', file, '--query', query, '--base-url', url, '--model', 'mock-root', '--json'],
      { encoding: 'utf8', maxBuffer: 64 * MB, timeout: 120_000 },
    );
    const res = JSON.parse(out) as { answer: string; usage: { calls: number } };
    return { answer: res.answer, calls: res.usage.calls, wallS: (performance.now() - t0) / 1000 };
  };
  const cases: { name: string; go: () => { answer: string; calls: number; wallS: number } }[] = [
    { name: 'rlm-studio run --repl javascript', go: cli(jsMock.url, 'javascript') },
    { name: 'rlm-studio run --repl python', go: cli(pyMock.url, 'python') },
  ];
  if (!('unavailable' in reference))
    cases.push({ name: `reference library (Python ${reference.python})`, go: () => reference.run(pyMock.url, file, query) });
  const times = cases.map(() => [] as number[]);
  const ok = cases.map(() => true);
  try {
    // One untimed run each (compile caches, the snapshot, __pycache__), then rounds that alternate.
    for (let i = 0; i <= reps; i++) {
      cases.forEach((c, k) => {
        const res = c.go();
        ok[k] &&= res.answer === ctx.answer && res.calls === 3;
        if (i > 0) times[k]!.push(res.wallS);
      });
    }
  } finally {
    await jsMock.close();
    await pyMock.close();
  }
  return cases.map((c, k) => {
    const wallS = median(times[k]!);
    log(`python whole process ${c.name}: ${r3(wallS)} s`);
    return { name: c.name, runs: reps, floorS, wallS: r3(wallS), vsFloor: r3(wallS / floorS), answerOk: ok[k]! };
  });
}

// ---- the section -------------------------------------------------------------------------

export async function pythonBench(cfg: PythonConfig) {
  const q = cfg.quick;
  const release = holdProcess();
  try {
    const blockRow = await step('the Python block section', () => blocks(q ? 60 : 300));
    log(`python block: ${blockRow.pyBlockMs} ms (javascript ${blockRow.jsBlockMs} ms)`);
    const contextRow = await context100(q ? 1 : 3);
    log(`python 100 MB context: ${contextRow.pyLoadMs} ms (javascript ${contextRow.jsLoadMs} ms)`);
    const start = await step('the interpreter start section', () => interpreterStart(cfg.work, q ? 1 : 3));
    log(`python start: cold ${start.cold.totalMs} ms, snapshot ${start.snapshot.totalMs} ms, warm ${start.warm.takeMs} ms`);
    const mock = await recordingMock();
    let sessionRows: StartRow[];
    try {
      sessionRows = await step('the session start section', async () => [
        ...(await hostStart(mock, cfg.work, q ? 2 : 5)),
        ...(await engineStart(mock, q ? 2 : 5)),
      ]);
    } finally {
      await mock.close();
    }
    for (const r of sessionRows) log(`python session start ${r.path} ${r.language}: ${r.firstRequestMs} ms`);
    await coolPython();
    const reference = prepareReference(cfg.work);
    const cli = await step('the whole-process section', () => wholeProcess(cfg.work, q ? 1 : 7, reference));
    const byName = (prefix: string): CliRow | undefined => cli.find((r) => r.name.startsWith(prefix));
    const js = byName('rlm-studio run --repl javascript')!;
    const py = byName('rlm-studio run --repl python')!;
    const ref = byName('reference library');
    // Whether a host's spare worker keeps a Python interpreter warm (read from its source).
    const spareWarmsPython = readFileSync(join(root, 'src-main/host/worker.ts'), 'utf8').includes('warmPython');
    return {
      blocks: blockRow,
      context100Mb: contextRow,
      start,
      sessionStart: { goalMs: 200, spareWarmsPython, rows: sessionRows },
      wholeProcess: {
        latencyMs: 300,
        goalVsFloor: 1.3,
        rows: cli,
        pyOverJs: r3(py.wallS / js.wallS),
        pyOverReference: ref ? r3(py.wallS / ref.wallS) : null,
        reference:
          'unavailable' in reference
            ? { ran: false, why: reference.unavailable, designS: 1.36 }
            : { ran: true, source: reference.source, designS: 1.36 },
      },
    };
  } finally {
    await coolPython();
    release();
  }
}

export type PythonReport = Awaited<ReturnType<typeof pythonBench>>;

export function pythonMarkdown(p: PythonReport, table: (rows: Record<string, unknown>[], cols: string[]) => string): string {
  const b = p.blocks;
  const c = p.context100Mb;
  const s = p.start;
  const w = p.wholeProcess;
  const hostPy = p.sessionStart.rows.find((r) => r.path === 'host' && r.language === 'python');
  return [
    '## Python REPL (side by side with JavaScript in this run)',
    '',
    `### Block overhead (median of ${b.reps} \`x = 1\` blocks through \`Repl.execute\`; goal ≤ 2 ms beyond the block's own work)`,
    '',
    table([b], ['pyBlockMs', 'jsBlockMs', 'pyOwnWorkMs', 'pyOverheadMs', 'vsGoal', 'pyOverJs']),
    '',
    `### A 100 MB string context (\`addContext\` into a running REPL, median of ${c.reps}; goal ≤ 500 ms)`,
    '',
    table([c], ['chars', 'pyLoadMs', 'jsLoadMs', 'pyFirstBlockMs', 'jsFirstBlockMs', 'vsGoal', 'pyOverJs']),
    '',
    '### Interpreter start',
    '',
    table(
      [
        { how: 'cold: fresh process, empty cache (Pyodide boots, the snapshot is made and saved)', ...s.cold },
        { how: `from the snapshot: fresh process (median of ${s.snapshot.reps})`, ...s.snapshot },
        { how: 'warm: taken from the pool (`warmPython()`)', totalMs: s.warm.takeMs },
        { how: "warm: a new REPL's first `x = 1` block", totalMs: s.warm.newReplFirstBlockMs },
      ],
      ['how', 'processStartToReadyMs', 'prepareMs', 'firstStartMs', 'totalMs', 'inProcessStartMs'],
    ),
    '',
    `### Session start to the first model request (mock-llm in this process, no latency; goal ≤ 200 ms with a warm host)`,
    '',
    table(p.sessionStart.rows as unknown as Record<string, unknown>[], [
      'path',
      'language',
      'reps',
      'firstRequestMs',
      'secondRequestMs',
      'vsGoal',
    ]),
    '',
    `host: \`session.start\` on an in-process \`Host\` whose spare worker has booted, to the mock receiving the request; engine: \`RlmConversation.completion()\` in this process with \`warmPython()\` done. The second request follows the first block (\`print(1)\`), so it includes the REPL being ready. Spare workers ${p.sessionStart.spareWarmsPython ? 'can call' : 'do not call'} \`warmPython()\` (read from \`src-main/host/worker.ts\`)${p.sessionStart.spareWarmsPython ? '; each timed host session starts 1.5 s after its spare booted, after an untimed Python session' : ': a Python session in a host worker starts its interpreter from the snapshot while the first request is in flight'}.${hostPy ? ` Host, Python: ${hostPy.firstRequestMs} ms to the first request (${hostPy.vsGoal} × the goal), ${hostPy.secondRequestMs} ms to the second.` : ''}`,
    '',
    `### Whole process on the 4 MB needle at ${w.latencyMs} ms per call (median of ${w.rows[0]?.runs ?? 0} after one warm-up each, rounds alternating; goal ≤ ${w.goalVsFloor} × the 0.9 s floor)`,
    '',
    table(w.rows as unknown as Record<string, unknown>[], ['name', 'runs', 'floorS', 'wallS', 'vsFloor', 'answerOk']),
    '',
    `Python ÷ JavaScript ${w.pyOverJs}${w.pyOverReference !== null ? `; Python ÷ reference ${w.pyOverReference}` : ''}. ${
      w.reference.ran
        ? `The reference ran side by side: ${'source' in w.reference ? w.reference.source : ''}, its \`RLM.completion\` with the local REPL in a fresh \`python3\` per run against the same mock-llm process and script as \`--repl python\` (DESIGN.md's figure for it: ${w.reference.designS} s).`
        : `The reference did not run here (${'why' in w.reference ? w.reference.why : ''}): this is not side by side; DESIGN.md gives ${w.reference.designS} s for it.`
    }`,
    '',
  ].join('\n');
}
