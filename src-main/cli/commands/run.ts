// `rlm-studio run`: one RLM completion against an OpenAI-compatible endpoint.
import { readFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { fileErrorText } from '../../../src-shared/file-errors.ts';
import {
  asSessionId,
  languageOfChoice,
  retriesOf,
  type ReplChoice,
  type SandboxInfo,
  type StopReason,
} from '../../../src-shared/events.ts';
import { makeHeader } from '../../../src-shared/codecs/native-lines.ts';
import type { UsageByModel } from '../../../src-shared/trajectory/by-model.ts';
import {
  DEFAULT_EXAMPLE_BUDGET,
  EventRecorder,
  RlmConversation,
  type RunOutcome,
  type ToolSpec,
  type WorkedExample,
  WorkedExampleError,
} from '../../engine/index.ts';
import { ContextFileError, describeAsciiTextFile, readContextFile } from '../../engine/context-file.ts';
import { describedContext } from '../../engine/context-meta.ts';
import { loadToolsModule, ToolsModuleError } from '../../engine/tools-module.ts';
import { loadPromptsOption } from '../prompts-option.ts';
import { sharedSandboxProcessProbed, type SandboxProcess } from '../../engine/sandbox-process/sandbox-process.ts';
import { keepHttpParserOnBaseline } from '../../lm/http-parser-tiering.ts';
import { keepReplsOutOfProcess, replsOutOfProcess } from '../../engine/conversation.ts';
import { folderProblem, NativeLogFile, nativeLogName } from '../../logs/native-file-sink.ts';
import type { SandboxValue } from '../../sandbox/types.ts';
import { checkReplChoice } from '../cpython-check.ts';
import { UsageError } from '../errors.ts';
import { textFor } from '../terminal-text.ts';
import { optionAlias } from '../option-aliases.ts';
import { addLimitOptions, type LimitOptions, positiveInt, sessionSettings } from '../options.ts';
import { addRoleOptions, type RoleOptions, roleClients, urlArg } from '../role-options.ts';
import { streamFor } from '../../lm/prompt-pack.ts';
import { liveProgressWriter, progressLine } from '../progress.ts';
import type { LiveReplySink } from '../../../src-shared/live-reply.ts';
import { markPhase, phaseTimingEnabled } from '../../../src-shared/phase-timing.ts';
import { eventMark } from '../timing-report.ts';

export interface RunCliOptions extends LimitOptions, RoleOptions {
  context: string;
  query?: string;
  baseUrl: string;
  model: string;
  runsDir?: string;
  json?: boolean;
  compaction?: boolean;
  /** A file whose text replaces the built-in system prompt. */
  systemPrompt?: string;
  /** An ES module of custom tools. */
  tools?: string;
  /** Saved logs shown to the root run as worked examples. */
  example?: string[];
  exampleBudget?: number;
}

/** The worked examples of `--example LOG…` within `--example-budget`, with their problems as usage errors. */
export async function loadExampleOptions(o: { example?: string[]; exampleBudget?: number }): Promise<WorkedExample[] | undefined> {
  if (!o.example || o.example.length === 0) return undefined;
  try {
    // Imported only when asked for: reading logs brings the log schemas (zod), which a plain
    // `run` would otherwise load before its first request.
    const { loadWorkedExamples } = await import('../../logs/worked-examples.ts');
    return await loadWorkedExamples(o.example, o.exampleBudget ?? DEFAULT_EXAMPLE_BUDGET);
  } catch (err) {
    if (err instanceof WorkedExampleError) throw new UsageError(`--example: ${err.message}`);
    throw err;
  }
}

/** `--example LOG` (repeatable) and `--example-budget CHARS`, as `run`, `chat` and `eval` take them. */
export function addExampleOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option(
        '--example <log>',
        'a saved log (either format) shown to the root model as a worked example: its code, shortened outputs and answer; repeatable',
      ).argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]),
    )
    .addOption(
      new Option('--example-budget <chars>', 'characters all worked examples may take in the system prompt together, shared equally')
        .argParser(positiveInt('--example-budget'))
        .default(DEFAULT_EXAMPLE_BUDGET),
    );
}

/** The text of `--system-prompt FILE`. */
export async function loadSystemPromptFile(path: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read --system-prompt ${path}: ${fileErrorText(err)}`);
  }
  if (text.trim() === '') throw new UsageError(`--system-prompt ${path} is empty`);
  return text;
}

/** The tools of `--tools FILE.mjs`, with its problems as usage errors. */
export async function loadToolsOption(path: string): Promise<Record<string, ToolSpec>> {
  try {
    return await loadToolsModule(path);
  } catch (err) {
    if (err instanceof ToolsModuleError) throw new UsageError(err.message);
    throw err;
  }
}

/** Reads a context file for a REPL in `repl` (see `readContextFile`), its problems as usage errors. */
export async function loadContextFile(path: string, repl: ReplChoice | undefined): Promise<SandboxValue> {
  try {
    return await readContextFile(path, { flat: repl === 'python' || repl === 'cpython' });
  } catch (err) {
    if (err instanceof ContextFileError) throw new UsageError(err.message);
    throw err;
  }
}

export interface RunSummary {
  answer: string | null;
  stopReason: StopReason;
  message: string | null;
  logFile: string | null;
  iterations: number;
  durationMs: number;
  usage: {
    inputTokens: number;
    outputTokens: number;
    calls: number;
    costUsd: number | null;
    byModel: UsageByModel;
    /** Of the input, served from the providers' prompt caches; absent when none. */
    cachedInputTokens?: number;
    /** Of the output, the models' thinking; absent when none. */
    reasoningTokens?: number;
  };
  /** Requests the client retried before the endpoint answered; absent when none. */
  retries?: number;
  /** What protected the REPL's code (run.start's `sandbox`); absent when not recorded. */
  sandbox?: SandboxInfo;
}

/** A session of the CLI: the engine session, its log (if any) and what to close at the end. */
export interface CliSession {
  session: RlmConversation;
  log: NativeLogFile | null;
  /** Requests retried so far in this session (each call's `retries`, as recorded). */
  retries(): number;
  /** The layers that protect the session's REPL, once its first run has started. */
  sandbox(): SandboxInfo | null;
  close(): void;
}

/**
 * The endpoint, the log and the engine session `run` and `chat` share: one log for the whole
 * session, progress lines to `onProgress`. `persistent` keeps one REPL across completions.
 */
export async function openCliSession(
  o: Omit<RunCliOptions, 'context' | 'query'>,
  onProgress: ((line: string) => void) | null,
  persistent = false,
  onLive: LiveReplySink | null = null,
): Promise<CliSession> {
  const systemPrompt = o.systemPrompt === undefined ? undefined : await loadSystemPromptFile(o.systemPrompt);
  const tools = o.tools === undefined ? undefined : await loadToolsOption(o.tools);
  const examples = await loadExampleOptions(o);
  const prompts = await loadPromptsOption(o.prompts);
  const { client, subClient } = roleClients({ ...o, stream: streamFor(o.stream, prompts) });
  const sessionId = asSessionId(randomUUID());
  const started = new Date();
  let log: NativeLogFile | null = null;
  if (o.runsDir) {
    const dir = resolve(o.runsDir);
    try {
      log = new NativeLogFile(
        join(dir, nativeLogName(sessionId, started)),
        makeHeader(sessionId, started, undefined, languageOfChoice(o.repl ?? 'javascript')),
      );
    } catch (err) {
      throw new UsageError(`cannot create a log in --runs-dir ${o.runsDir}: ${folderProblem(err)}`);
    }
  }
  const recorder = new EventRecorder();
  let retries = 0;
  recorder.listen((e) => (retries += retriesOf(e)));
  let sandbox: SandboxInfo | null = null;
  recorder.listen((e) => {
    if (e.type === 'run.start' && e.depth === 0 && e.sandbox) sandbox = e.sandbox;
  });
  if (log) {
    const file = log;
    recorder.listen((e) => file.append(e));
  }
  if (phaseTimingEnabled()) recorder.listen((e) => markPhase(eventMark(e)));
  if (onProgress) {
    recorder.listen((e) => {
      const line = progressLine(e);
      if (line !== null) onProgress(line);
    });
  }
  let session: RlmConversation;
  try {
    session = new RlmConversation(
      {
        client,
        model: o.model,
        ...sessionSettings(o),
        compaction: o.compaction ?? false,
        ...(systemPrompt !== undefined ? { systemPrompt } : {}),
        ...(tools !== undefined ? { tools } : {}),
        ...(examples !== undefined ? { examples } : {}),
        ...(prompts !== undefined ? { prompts } : {}),
        ...(subClient ? { subClient } : {}),
      },
      { sink: recorder, persistent, ...(onLive ? { live: onLive } : {}) },
    );
  } catch (err) {
    log?.close();
    throw new UsageError((err as Error).message);
  }
  return {
    session,
    log,
    retries: () => retries,
    sandbox: () => sandbox,
    close: () => {
      session.close();
      log?.close();
    },
  };
}

/** What `run --json` prints (and each turn of `chat --json`, with more fields). */
export function summaryOf(outcome: RunOutcome, logFile: string | null, retries = 0, sandbox: SandboxInfo | null = null): RunSummary {
  return {
    answer: outcome.answer,
    stopReason: outcome.stopReason,
    message: outcome.message,
    logFile,
    iterations: outcome.iterations,
    durationMs: outcome.durationMs,
    usage: {
      inputTokens: outcome.usage.inputTokens,
      outputTokens: outcome.usage.outputTokens,
      calls: outcome.usage.calls,
      costUsd: outcome.usage.costUsd,
      byModel: outcome.usage.byModel,
      ...(outcome.usage.cachedInputTokens ? { cachedInputTokens: outcome.usage.cachedInputTokens } : {}),
      ...(outcome.usage.reasoningTokens ? { reasoningTokens: outcome.usage.reasoningTokens } : {}),
    },
    ...(retries > 0 ? { retries } : {}),
    ...(sandbox ? { sandbox } : {}),
  };
}

/**
 * Where the REPLs of `run` and `chat` live: in the sandbox process, returned (this process holds
 * the API key in its environment, and on Node's startup snapshot, as bin/rlm-studio starts these
 * commands, it may not run isolates at all), started once the first model call is out (for
 * Python, at once, by the command line: cli/python-prefetch.ts); or, for CPython, in its own
 * OS-sandboxed process (null). A Python REPL in this process has Pyodide's files and snapshot
 * read (off the main thread) while the context and the SDK load, its interpreter started once
 * the first call is out, as the JavaScript REPL's. With no REPL here, the only WebAssembly left
 * is fetch's parser, held on baseline code (lm/http-parser-tiering.ts).
 */
export async function replSandboxFor(o: Pick<RunCliOptions, 'repl'>): Promise<SandboxProcess | null> {
  const sandbox = replsOutOfProcess() && o.repl !== 'cpython' ? await sharedSandboxProcessProbed() : null;
  if (sandbox && o.repl === 'python') sandbox.warmPython();
  else if (o.repl === 'python') void import('../../sandbox/python/interpreter.ts').then((python) => python.preparePython());
  if (sandbox || o.repl === 'cpython') keepHttpParserOnBaseline();
  return sandbox;
}

export async function runOnce(
  o: RunCliOptions,
  onProgress: ((line: string) => void) | null,
  signal?: AbortSignal,
  onLive: LiveReplySink | null = null,
): Promise<RunSummary> {
  markPhase('run: options read');
  await checkReplChoice(o);
  // The sandbox process, if the REPL lives there, reads the context file itself.
  const sandbox = await replSandboxFor(o);
  // With its REPLs in the sandbox process (and a REPL at all), an ASCII text file is only
  // described here: the child reads it, and this process never decodes it.
  // Only when the child can read it: inside the OS sandbox, a file bound before it started.
  const meta = sandbox?.canShareContextFile(o.context) && o.maxDepth !== 0 ? describeAsciiTextFile(o.context) : null;
  const context = meta ? describedContext(meta) : await loadContextFile(o.context, o.repl);
  sandbox?.shareContextFile(resolve(o.context), context, o.repl === 'python');
  markPhase('run: context ready');
  const cli = await openCliSession(o, onProgress, false, onLive);
  markPhase('run: session open');
  let outcome: RunOutcome;
  try {
    outcome = await cli.session.completion(context, o.query ?? null, signal ? { signal } : {});
  } finally {
    cli.close();
  }
  return summaryOf(outcome, cli.log?.path ?? null, cli.retries(), cli.sandbox());
}

/** The endpoint, model, limit, log and prompt options `run` and `chat` both take. */
export function addConversationOptions(cmd: Command): Command {
  return optionAlias(
    addExampleOptions(
      addRoleOptions(
        addLimitOptions(
          cmd
            .addOption(
              new Option('--base-url <url>', 'OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1')
                .argParser(urlArg('--base-url'))
                .makeOptionMandatory(),
            )
            .requiredOption('--model <name>', 'root model'),
        ),
      )
        .option('--runs-dir <dir>', 'write the session log (*.rlm.jsonl) into this folder (old name: --log-dir)')
        .option('--compaction', 'summarise the root history when it nears the model window')
        .option('--system-prompt <file>', 'replace the built-in system prompt with this file ({tools} in it becomes the tools list)')
        .option('--tools <file.mjs>', 'custom tools: an ES module whose exports are values or { fn, description }'),
    ),
    '--log-dir <dir>',
    '--runs-dir',
  );
}

export function registerRun(program: Command): void {
  addConversationOptions(
    program
      .command('run')
      .description('Run one RLM completion over a context file.')
      .requiredOption('--context <file>', 'context file: .json is parsed, anything else is read as text')
      .option('--query <text>', 'the question the root model answers'),
  )
    .option('--json', 'print one JSON object with the result')
    .action(async (o: RunCliOptions) => {
      // The API key is in this process's environment: the model's code runs in the sandbox process.
      keepReplsOutOfProcess();
      const controller = new AbortController();
      const onSignal = (): void => controller.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        // What the model wrote reaches a terminal without its control sequences (terminal-text.ts).
        const progress = o.json ? null : liveProgressWriter(process.stderr);
        const summary = await runOnce(
          o,
          progress ? (line) => progress.line(textFor(process.stderr, line)) : null,
          controller.signal,
          progress ? { delta: (d) => progress.live(d) } : null,
        );
        markPhase('run: summary ready');
        if (o.json) {
          process.stdout.write(`${JSON.stringify(summary)}\n`);
        } else {
          if (summary.stopReason !== 'answered')
            process.stderr.write(
              `stopped: ${summary.stopReason}${summary.message ? ` (${textFor(process.stderr, summary.message)})` : ''}\n`,
            );
          if (summary.logFile) process.stderr.write(`log: ${summary.logFile}\n`);
          process.stdout.write(`${textFor(process.stdout, summary.answer ?? '')}\n`);
        }
        process.exitCode = summary.stopReason === 'error' ? 1 : summary.stopReason === 'cancelled' ? 130 : 0;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}
