// `rlm-studio serve`: the host plus the built UI over HTTP and WebSocket (web mode), and
// `rlm-studio view LOG`: the same with a saved log opened and preselected.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import { isEvalDir } from '../../eval/open-dir.ts';
import type { OtlpLiveExporter } from '../../export/otlp-live.ts';
import type { HostEndpoint } from '../../host/endpoint.ts';
import { Host } from '../../host/host.ts';
import { defaultSettingsDir } from '../../host/profiles.ts';
import { defaultRunsDir } from '../../logs/paths.ts';
import { NODE_ENV_VAR } from '../../electron/session-runtime.ts';
import { isLoopback, startWebServer, type WebServer } from '../../transport/ws-server.ts';
import { UsageError } from '../errors.ts';
import { repoRoot } from '../repo-root.ts';
import { nonNegativeInt, portNumber } from '../options.ts';
import { defaultRendererDist, ensureRendererBuilt, rendererDist } from '../renderer-build.ts';

export const DEFAULT_PORT = 5757;

export interface ServeOptions {
  port: number;
  host: string;
  runsDir: string;
  settingsDir: string;
  static: string;
  demoLatencyMs: number;
  /** Stream live sessions to this OTLP/HTTP collector as traces. */
  otlpEndpoint?: string;
  otlpHeader?: string[];
  /** Commander's `--no-otlp-content`. */
  otlpContent?: boolean;
  /** Called when the first client connects (the demo starts its session then, not before anyone watches). */
  onFirstClient?: () => void;
}

/** `endpoint`, telling `first` when its first connection is made. */
function tellingFirst(endpoint: HostEndpoint, first: () => void): HostEndpoint {
  let told = false;
  return {
    connect: (send, options) => {
      const conn = endpoint.connect(send, options);
      if (!told) {
        told = true;
        first();
      }
      return conn;
    },
  };
}

export interface Serving {
  host: Host;
  web: WebServer;
  close(): Promise<void>;
}

/** Starts the host and the web server; the default UI folder is built first when missing or stale. */
export async function startServing(o: ServeOptions): Promise<Serving> {
  // Another --static folder is someone's own build: served as it is, never rebuilt (a build replaces its folder).
  if (resolve(o.static) === rendererDist) ensureRendererBuilt(rendererDist);
  const otlp = o.otlpEndpoint === undefined ? null : await startOtlpStream(o.otlpEndpoint, o.otlpHeader ?? [], o.otlpContent !== false);
  const host = new Host({
    runsDir: resolve(o.runsDir),
    settingsDir: resolve(o.settingsDir),
    demoLatencyMs: o.demoLatencyMs,
    label: 'rlm-studio serve',
    ...(otlp === null ? {} : { onLiveEvents: (id: string, events: readonly TrajectoryEvent[]) => otlp.push(id, events) }),
  });
  const staticDir = existsSync(resolve(o.static, 'index.html')) ? resolve(o.static) : null;
  let web: WebServer;
  try {
    web = await startWebServer({
      endpoint: o.onFirstClient ? tellingFirst(host, o.onFirstClient) : host,
      port: o.port,
      host: o.host,
      staticDir,
      logFileOf: (id) => host.logFileOf(id),
      contextOf: (id) => host.contextOf(id),
      // What the page uploads (a context, a log opened through the host) is kept with the runs that use it.
      uploadDir: join(resolve(o.runsDir), 'uploads'),
    });
  } catch (err) {
    await host.close();
    await otlp?.close();
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`port ${o.port} on ${o.host} is in use; pick another with --port (0 picks a free one)`);
    throw new UsageError(`cannot listen on ${o.host}:${o.port}: ${(err as Error).message}`);
  }
  if (!isLoopback(o.host)) {
    process.stderr.write(
      `rlm-studio: WARNING: listening on ${o.host}, not only on this machine. Anyone who can reach this address and has the URL's token can run code through your endpoints; prefer an SSH tunnel to 127.0.0.1.\n`,
    );
  }
  if (staticDir === null)
    process.stderr.write(
      `rlm-studio: the UI isn't built (no ${resolve(o.static, 'index.html')}); the page will say so. The protocol works.\n`,
    );
  return {
    host,
    web,
    close: async () => {
      await web.close();
      await host.close();
      // After the host: the workers' last events are in, and spans still open are sent as unfinished.
      await otlp?.close();
    },
  };
}

/** The OTLP streamer, loaded only when asked for (the exporter packages cost start-up time). */
async function startOtlpStream(endpoint: string, headerPairs: string[], content: boolean): Promise<OtlpLiveExporter> {
  const [{ OtlpLiveExporter }, { OtlpTargetError, parseHeaders }] = await Promise.all([
    import('../../export/otlp-live.ts'),
    import('../../export/otlp-transport.ts'),
  ]);
  try {
    return new OtlpLiveExporter({ endpoint, headers: parseHeaders(headerPairs), content, warn: (m) => void process.stderr.write(m) });
  } catch (err) {
    if (err instanceof OtlpTargetError) throw new UsageError(err.message);
    throw err;
  }
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function addServeOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--port <n>', 'port to listen on (0 picks a free one)').argParser(portNumber('--port')).default(DEFAULT_PORT))
    .option('--host <addr>', 'address to bind; anything but loopback is reachable from other machines', '127.0.0.1')
    .option('--runs-dir <dir>', 'where session logs are written', defaultRunsDir())
    .option('--settings-dir <dir>', 'where endpoint profiles are kept', defaultSettingsDir())
    .option('--static <dir>', 'the built UI to serve (the default folder is built when missing or stale)', rendererDist)
    .addOption(
      new Option('--demo-latency-ms <n>', 'simulated latency of the built-in demo model')
        .argParser(nonNegativeInt('--demo-latency-ms'))
        .default(120),
    )
    .option(
      '--otlp-endpoint <url>',
      'stream live sessions as OpenTelemetry traces to this OTLP/HTTP collector (as export-otlp does), e.g. http://localhost:4318',
    )
    .option('--otlp-header <name=value>', 'HTTP header for the collector (repeatable)', collect)
    .option('--no-otlp-content', 'leave prompts, replies, code and outputs out of the streamed spans');
}

/** Runs until SIGINT/SIGTERM, then stops the workers and closes the logs. */
export async function serveUntilStopped(s: Serving): Promise<void> {
  await new Promise<void>((res) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      res();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await s.close();
}

/** The Electron binary, if this machine has it (it downloads on first launch, which needs the internet). */
export function electronBinary(): string | null {
  const pkg = resolve(repoRoot, 'node_modules/electron');
  const override = process.env['ELECTRON_OVERRIDE_DIST_PATH'];
  const pathFile = join(pkg, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const bin = join(override ?? join(pkg, 'dist'), readFileSync(pathFile, 'utf8').trim());
  return existsSync(bin) ? bin : null;
}

export function registerServe(program: Command): void {
  addServeOptions(program.command('serve').description('Serve the app in a browser (host included), on 127.0.0.1 by default.')).action(
    async (o: ServeOptions) => {
      const s = await startServing(o);
      process.stdout.write(`RLM Studio is serving at ${s.web.url}\nruns: ${resolve(o.runsDir)}\n`);
      await serveUntilStopped(s);
    },
  );

  addServeOptions(
    program.command('start').description('Open the desktop app; where Electron is not available, serve the same UI in web mode.'),
  ).action(async (o: ServeOptions) => {
    const electron = electronBinary();
    if (electron !== null) {
      // Electron runs JavaScript only: main, preload, host process and worker are bundled
      // into dist/electron (package.json `main` points at dist/electron/main.mjs).
      // The shell loads the UI from dist/renderer beside its bundle, whatever RLM_STUDIO_UI_DIR says.
      ensureRendererBuilt(defaultRendererDist);
      const built = spawnSync(process.execPath, [resolve(repoRoot, 'src-main/cli/electron-build.ts')], {
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      if (built.status !== 0) throw new UsageError('could not bundle the desktop shell into dist/electron');
      // The shell runs its host and session workers in this Node 24, never in Electron
      // (src-main/electron/session-runtime.ts).
      const child = spawn(electron, [repoRoot], { stdio: 'inherit', env: { ...process.env, [NODE_ENV_VAR]: process.execPath } });
      await new Promise<void>((res) => child.on('exit', (code) => ((process.exitCode = code ?? 1), res())));
      return;
    }
    process.stderr.write(
      'rlm-studio: the Electron binary is not available on this machine (it is downloaded on first launch, and that needs the internet). Serving the same UI in web mode instead.\n',
    );
    const s = await startServing(o);
    process.stdout.write(`RLM Studio is serving at ${s.web.url}\nruns: ${resolve(o.runsDir)}\n`);
    await serveUntilStopped(s);
  });

  addServeOptions(
    program
      .command('view')
      .description('Open a saved log, or an evaluation directory (rlm-studio eval --out), in the app (starts serve with it preselected).')
      .argument('<log>', 'a log file in any supported format, or a directory with results.jsonl'),
  ).action(async (log: string, o: ServeOptions) => {
    if (!existsSync(log)) throw new UsageError(`${log}: no such file or directory`);
    const asEval = isEvalDir(log);
    const s = await startServing(o);
    try {
      if (asEval) {
        // The page opens it again from the fragment; the host reuses the sessions opened here.
        const reply = await s.host.execute(null, { type: 'eval.open', path: resolve(log), openLogs: 50 });
        const n = reply.evaluation.tasks.length;
        process.stdout.write(
          `RLM Studio is serving the evaluation ${log} (${n} task(s)) at ${s.web.url}#eval=${encodeURIComponent(resolve(log))}\n`,
        );
      } else {
        const reply = await s.host.execute(null, { type: 'session.open', path: log });
        const id = reply.session.sessionId;
        process.stdout.write(`RLM Studio is serving ${log} at ${s.web.url}#session=${encodeURIComponent(id)}\n`);
      }
    } catch (err) {
      await s.close();
      throw new UsageError(`cannot open ${log}: ${(err as Error).message}`);
    }
    await serveUntilStopped(s);
  });
}
