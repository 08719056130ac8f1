// A session's worker process: holds the session's engine conversation and its isolates, so that an
// isolate that takes the process down (isolated-vm can abort on out-of-memory) kills this
// session only. Always a plain Node 24 process (never Electron), forked by the host with
// the flags the sandboxes need; talks to the host over the fork() IPC channel and exits
// when the host goes.
import type { LiveReplyDelta, LiveReplySink } from '../../src-shared/live-reply.ts';
import { withoutUndefined } from '../../src-shared/defined.ts';
import { languageOfChoice, type ReplLanguage, type TrajectoryEvent } from '../../src-shared/events.ts';
import type { PauseInfo } from '../../src-shared/protocol.ts';
import { EventRecorder, RlmConversation, type RlmConfig } from '../engine/index.ts';
import { OpenAiCompatibleClient } from '../lm/openai-client.ts';
import { streamFor } from '../lm/prompt-pack.ts';
import { ReplayClient } from '../lm/replay-client.ts';
import { samplingArgs } from '../lm/sampling.ts';
import type { LmClient } from '../lm/types.ts';
import { parseJsonContext } from '../sandbox/json-source.ts';
import type { SandboxValue } from '../sandbox/types.ts';
import { readContextFile } from '../engine/context-file.ts';
import { Debugger } from './debugger.ts';
import { demoContext } from './demo.ts';
import { loadToolsModule } from '../engine/tools-module.ts';
import { exitProcess, pythonUsed } from '../sandbox/python/lifecycle.ts';
import { connectToHost } from './worker-channel.ts';
import { type FromWorker, type RerunSpec, ToWorker, type WorkerSpec } from './worker-protocol.ts';
import { rerunInWorker, rerunSummary } from './worker-rerun.ts';

// The engine imports the JavaScript REPL's module when it sets a REPL up, so that a command
// line's first request need not wait for isolated-vm; a worker (a spare, forked ahead of its
// session) loads it now instead, while it waits. A failure is the session's to report.
import('../sandbox/isolated-repl.ts').catch(() => undefined);

const channel = connectToHost();
const send = (msg: FromWorker): void => channel.send(msg);
const sendAndWait = (msg: FromWorker): Promise<void> => channel.sendAndWait(msg);

// The host is our only reason to live: when its channel closes (host exited or was killed)
// nothing can read our events any more. Mid-run, process.exit() can hang while an isolate
// is busy (seen with a sub-call pending), so an orphan stops itself the hard way; the log
// is the host's, so nothing is lost here.
let finished = false;
const die = (): never => {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
};
channel.onDisconnect(() => (finished ? void exitProcess(0) : die()));
// Anything unexpected: tell the host if it is still there, then stop the hard way.
const fatal = (err: unknown): void => {
  try {
    send({ t: 'fatal', message: `the worker crashed: ${err instanceof Error ? err.message : String(err)}` });
  } finally {
    setTimeout(die, 100);
  }
};
process.on('uncaughtException', fatal);
process.on('unhandledRejection', fatal);

let dbg: Debugger | null = null;
/** The turn in progress's cancel switch (a follow-up gets a new one). */
let abort = new AbortController();
let started = false;
/** A finished conversation kept for follow-up turns (`WorkerSpec.followUps`), until the host sends `end`. */
let keptConversation: RlmConversation | null = null;
/** The language of the session's REPL, for a follow-up's context file. */
let keptLanguage: ReplLanguage = 'javascript';
// Commands can arrive before `start` (the host sends as soon as the client asks): kept here.
let early: { pause: boolean; breakpoints: WorkerSpec['breakpoints'] | null } = { pause: false, breakpoints: null };

// Events are batched per macrotask: one IPC message for a burst (a batch of sub-calls)
// instead of hundreds, while a lone event still goes out at once.
let outbox: TrajectoryEvent[] = [];
let flushScheduled = false;
function queueEvent(e: TrajectoryEvent): void {
  outbox.push(e);
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushEvents);
  }
}
function flushEvents(): void {
  flushScheduled = false;
  if (outbox.length === 0) return;
  const events = outbox;
  outbox = [];
  send({ t: 'events', events });
}

// Streamed replies go out per macrotask too, after the events queued before them.
let liveOutbox: LiveReplyDelta[] = [];
let liveScheduled = false;
const liveSink: LiveReplySink = {
  delta(d) {
    liveOutbox.push(d);
    if (liveScheduled) return;
    liveScheduled = true;
    setImmediate(() => {
      liveScheduled = false;
      flushEvents();
      const deltas = liveOutbox;
      liveOutbox = [];
      if (deltas.length > 0) send({ t: 'live', deltas });
    });
  },
};

async function loadContext(c: WorkerSpec['context'], repl: ReplLanguage): Promise<SandboxValue> {
  switch (c.kind) {
    case 'text':
      return c.text;
    case 'json':
      try {
        return parseJsonContext(c.json);
      } catch (err) {
        throw new Error(`the JSON context does not parse: ${(err as Error).message}`, { cause: err });
      }
    case 'file':
      return readContextFile(c.path, { flat: repl === 'python' });
    case 'demo':
      return demoContext(c.name);
  }
}

/** Runs the session's first completion; true when it is kept for follow-ups. */
async function start(spec: WorkerSpec): Promise<boolean> {
  // Names the process in `ps` (workers are booted before they know their session).
  process.title = `rlm-studio worker ${spec.sessionId}`;
  // A spare warmed for Python that got a JavaScript session lets its interpreter go.
  if (spec.repl !== 'python' && pythonUsed()) void import('../sandbox/python/pool.ts').then((pool) => pool.coolPython());
  keptLanguage = languageOfChoice(spec.repl);
  const context = await loadContext(spec.context, keptLanguage);
  // As the CLI: no streaming under a reference pack, whose requests carry no stream fields.
  const stream = streamFor(undefined, spec.prompts);
  const http = new OpenAiCompatibleClient({
    baseUrl: spec.baseUrl,
    apiKey: spec.apiKey ?? 'no-key',
    ...(Object.keys(spec.prices).length > 0 ? { priceTable: spec.prices } : {}),
    sampling: samplingArgs(spec.sampling),
    stream,
  });
  const subHttp = spec.sub
    ? new OpenAiCompatibleClient({
        baseUrl: spec.sub.baseUrl,
        apiKey: spec.sub.apiKey ?? 'no-key',
        ...(Object.keys(spec.sub.prices).length > 0 ? { priceTable: spec.sub.prices } : {}),
        sampling: samplingArgs(spec.sub.sampling),
        stream,
      })
    : null;
  const replay = spec.replay ? new ReplayClient(spec.replay, http) : null;
  const client: LmClient = replay ?? http;
  // A fork replays recorded sub-calls too; the ones that go live go to the sub endpoint.
  const subClient: LmClient | null = subHttp ? (replay ? replay.withLive(subHttp) : subHttp) : null;
  const onPause = (info: PauseInfo | null): void => {
    flushEvents();
    send({ t: 'status', status: info ? 'paused' : 'running', pause: info });
  };
  dbg = new Debugger(early.breakpoints ?? spec.breakpoints, spec.startPaused || early.pause, { onPause });
  const recorder = new EventRecorder();
  // The replay client learns who calls from the events, so it must see them first.
  if (replay) recorder.listen((e) => replay.observe(e));
  recorder.listen(queueEvent);
  const l = spec.limits;
  const conversation = new RlmConversation(
    withoutUndefined<RlmConfig>({
      client,
      model: spec.model,
      subModel: spec.subModel,
      maxDepth: l.maxDepth,
      maxIterations: l.maxIterations,
      maxBudgetUsd: l.maxBudgetUsd ?? null,
      maxTimeoutMs: l.maxTimeoutMs ?? null,
      maxTokens: l.maxTokens ?? null,
      maxErrors: l.maxErrors ?? null,
      maxConcurrency: l.maxConcurrency,
      maxConcurrencyLlm: l.maxConcurrencyLlm,
      maxConcurrencyRlm: l.maxConcurrencyRlm,
      maxErrorsMode: l.maxErrorsMode,
      childLlmModel: l.childLlmModel,
      finalPatterns: spec.finalPatterns,
      repl: languageOfChoice(spec.repl),
      // Python in the machine's CPython, inside the OS sandbox.
      ...(spec.repl === 'cpython' ? { cpython: {} } : {}),
      ...(spec.systemPrompt !== null ? { systemPrompt: spec.systemPrompt } : {}),
      ...(spec.tools !== null ? { tools: await loadToolsModule(spec.tools) } : {}),
      ...(spec.examples && spec.examples.length > 0 ? { examples: spec.examples } : {}),
      ...(spec.prompts ? { prompts: spec.prompts } : {}),
      ...(spec.contextWindow !== undefined ? { contextWindow: spec.contextWindow } : {}),
      gates: dbg.gates(),
      ...(subClient ? { subClient } : {}),
      ...(replay && spec.replay?.substitute ? { substitutions: replay } : {}),
    }),
    { sink: recorder, persistent: spec.followUps === true, live: liveSink },
  );
  send({ t: 'status', status: 'running', pause: null });
  let keep = false;
  try {
    const outcome = await conversation.completion(context, spec.query, { signal: abort.signal });
    flushEvents();
    keep = spec.followUps === true && keepsFor(outcome.stopReason);
    if (keep) keptConversation = conversation;
    await sendAndWait({
      t: 'done',
      stopReason: outcome.stopReason,
      message: outcome.message,
      replay: replay ? { ...replay.counts } : null,
    });
  } finally {
    if (!keep) conversation.close();
  }
  return keep;
}

/**
 * A completion that ended this way leaves a REPL worth another turn: a cancelled one too, as the
 * engine keeps it (or replaces it and tells the next turn, when the cancel cut a block).
 */
function keepsFor(stopReason: string): boolean {
  return stopReason !== 'error';
}

/** One more completion in the kept conversation; false when the conversation ended with it. */
async function followUp(msg: ToWorker & { t: 'followUp' }): Promise<boolean> {
  if (keptConversation === null) throw new Error('this session keeps no REPL for a follow-up');
  const context = msg.context === null ? msg.query : await loadContext(msg.context, keptLanguage);
  const conversation = keptConversation;
  keptConversation = null;
  abort = new AbortController();
  dbg?.setBreakpoints(msg.breakpoints);
  send({ t: 'status', status: 'running', pause: null });
  let keep = false;
  try {
    const outcome = await conversation.completion(context, msg.query, { signal: abort.signal });
    flushEvents();
    keep = keepsFor(outcome.stopReason);
    if (keep) keptConversation = conversation;
    await sendAndWait({ t: 'done', stopReason: outcome.stopReason, message: outcome.message, replay: null });
  } finally {
    if (!keep) conversation.close();
  }
  return keep;
}

async function rerun(spec: RerunSpec): Promise<false> {
  process.title = `rlm-studio worker ${spec.sessionId} (re-execution)`;
  const context = await loadContext(spec.context, languageOfChoice(spec.repl));
  const recorder = new EventRecorder();
  recorder.listen(queueEvent);
  send({ t: 'status', status: 'running', pause: null });
  try {
    const result = await rerunInWorker(spec, context, recorder, abort.signal);
    flushEvents();
    await sendAndWait({ t: 'done', stopReason: 'answered', message: rerunSummary(result), replay: null });
    return false;
  } catch (err) {
    if (!abort.signal.aborted) throw err;
    flushEvents();
    await sendAndWait({ t: 'done', stopReason: 'cancelled', message: 'the re-execution was cancelled', replay: null });
  }
  return false;
}

/** Every message has been handed over; closing the channel ends this process. */
function finish(): void {
  finished = true;
  channel.disconnect();
}

async function handle(msg: ToWorker): Promise<void> {
  switch (msg.t) {
    case 'start':
    case 'rerun':
      if (started) return;
      started = true;
      try {
        if (await (msg.t === 'start' ? start(msg.spec) : rerun(msg.spec))) return;
      } catch (err) {
        flushEvents();
        await sendAndWait({ t: 'fatal', message: err instanceof Error ? err.message : String(err) });
      }
      finish();
      return;
    case 'followUp':
      try {
        if (await followUp(msg)) return;
      } catch (err) {
        flushEvents();
        await sendAndWait({ t: 'fatal', message: err instanceof Error ? err.message : String(err) });
      }
      finish();
      return;
    case 'end':
      keptConversation?.close();
      keptConversation = null;
      finish();
      return;
    case 'warm':
      if (!started) void import('../sandbox/python/pool.ts').then((pool) => pool.warmPython());
      return;
    case 'pause':
      if (dbg) dbg.pause();
      else early.pause = true;
      return;
    case 'continue':
      early.pause = false;
      dbg?.continue(msg.all ?? false);
      return;
    case 'step':
      dbg?.step();
      return;
    case 'cancel':
      abort.abort();
      dbg?.cancel();
      return;
    case 'breakpoints':
      if (dbg) dbg.setBreakpoints(msg.breakpoints);
      else early = { ...early, breakpoints: msg.breakpoints };
      return;
    case 'edit':
      try {
        if (!dbg) throw new Error('the session has not started');
        const pause = dbg.edit(msg.edit);
        send({ t: 'result', req: msg.req, ok: true, pause });
      } catch (err) {
        send({ t: 'result', req: msg.req, ok: false, error: (err as Error).message });
      }
      return;
    case 'variables':
      try {
        if (!dbg?.paused) throw new Error('variables can be listed while the session is paused');
        const repl = dbg.replOf(msg.runId);
        if (!repl) throw new Error(`run ${msg.runId} has no REPL here (not reached yet, or already finished)`);
        const variables = await repl.listVariables();
        send({ t: 'result', req: msg.req, ok: true, variables });
      } catch (err) {
        send({ t: 'result', req: msg.req, ok: false, error: (err as Error).message });
      }
      return;
  }
}

channel.onMessage((raw: unknown) => {
  const parsed = ToWorker.safeParse(raw);
  if (!parsed.success) {
    send({ t: 'fatal', message: `bad message from host: ${parsed.error.issues[0]?.message ?? 'invalid'}` });
    return;
  }
  void handle(parsed.data);
});
send({ t: 'ready' });
