// `rlm-studio demo`: the built-in demo, needing no API key or network. By default it opens
// the app (web mode) with a live recursive session against the bundled mock model; with
// `--terminal` it runs the same session in the terminal instead.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type Command, Option } from 'commander';
import { DEMO_PROFILE_NAME } from '../../../src-shared/protocol.ts';
import { needleContext, reportContext, ticketsContext } from '../../demo/contexts.ts';
import { startMockLlm } from '../../mock-llm/server.ts';
import { demoBehaviours } from '../../mock-llm/behaviours.ts';
import { liveProgressWriter } from '../progress.ts';
import { defaultRunsDir } from '../../logs/paths.ts';
import { folderProblem } from '../../logs/native-file-sink.ts';
import { defaultSettingsDir } from '../../host/profiles.ts';
import { rendererDist } from '../renderer-build.ts';
import { commandOptionAlias } from '../option-aliases.ts';
import { UsageError } from '../errors.ts';
import type { ReplLanguage } from '../../../src-shared/events.ts';
import { languageOption, nonNegativeInt, portNumber } from '../options.ts';
import { runOnce, type RunCliOptions } from './run.ts';
import { DEFAULT_PORT, serveUntilStopped, startServing, type Serving } from './serve.ts';

const SCENARIOS = {
  recursive: { query: 'Summarise each section of the report and what it found (recursive, per section).', maxDepth: 2 },
  needle: { query: 'What is the magic number hidden in the context?', maxDepth: 1 },
  aggregate: { query: 'How many tickets have the label billing?', maxDepth: 1 },
} as const;
type Scenario = keyof typeof SCENARIOS;

function writeDemoContext(scenario: Scenario, dir: string): string {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new UsageError(`cannot write the demo's context in --runs-dir ${dirname(dir)}: ${folderProblem(err)}`);
  }
  switch (scenario) {
    case 'recursive': {
      const path = join(dir, 'report.txt');
      writeFileSync(path, reportContext(6, 4000, 42).text);
      return path;
    }
    case 'needle': {
      const path = join(dir, 'haystack.txt');
      writeFileSync(path, needleContext(2_000_000, 42).text);
      return path;
    }
    case 'aggregate': {
      const path = join(dir, 'tickets.json');
      writeFileSync(path, JSON.stringify(ticketsContext(2000, 42).items));
      return path;
    }
  }
}

interface DemoOptions {
  scenario: Scenario;
  latencyMs: number;
  runsDir: string;
  terminal?: boolean;
  port: number;
  open: boolean;
  repl: ReplLanguage;
}

/** The terminal demo: progress on stderr, the answer and totals on stdout. */
async function terminalDemo(o: DemoOptions): Promise<void> {
  const mock = await startMockLlm({ port: 0, latencyMs: o.latencyMs, costPerMTok: 0.5, ...demoBehaviours(o.latencyMs) });
  try {
    const s = SCENARIOS[o.scenario];
    const context = writeDemoContext(o.scenario, join(o.runsDir, 'demo-contexts'));
    process.stderr.write(`demo: ${o.scenario} in a ${o.repl} REPL — "${s.query}"\ndemo: mock model at ${mock.url}, context ${context}\n\n`);
    const opts: RunCliOptions = {
      context,
      query: s.query,
      baseUrl: mock.url,
      model: 'mock-root',
      maxDepth: s.maxDepth,
      runsDir: o.runsDir,
      repl: o.repl,
    };
    const progress = liveProgressWriter(process.stderr);
    const summary = await runOnce(opts, (line) => progress.line(line), undefined, { delta: (d) => progress.live(d) });
    process.stdout.write(`\nanswer (${summary.stopReason}):\n${summary.answer ?? ''}\n\n`);
    process.stdout.write(
      `${summary.iterations} root iterations, ${summary.usage.calls} model calls, ${summary.usage.inputTokens}+${summary.usage.outputTokens} tokens, $${summary.usage.costUsd ?? 0}, ${(summary.durationMs / 1000).toFixed(2)} s\nlog: ${summary.logFile}\n`,
    );
  } finally {
    await mock.close();
  }
}

/** Best effort: a desktop session gets the page in its browser; a headless one just the URL. */
function openInBrowser(url: string): void {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => undefined);
  child.unref();
}

/**
 * The app in web mode with a live demo session selected. The session is made paused before its
 * first model call and goes on when the first page connects: started at once, it ended in a few
 * seconds, and whoever opened the URL a little later saw only "finished".
 */
async function appDemo(o: DemoOptions): Promise<void> {
  let go: (() => void) | null = null;
  let connected = false;
  const serveOpts = {
    host: '127.0.0.1',
    runsDir: o.runsDir,
    settingsDir: defaultSettingsDir(),
    static: rendererDist,
    demoLatencyMs: o.latencyMs,
    onFirstClient: () => {
      connected = true;
      go?.();
    },
  };
  let serving: Serving;
  try {
    serving = await startServing({ ...serveOpts, port: o.port });
  } catch (err) {
    // The usual port is taken (another copy running?): any free port will do for a demo.
    if (!(err instanceof UsageError) || o.port === 0) throw err;
    serving = await startServing({ ...serveOpts, port: 0 });
  }
  const s = SCENARIOS[o.scenario];
  const reply = await serving.host.execute(null, {
    type: 'session.start',
    params: {
      profile: DEMO_PROFILE_NAME,
      context: { kind: 'demo', name: o.scenario },
      query: s.query,
      limits: { maxDepth: s.maxDepth },
      breakpoints: [],
      startPaused: true,
      repl: o.repl,
    },
  });
  const sessionId = reply.session.sessionId;
  // Once it has reached its pause (a continue sent before would find nothing to release).
  go = () =>
    void (async () => {
      for (;;) {
        const r = await serving.host.execute(null, { type: 'sessions.list' });
        const status = r.sessions.find((x) => x.sessionId === sessionId)?.status;
        if (status === 'paused') {
          await serving.host.execute(null, { type: 'session.continue', sessionId });
          return;
        }
        if (status !== 'starting' && status !== 'running') return;
        await sleep(50);
      }
    })().catch(() => undefined);
  if (connected) go();
  const url = `${serving.web.url}#session=${encodeURIComponent(sessionId)}`;
  process.stdout.write(
    `RLM Studio demo (${o.scenario}, ${o.repl} REPL, mock model, no API key): ${url}\nThe session starts when the page opens.\nlogs: ${o.runsDir}\nCtrl-C stops it.\n`,
  );
  if (o.open) openInBrowser(url);
  await serveUntilStopped(serving);
}

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('Open the app on the built-in demo: a live session against the bundled mock model (no API key needed).')
    .addOption(new Option('--scenario <name>', 'which demo to run').choices(Object.keys(SCENARIOS)).default('recursive'))
    .addOption(new Option('--latency-ms <n>', 'simulated model latency per call').argParser(nonNegativeInt('--latency-ms')).default(400))
    .option('--runs-dir <dir>', 'where the session log goes (old name: --log-dir)', defaultRunsDir())
    .option('--terminal', 'run the demo in this terminal instead of the app')
    .addOption(new Option('--port <n>', 'port for the app (taken: any free one)').argParser(portNumber('--port')).default(DEFAULT_PORT))
    .option('--no-open', 'do not try to open a browser')
    .addOption(languageOption().default('javascript'))
    .action(async (o: DemoOptions) => {
      await (o.terminal ? terminalDemo(o) : appDemo(o));
    });
  commandOptionAlias(program, 'demo', '--log-dir <dir>', '--runs-dir');
}
