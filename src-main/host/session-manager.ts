// The host: sessions (live ones in worker processes, saved ones read from disk), their
// logs, their subscribers, profiles. Carriers connect through `connect()`; everything a
// client sends is validated here with the protocol's schemas.
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import { AnyLogReader, type LogFormat, type LogItem } from '../../src-shared/codecs/detect.ts';
import { formatProblem } from '../../src-shared/codecs/lines.ts';
import { checkEvent, encodeNative } from '../../src-shared/codecs/native.ts';
import { makeHeader } from '../../src-shared/codecs/native-lines.ts';
import { exportRlmPython } from '../../src-shared/codecs/rlm-python.ts';
import { asRunId, asSessionId, type LogHeader, type ReplLanguage, type TrajectoryEvent } from '../../src-shared/events.ts';
import {
  DEMO_PROFILE_NAME,
  type Breakpoint,
  type ClientMessage,
  type CommandType,
  ContextSource,
  type EndpointProfile,
  type ErrorCode,
  type EvalOverview,
  type FollowUp,
  type ForkSession,
  type HostMessage,
  parseClientMessage,
  PROTOCOL_VERSION,
  type RecentRun,
  ReplLanguageInput,
  type Replies,
  type RerunSession,
  RunLimitsInput,
  type SessionStatus,
  type SessionSummary,
  type StartSession,
  type VariableView,
} from '../../src-shared/protocol.ts';
import { EvalDirError, readEvalDir } from '../eval/open-dir.ts';
import { buildReplayPlan, type ReplayPlan } from '../lm/replay-client.ts';
import { DEFAULT_EXAMPLE_BUDGET, type WorkedExample, WorkedExampleError } from '../engine/worked-example.ts';
import { NativeLogFile, nativeLogName } from '../logs/native-file-sink.ts';
import { loadWorkedExamples } from '../logs/worked-examples.ts';
import { readLogBatches } from '../logs/read-log.ts';
import { startMockLlm, type MockLlmServer } from '../mock-llm/server.ts';
import type { ConnectOptions, HostConnection, HostEndpoint } from './endpoint.ts';
import { DEMO_SCENARIOS } from './demo.ts';
import { ProfileStore } from './profiles.ts';
import type { KeyStore } from './key-store.ts';
import { forkLauncher, type WorkerHandle, type WorkerLauncher } from './worker-launcher.ts';
import { changeSessionLabels, LabelQueryInputError, runQuery, sessionLabels } from './labels-and-queries.ts';
import { FromWorker, type RerunSpec, type ToWorker, type WorkerSpec } from './worker-protocol.ts';

export interface HostOptions {
  runsDir: string;
  settingsDir: string;
  /** Simulated latency of the built-in demo model, per call. Default 120 ms. */
  demoLatencyMs?: number;
  /** Where API keys named by profiles are looked up (web mode). Default: process.env. */
  env?: Record<string, string | undefined>;
  /** Desktop: resolves a keychain reference. Tried before `env`. */
  resolveKey?: (ref: string) => string | null;
  /** Shown in `hello`. */
  label?: string;
  /** Milliseconds a cancelled worker gets to wind down before it is killed. Default 5000. */
  cancelGraceMs?: number;
  /** Keep one booted worker ready so the next session starts at once. Default true. */
  prewarm?: boolean;
  /** How session workers are started. Default: child_process.fork of worker.ts (web mode). */
  workerLauncher?: WorkerLauncher;
  /** Desktop: where `profiles.setKey` stores keys (the OS keychain). Absent in web mode. */
  keyStore?: KeyStore;
  /**
   * Saved logs larger than this are not held in memory: their events stay in the file and
   * each subscription is served by reading it again from the start, skipping to `fromSeq`.
   * Default 64 MiB.
   */
  inMemoryLogMaxBytes?: number;
  /**
   * A finished live session keeps its worker and REPL for follow-up turns this long after its
   * last turn ended. Default 10 minutes.
   */
  followUpIdleMs?: number;
  /** At most this many finished sessions keep their REPLs; the one idle longest goes first. Default 4. */
  followUpKeep?: number;
  /** Told the events of live sessions as they arrive, after they are logged (e.g. `serve --otlp-endpoint`). */
  onLiveEvents?: (sessionId: string, events: readonly TrajectoryEvent[]) => void;
}

class HostError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** Labels and queries report what the person can fix as a bad request. */
async function inputErrors<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof LabelQueryInputError) throw new HostError('bad_request', err.message);
    throw err;
  }
}

/** What a live session was started with; written beside its log so a saved log can be forked. */
const SessionRecipe = z.strictObject({
  version: z.literal(1),
  profile: z.string(),
  model: z.string(),
  subModel: z.string().nullable(),
  context: ContextSource,
  query: z.string().nullable(),
  limits: RunLimitsInput,
  /** Absent in recipes written before Python: JavaScript. */
  repl: ReplLanguageInput.optional(),
  /** The system prompt that replaced the built-in one, if any. */
  systemPrompt: z.string().optional(),
  finalPatterns: z.boolean().optional(),
  /** A custom tools module on the host. */
  tools: z.string().optional(),
  /** The profile of sub-calls, when not the root's. */
  subProfile: z.string().optional(),
  /** Logs on the host shown to the root as worked examples, and their total budget in characters. */
  examples: z.array(z.string()).optional(),
  exampleBudget: z.number().int().positive().optional(),
});
type SessionRecipe = z.infer<typeof SessionRecipe>;

/** The keychain entry `profiles.setKey` makes for a profile without one: derived from its name, never holding the key. */
function keychainRefOf(profile: string): string {
  return `RLM_STUDIO_KEY_${profile.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase()}`;
}

function recipePathFor(logFile: string): string {
  return logFile.replace(/\.rlm\.jsonl$/, '') + '.rlm.session.json';
}

interface Session {
  id: string;
  title: string;
  status: SessionStatus;
  message: string | null;
  logFile: string | null;
  format: LogFormat;
  readOnly: boolean;
  createdAt: string;
  model: string | null;
  pause: SessionSummary['pause'];
  forkOf: SessionSummary['forkOf'];
  header: LogHeader | null;
  /** Empty for a saved log kept on disk (`onDisk`): read from `logFile` when needed. */
  events: TrajectoryEvent[];
  onDisk: boolean;
  /** Events so far (the next `seq`), in memory or on disk. */
  count: number;
  recipe: SessionRecipe | null;
  /** A re-execution's context and language: what a fork of it starts from (it has no recipe). */
  rerunSource: { context: ContextSource; repl: ReplLanguage; tools: string | null } | null;
  breakpoints: Breakpoint[];
  worker: WorkerHandle | null;
  log: NativeLogFile | null;
  stderrTail: string;
  nextReq: number;
  pending: Map<number, (r: z.infer<typeof FromWorker> & { t: 'result' }) => void>;
  /** Resolves when a saved log has been read to its end. */
  loaded: Promise<void>;
  killTimer: NodeJS.Timeout | null;
  /** Its worker keeps the REPL after a finished turn (live sessions; not re-executions). */
  followUps: boolean;
  /** Finished, and its worker holds the REPL for a follow-up now. */
  kept: { since: number; timer: NodeJS.Timeout } | null;
  /** Why a follow-up can no longer be asked (the REPL was released), in words. */
  followUpGone: string | null;
}

interface SpareWorker {
  child: WorkerHandle;
  ready: boolean;
  stderr: string;
  /** Told to start a Python interpreter. */
  warmed?: boolean;
}

interface Client {
  send: (m: HostMessage) => void;
  buffered: () => number;
  /** Session id → index of the next event to send. */
  subs: Map<string, number>;
}

const TERMINAL: ReadonlySet<SessionStatus> = new Set(['finished', 'failed', 'cancelled', 'saved']);
const EVENTS_PER_MESSAGE = 2000;
/** A client with more than this queued in its carrier gets no more events until it drains. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;

export class Host implements HostEndpoint {
  private readonly opts: HostOptions;
  private readonly sessions = new Map<string, Session>();
  private readonly clients = new Set<Client>();
  private readonly profiles: ProfileStore;
  private demo: Promise<MockLlmServer> | null = null;
  private spare: SpareWorker | null = null;
  /** A Python session has been started here: spare workers start an interpreter as they boot. */
  private pythonExpected = false;
  private readonly dirty = new Set<string>();
  private flushScheduled = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly launcher: WorkerLauncher;
  /** Keys stored by `profiles.setKey` in this host's life, by reference (never persisted here). */
  private readonly storedKeys = new Map<string, string>();
  /** Per client, the kept-on-disk sessions whose events are being streamed to it. */
  private readonly diskStreams = new WeakMap<Client, Set<string>>();

  constructor(opts: HostOptions) {
    this.opts = opts;
    this.profiles = new ProfileStore(opts.settingsDir);
    this.launcher = opts.workerLauncher ?? forkLauncher();
  }

  get runsDir(): string {
    return this.opts.runsDir;
  }

  /** The file a session's events are in (its native log, or the saved log it was opened from). */
  logFileOf(sessionId: string): string | null {
    return this.sessions.get(sessionId)?.logFile ?? null;
  }

  // ---- connections ----

  connect(send: (m: HostMessage) => void, options: ConnectOptions = {}): HostConnection {
    const client: Client = { send, subs: new Map(), buffered: options.buffered ?? (() => 0) };
    this.clients.add(client);
    return {
      receive: (raw) => void this.receive(client, raw),
      close: () => {
        client.subs.clear();
        this.clients.delete(client);
      },
    };
  }

  private safeSend(client: Client, m: HostMessage): void {
    try {
      client.send(m);
    } catch {
      // A carrier that cannot deliver closes itself; nothing to do here.
    }
  }

  private async receive(client: Client, raw: unknown): Promise<void> {
    const parsed = parseClientMessage(raw);
    if (!parsed.ok) {
      const id =
        typeof raw === 'object' && raw !== null && 'id' in raw && Number.isInteger((raw as { id: unknown }).id)
          ? Math.max(0, (raw as { id: number }).id)
          : 0;
      this.safeSend(client, { kind: 'reply', id, ok: false, error: { code: 'bad_request', message: parsed.error } });
      return;
    }
    const { id } = parsed.message;
    try {
      const result = await this.execute(client, parsed.message);
      this.safeSend(client, { kind: 'reply', id, ok: true, result });
      // Events of a new subscription go after its reply.
      if (parsed.message.command.type === 'subscribe') this.markDirty(parsed.message.command.sessionId);
    } catch (err) {
      const code: ErrorCode = err instanceof HostError ? err.code : 'internal';
      this.safeSend(client, { kind: 'reply', id, ok: false, error: { code, message: err instanceof Error ? err.message : String(err) } });
    }
  }

  /** Runs one command for a client (exposed for in-process use and tests). */
  async execute(client: Client | null, msg: ClientMessage): Promise<Replies[CommandType]> {
    const c = msg.command;
    switch (c.type) {
      case 'hello':
        if (c.protocol !== PROTOCOL_VERSION)
          throw new HostError('bad_request', `protocol ${c.protocol} is not supported; this host speaks ${PROTOCOL_VERSION}`);
        return { protocol: PROTOCOL_VERSION, host: this.opts.label ?? 'rlm-studio' } satisfies Replies['hello'];
      case 'sessions.list':
        return { sessions: [...this.sessions.values()].map((s) => this.summary(s)) } satisfies Replies['sessions.list'];
      case 'session.start':
        return { session: this.summary(await this.start(c.params)) };
      case 'session.open':
        return { session: this.summary(await this.open(c.path)) };
      case 'session.openText':
        return { session: this.summary(this.openText(c.name, c.text)) };
      case 'session.cancel':
        return { session: this.summary(this.cancel(c.sessionId)) };
      case 'session.pause':
        return { session: this.summary(this.control(c.sessionId, { t: 'pause' })) };
      case 'session.continue':
        return { session: this.summary(this.control(c.sessionId, { t: 'continue', all: c.all === true })) };
      case 'session.step':
        return { session: this.summary(this.control(c.sessionId, { t: 'step' })) };
      case 'session.setBreakpoints': {
        const s = this.live(c.sessionId);
        s.breakpoints = c.breakpoints;
        if (!TERMINAL.has(s.status)) this.toWorker(s, { t: 'breakpoints', breakpoints: c.breakpoints });
        return { session: this.summary(s) };
      }
      case 'session.edit': {
        const s = this.live(c.sessionId);
        const r = await this.request(s, (req) => ({ t: 'edit', req, edit: c.edit }));
        if (r.pause) s.pause = r.pause;
        this.broadcast(s);
        return { session: this.summary(s) };
      }
      case 'session.variables': {
        const s = this.live(c.sessionId);
        const r = await this.request(s, (req) => ({ t: 'variables', req, runId: c.runId }));
        return { variables: (r.variables ?? []) satisfies VariableView[] };
      }
      case 'session.fork':
        return { session: this.summary(await this.fork(c.params)) };
      case 'session.rerun':
        return { session: this.summary(await this.rerun(c.params)) };
      case 'session.followUp':
        return { session: this.summary(this.followUp(c.params)) };
      case 'session.export':
        return this.exportSession(c.sessionId, c.format);
      case 'profiles.list':
        return { profiles: [this.demoProfile(), ...this.profiles.list()] };
      case 'profiles.save':
        try {
          this.profiles.save(c.profile);
        } catch (err) {
          throw new HostError('bad_request', (err as Error).message);
        }
        return { profiles: [this.demoProfile(), ...this.profiles.list()] };
      case 'profiles.delete':
        return this.deleteProfile(c.profile);
      case 'profiles.setKey':
        return this.setKey(c.profile, c.key);
      case 'runs.recent':
        return { runs: await this.recentRuns(c.limit) };
      case 'subscribe': {
        const s = this.get(c.sessionId);
        if (client) client.subs.set(s.id, Math.min(c.fromSeq, s.count));
        return { session: this.summary(s), header: s.header };
      }
      case 'unsubscribe':
        client?.subs.delete(c.sessionId);
        return {};
      case 'eval.open':
        return this.openEval(c.path, c.openLogs);
      case 'labels.get':
        return { labels: await sessionLabels(c.sessionId, this.get(c.sessionId).logFile) };
      case 'labels.change':
        return { labels: await inputErrors(changeSessionLabels(c.sessionId, this.get(c.sessionId).logFile, c.change)) };
      case 'query.run':
        return inputErrors(runQuery(c.expression, c.paths));
    }
  }

  // ---- pushes ----

  private summary(s: Session): SessionSummary {
    return {
      sessionId: s.id,
      title: s.title,
      status: s.status,
      logFile: s.logFile,
      format: s.format,
      readOnly: s.readOnly,
      createdAt: s.createdAt,
      model: s.model,
      pause: s.pause,
      forkOf: s.forkOf,
      eventCount: s.count,
      message: s.message,
      followUp: this.followUpState(s),
    };
  }

  private broadcast(s: Session): void {
    const m: HostMessage = { kind: 'session', session: this.summary(s) };
    for (const c of this.clients) this.safeSend(c, m);
  }

  private markDirty(sessionId: string): void {
    this.dirty.add(sessionId);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  /**
   * Sends every subscriber the events it has not had yet, in order, in bounded messages. A
   * client whose carrier is backed up is skipped and retried shortly (its position is kept),
   * so a slow browser on a 1 GB log does not make the host buffer the whole log.
   */
  private flush(): void {
    this.flushScheduled = false;
    const ids = [...this.dirty];
    this.dirty.clear();
    let backedUp = false;
    for (const c of this.clients) {
      for (const id of ids) {
        const from = c.subs.get(id);
        const s = this.sessions.get(id);
        if (from === undefined || !s || from >= s.count) continue;
        if (s.onDisk) {
          this.streamFromDisk(c, s, from);
          continue;
        }
        let i = from;
        while (i < s.events.length && c.buffered() < MAX_BUFFERED_BYTES) {
          const end = Math.min(i + EVENTS_PER_MESSAGE, s.events.length);
          this.safeSend(c, { kind: 'events', sessionId: id, events: s.events.slice(i, end) });
          i = end;
        }
        c.subs.set(id, i);
        if (i < s.events.length) {
          backedUp = true;
          this.dirty.add(id);
        }
      }
    }
    if (backedUp && !this.retryTimer) {
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        this.flush();
      }, 15);
    }
  }

  /** Streams a kept-on-disk log's events to one client from `from`, pacing on its carrier. */
  private streamFromDisk(c: Client, s: Session, from: number): void {
    const active = this.diskStreams.get(c) ?? new Set<string>();
    this.diskStreams.set(c, active);
    if (active.has(s.id) || s.logFile === null) return;
    active.add(s.id);
    const file = s.logFile;
    void (async () => {
      let index = 0;
      let next = from;
      let batch: TrajectoryEvent[] = [];
      const stillWanted = (): boolean => this.clients.has(c) && c.subs.get(s.id) !== undefined && !this.closed;
      const send = async (): Promise<void> => {
        while (c.buffered() >= MAX_BUFFERED_BYTES && stillWanted()) await new Promise((r) => setTimeout(r, 15));
        if (!stillWanted() || batch.length === 0) return;
        this.safeSend(c, { kind: 'events', sessionId: s.id, events: batch });
        next += batch.length;
        c.subs.set(s.id, next);
        batch = [];
      };
      try {
        for await (const items of readLogBatches(file)) {
          for (const item of items) {
            if (item.kind !== 'event') continue;
            if (index++ < next) continue;
            batch.push(item.event);
            if (batch.length >= EVENTS_PER_MESSAGE) await send();
          }
          if (!stillWanted()) return;
        }
        await send();
      } catch {
        // The file changed or vanished under us: the client has what could be read.
      } finally {
        active.delete(s.id);
      }
    })();
  }

  /** All events of a session (read back from its file when kept on disk). */
  private async eventsOf(s: Session): Promise<TrajectoryEvent[]> {
    await s.loaded;
    if (!s.onDisk || s.logFile === null) return s.events;
    const out: TrajectoryEvent[] = [];
    for await (const items of readLogBatches(s.logFile)) for (const item of items) if (item.kind === 'event') out.push(item.event);
    return out;
  }

  private append(s: Session, events: TrajectoryEvent[]): void {
    s.count += events.length;
    if (s.onDisk) {
      if (events.length > 0) this.markDirty(s.id);
      return;
    }
    for (const e of events) {
      s.events.push(e);
      // One write per event: a host killed at any moment leaves a log readable up to here.
      s.log?.append(e);
      if (s.model === null && e.type === 'run.start') s.model = e.model;
    }
    if (events.length > 0) this.markDirty(s.id);
  }

  // ---- lookups ----

  private get(id: string): Session {
    const s = this.sessions.get(id);
    if (!s) throw new HostError('not_found', `no session ${id}`);
    return s;
  }

  private live(id: string): Session {
    const s = this.get(id);
    if (s.readOnly) throw new HostError('read_only', `session ${id} is a saved log; it cannot be driven`);
    return s;
  }

  private control(id: string, msg: ToWorker): Session {
    const s = this.live(id);
    if (TERMINAL.has(s.status)) throw new HostError('conflict', `session ${id} has ${s.status}`);
    this.toWorker(s, msg);
    return s;
  }

  private toWorker(s: Session, msg: ToWorker): void {
    if (!s.worker || !s.worker.connected) throw new HostError('conflict', `session ${s.id} has no running worker`);
    s.worker.send(msg);
  }

  private request(s: Session, make: (req: number) => ToWorker): Promise<z.infer<typeof FromWorker> & { t: 'result' }> {
    if (TERMINAL.has(s.status)) throw new HostError('conflict', `session ${s.id} has ${s.status}`);
    const req = s.nextReq++;
    return new Promise((res, rej) => {
      s.pending.set(req, (r) => (r.ok ? res(r) : rej(new HostError('conflict', r.error ?? 'refused'))));
      try {
        this.toWorker(s, make(req));
      } catch (err) {
        s.pending.delete(req);
        rej(err);
      }
    });
  }

  // ---- profiles and the demo model ----

  private demoProfile(): EndpointProfile {
    return { name: DEMO_PROFILE_NAME, baseUrl: 'http://127.0.0.1/v1', model: 'mock-root', subModel: null, apiKeyRef: null, prices: {} };
  }

  private async demoServer(): Promise<MockLlmServer> {
    this.demo ??= startMockLlm({ port: 0, latencyMs: this.opts.demoLatencyMs ?? 120, costPerMTok: 0.5 });
    return this.demo;
  }

  /** Desktop: the key goes to the keychain (via the main process) and stays in memory here; never into profiles.json. */
  private async setKey(name: string, key: string | null): Promise<Replies['profiles.setKey']> {
    if (!this.opts.keyStore) {
      throw new HostError(
        'bad_request',
        'this host (web mode) does not store API keys: set the environment variable named by the profile\'s "API key env var" (apiKeyRef) where rlm-studio serve runs, then restart it',
      );
    }
    if (name === DEMO_PROFILE_NAME) throw new HostError('bad_request', `the built-in "${DEMO_PROFILE_NAME}" profile needs no key`);
    const profile = this.profiles.get(name);
    if (!profile) throw new HostError('not_found', `no endpoint profile named "${name}"`);
    let ref = profile.apiKeyRef;
    if (ref === null) {
      if (key === null) return { profiles: [this.demoProfile(), ...this.profiles.list()], profile: name, stored: false };
      ref = keychainRefOf(name);
      this.profiles.save({ ...profile, apiKeyRef: ref });
    }
    try {
      await this.opts.keyStore.set(ref, key);
    } catch (err) {
      throw new HostError('conflict', `the key of "${name}" was not stored: ${(err as Error).message}`);
    }
    if (key === null) this.storedKeys.delete(ref);
    else this.storedKeys.set(ref, key);
    return { profiles: [this.demoProfile(), ...this.profiles.list()], profile: name, stored: key !== null };
  }

  private async deleteProfile(name: string): Promise<Replies['profiles.delete']> {
    let gone: EndpointProfile | null;
    try {
      gone = this.profiles.delete(name);
    } catch (err) {
      throw new HostError('bad_request', (err as Error).message);
    }
    if (!gone) throw new HostError('not_found', `no endpoint profile named "${name}"`);
    // Only a keychain entry this host made for the profile; a named environment variable is the user's.
    const ref = gone.apiKeyRef;
    if (ref !== null && ref === keychainRefOf(name) && this.opts.keyStore) {
      this.storedKeys.delete(ref);
      try {
        await this.opts.keyStore.set(ref, null);
      } catch (err) {
        throw new HostError(
          'conflict',
          `"${name}" was deleted, but its key could not be removed from the keychain: ${(err as Error).message}`,
        );
      }
    }
    return { profiles: [this.demoProfile(), ...this.profiles.list()] };
  }

  private async resolveProfile(name: string): Promise<{ profile: EndpointProfile; baseUrl: string; apiKey: string | null }> {
    if (name === DEMO_PROFILE_NAME) {
      const demo = await this.demoServer();
      return { profile: this.demoProfile(), baseUrl: demo.url, apiKey: null };
    }
    const profile = this.profiles.get(name);
    if (!profile) throw new HostError('not_found', `no endpoint profile named "${name}"`);
    let apiKey: string | null = null;
    if (profile.apiKeyRef) {
      apiKey =
        this.storedKeys.get(profile.apiKeyRef) ??
        this.opts.resolveKey?.(profile.apiKeyRef) ??
        (this.opts.env ?? process.env)[profile.apiKeyRef] ??
        null;
      if (apiKey === null)
        throw new HostError('bad_request', `profile "${name}": its API key (${profile.apiKeyRef}) is not set in the host's environment`);
    }
    return { profile, baseUrl: profile.baseUrl, apiKey };
  }

  // ---- live sessions ----

  private newSession(fields: Partial<Session> & Pick<Session, 'title' | 'status' | 'readOnly' | 'format'>): Session {
    const s: Session = {
      id: randomUUID(),
      message: null,
      logFile: null,
      createdAt: new Date().toISOString(),
      model: null,
      pause: null,
      forkOf: null,
      header: null,
      events: [],
      onDisk: false,
      count: 0,
      recipe: null,
      rerunSource: null,
      breakpoints: [],
      worker: null,
      log: null,
      stderrTail: '',
      nextReq: 0,
      pending: new Map(),
      loaded: Promise.resolve(),
      killTimer: null,
      followUps: false,
      kept: null,
      followUpGone: null,
      ...fields,
    };
    this.sessions.set(s.id, s);
    return s;
  }

  private async start(p: StartSession): Promise<Session> {
    const recipe: SessionRecipe = {
      version: 1,
      profile: p.profile,
      model: '',
      subModel: null,
      context: p.context,
      query: p.query,
      limits: p.limits,
      ...(p.repl ? { repl: p.repl } : {}),
      ...(p.systemPrompt ? { systemPrompt: p.systemPrompt } : {}),
      ...(p.finalPatterns !== undefined ? { finalPatterns: p.finalPatterns } : {}),
      ...(p.tools ? { tools: p.tools } : {}),
      ...(p.subProfile ? { subProfile: p.subProfile } : {}),
      ...(p.examples && p.examples.length > 0 ? { examples: p.examples } : {}),
      ...(p.exampleBudget !== undefined ? { exampleBudget: p.exampleBudget } : {}),
    };
    // null: the built-in prompt even when the profile has its own.
    const promptFromProfile = p.systemPrompt === undefined;
    const demo = p.context.kind === 'demo' ? DEMO_SCENARIOS[p.context.name] : null;
    if (demo) {
      recipe.query ??= demo.query;
      recipe.limits = { maxDepth: demo.maxDepth, ...recipe.limits };
    }
    const title = demo?.title ?? (p.query ? p.query.slice(0, 80) : `Session (${p.context.kind} context)`);
    return this.launch({
      recipe,
      model: p.model,
      subModel: p.subModel,
      breakpoints: p.breakpoints,
      startPaused: p.startPaused,
      title,
      replay: null,
      forkOf: null,
      fromProfile: {
        repl: !p.repl,
        systemPrompt: promptFromProfile,
        finalPatterns: p.finalPatterns === undefined,
        examples: p.examples === undefined,
        exampleBudget: p.exampleBudget === undefined,
      },
    });
  }

  private async launch(o: {
    recipe: SessionRecipe;
    model: string | undefined;
    subModel: string | null | undefined;
    breakpoints: Breakpoint[];
    startPaused: boolean;
    title: string;
    replay: ReplayPlan | null;
    forkOf: (LogHeader['forkOf'] & object) | null;
    /** A new session takes these from its profile when it did not set them (a fork keeps its recipe's). */
    fromProfile?: { repl: boolean; systemPrompt: boolean; finalPatterns: boolean; examples: boolean; exampleBudget: boolean };
  }): Promise<Session> {
    if (this.closed) throw new HostError('conflict', 'the host is shutting down');
    const { profile, baseUrl, apiKey } = await this.resolveProfile(o.recipe.profile);
    const sub = o.recipe.subProfile ? await this.resolveProfile(o.recipe.subProfile) : null;
    const model = o.model ?? profile.model;
    // A sub-call profile brings its model as the sub-model, unless one is named.
    const subModel = o.subModel === undefined ? (sub ? sub.profile.model : profile.subModel) : o.subModel;
    const recipe: SessionRecipe = { ...o.recipe, model, subModel };
    if (o.fromProfile?.repl && profile.repl) recipe.repl = profile.repl;
    if (o.fromProfile?.systemPrompt && profile.systemPrompt) recipe.systemPrompt = profile.systemPrompt;
    if (o.fromProfile?.finalPatterns && profile.finalPatterns !== undefined) recipe.finalPatterns = profile.finalPatterns;
    if (o.fromProfile?.examples && profile.examples && profile.examples.length > 0) recipe.examples = profile.examples;
    if (o.fromProfile?.exampleBudget && profile.exampleBudget !== undefined) recipe.exampleBudget = profile.exampleBudget;
    const examples = await this.loadExamples(recipe);
    const s = this.newSession({
      title: o.title,
      status: 'starting',
      readOnly: false,
      format: 'native',
      model,
      recipe,
      breakpoints: o.breakpoints,
      followUps: true,
      forkOf: o.forkOf ? { sessionId: o.forkOf.sessionId, runId: o.forkOf.runId, iteration: o.forkOf.iteration } : null,
    });
    const created = new Date(s.createdAt);
    s.header = makeHeader(asSessionId(s.id), created, o.forkOf ?? undefined, recipe.repl ?? 'javascript');
    const logFile = join(this.opts.runsDir, nativeLogName(s.id, created));
    try {
      s.log = new NativeLogFile(logFile, s.header);
      writeFileSync(recipePathFor(logFile), `${JSON.stringify(recipe, null, 2)}\n`);
    } catch (err) {
      this.sessions.delete(s.id);
      throw new HostError('internal', `cannot write the session log in ${this.opts.runsDir}: ${(err as Error).message}`);
    }
    s.logFile = logFile;
    const spec: WorkerSpec = {
      sessionId: s.id,
      baseUrl,
      apiKey,
      model,
      subModel,
      prices: profile.prices,
      sampling: profile.sampling ?? {},
      sub: sub ? { baseUrl: sub.baseUrl, apiKey: sub.apiKey, prices: sub.profile.prices, sampling: sub.profile.sampling ?? {} } : null,
      context: recipe.context,
      query: recipe.query,
      limits: recipe.limits,
      breakpoints: o.breakpoints,
      startPaused: o.startPaused,
      replay: o.replay,
      repl: recipe.repl ?? 'javascript',
      systemPrompt: recipe.systemPrompt ?? null,
      finalPatterns: recipe.finalPatterns ?? false,
      tools: recipe.tools ?? null,
      ...(examples.length > 0 ? { examples } : {}),
      followUps: true,
    };
    this.spawnWorker(s, { t: 'start', spec });
    if (spec.repl === 'python') this.expectPython();
    this.broadcast(s);
    return s;
  }

  /** The recipe's worked examples, read and rendered here: the paths are the host's, as a context file's are. */
  private async loadExamples(recipe: SessionRecipe): Promise<WorkedExample[]> {
    const paths = recipe.examples ?? [];
    if (paths.length === 0) return [];
    if (recipe.limits.maxDepth === 0)
      throw new HostError('bad_request', 'worked examples need a REPL: depth 0 is a direct call with no code to write');
    try {
      return await loadWorkedExamples(paths, recipe.exampleBudget ?? DEFAULT_EXAMPLE_BUDGET);
    } catch (err) {
      if (err instanceof WorkedExampleError) throw new HostError('bad_request', err.message);
      throw err;
    }
  }

  /** A worker process not yet given a session: booting Node and the engine takes ~0.4 s. */
  private forkWorker(): SpareWorker {
    const child = this.launcher.launch();
    const w: SpareWorker = { child, ready: false, stderr: '' };
    child.listen({
      stderr: (d) => void (w.stderr = (w.stderr + d).slice(-4000)),
      message: (raw) => {
        if (typeof raw === 'object' && raw !== null && (raw as { t?: unknown }).t === 'ready') {
          w.ready = true;
          if (this.pythonExpected && this.spare === w) this.warmSpare(w);
        }
      },
      exit: () => {
        if (this.spare === w) this.spare = null;
      },
    });
    return w;
  }

  private warmSpare(w: SpareWorker): void {
    if (w.ready && w.child.connected && !w.warmed) {
      w.warmed = true;
      w.child.send({ t: 'warm', repl: 'python' } satisfies ToWorker);
    }
  }

  /** From now on spare workers keep a Python interpreter ready (~0.3 s of a core, ~60 MB each). */
  private expectPython(): void {
    this.pythonExpected = true;
    if (this.spare) this.warmSpare(this.spare);
  }

  /** Takes the booted spare (or forks one) and boots the next spare in the background. */
  private claimWorker(): SpareWorker {
    let w = this.spare;
    this.spare = null;
    if (!w || w.child.exited || !w.child.connected) w = this.forkWorker();
    if (this.opts.prewarm !== false) {
      setImmediate(() => {
        if (!this.closed && this.spare === null) this.spare = this.forkWorker();
      });
    }
    return w;
  }

  /** The worker process of a live session (tests use it to kill one). */
  workerPid(sessionId: string): number | null {
    return this.sessions.get(sessionId)?.worker?.pid ?? null;
  }

  /** Starts the session's worker; `start` is sent once the worker is ready. */
  private spawnWorker(s: Session, start: ToWorker & { t: 'start' | 'rerun' }): void {
    const w = this.claimWorker();
    const child = w.child;
    s.stderrTail = w.stderr;
    s.worker = child;
    child.listen({
      stderr: (d) => void (s.stderrTail = (s.stderrTail + d).slice(-4000)),
      message: (raw) => this.fromWorker(s, start, raw),
      exit: (how) => {
        if (s.killTimer) clearTimeout(s.killTimer);
        s.worker = null;
        if (s.kept) this.release(s, `its worker process ${how}`);
        s.log?.close();
        s.log = null;
        for (const [, r] of s.pending) r({ t: 'result', req: -1, ok: false, error: 'the session ended' });
        s.pending.clear();
        if (!TERMINAL.has(s.status)) {
          const tail = s.stderrTail.trim().split('\n').slice(-3).join(' | ');
          this.fail(s, `the session's worker process ${how} before the run finished${tail ? `: ${tail}` : ''}`);
        }
      },
    });
    // A spare has already said `ready`; a fresh one will, and is started then.
    if (w.ready && child.connected) child.send(start);
  }

  private fromWorker(s: Session, start: ToWorker, raw: unknown): void {
    const parsed = FromWorker.safeParse(raw);
    if (!parsed.success) {
      this.fail(s, `the worker sent a malformed message: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      s.worker?.kill();
      return;
    }
    const m = parsed.data;
    switch (m.t) {
      case 'ready':
        s.worker?.send(start);
        return;
      case 'events': {
        const good: TrajectoryEvent[] = [];
        for (const e of m.events) {
          const c = checkEvent(e);
          if (!c.ok) {
            this.fail(s, `the worker sent an invalid event: ${c.message}`);
            s.worker?.kill();
            break;
          }
          if (c.value.seq !== s.count + good.length) {
            this.fail(s, `the worker's events are out of order (got seq ${c.value.seq}, expected ${s.count + good.length})`);
            s.worker?.kill();
            break;
          }
          good.push(c.value);
        }
        this.append(s, good);
        if (good.length > 0) this.opts.onLiveEvents?.(s.id, good);
        return;
      }
      case 'status':
        if (TERMINAL.has(s.status)) return;
        s.status = m.status;
        s.pause = m.pause;
        this.broadcast(s);
        return;
      case 'result': {
        const r = s.pending.get(m.req);
        s.pending.delete(m.req);
        r?.(m);
        return;
      }
      case 'done': {
        const status: SessionStatus = m.stopReason === 'cancelled' ? 'cancelled' : m.stopReason === 'error' ? 'failed' : 'finished';
        const replay = m.replay ? ` (replayed ${m.replay.replayed} recorded calls, ${m.replay.live} live)` : '';
        const text = m.message ?? (m.stopReason !== 'answered' && m.stopReason !== 'cancelled' ? `stopped: ${m.stopReason}` : null);
        // The worker keeps a finished session's REPL (and the log stays open) for follow-ups.
        if (status === 'finished' && s.followUps && !TERMINAL.has(s.status)) this.keep(s);
        this.end(s, status, text === null ? replay.trim() || null : `${text}${replay}`);
        return;
      }
      case 'fatal':
        this.fail(s, m.message);
        return;
    }
  }

  private fail(s: Session, message: string): void {
    if (TERMINAL.has(s.status)) return;
    this.end(s, 'failed', message);
  }

  private end(s: Session, status: SessionStatus, message: string | null): void {
    s.status = status;
    s.message = message;
    s.pause = null;
    if (!s.kept) {
      s.log?.close();
      s.log = null;
    }
    this.broadcast(s);
  }

  // ---- follow-ups ----

  /** Another turn in a finished session's kept REPL, appended to the same log. */
  private followUp(f: FollowUp): Session {
    const s = this.get(f.sessionId);
    const state = this.followUpState(s);
    if (!state.ready || !s.kept) {
      throw new HostError(
        s.readOnly ? 'read_only' : 'conflict',
        `session ${s.id} cannot take a follow-up: ${state.reason ?? 'its REPL is not kept'}`,
      );
    }
    if (f.context) this.checkContext(f.context);
    clearTimeout(s.kept.timer);
    s.kept = null;
    s.status = 'running';
    s.message = null;
    this.toWorker(s, { t: 'followUp', query: f.query, context: f.context ?? null, breakpoints: s.breakpoints });
    this.broadcast(s);
    return s;
  }

  /** A follow-up's context problems the worker would only find later, as a bad request now. */
  private checkContext(c: ContextSource): void {
    if (c.kind === 'json') {
      try {
        JSON.parse(c.json);
      } catch (err) {
        throw new HostError('bad_request', `the JSON context does not parse: ${(err as Error).message}`);
      }
    } else if (c.kind === 'file') {
      let isFile: boolean;
      try {
        isFile = statSync(c.path).isFile();
      } catch (err) {
        throw new HostError('bad_request', `cannot read context file ${c.path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
      }
      if (!isFile) throw new HostError('bad_request', `context file ${c.path} is not a file`);
    }
  }

  private followUpState(s: Session): { ready: boolean; reason: string | null } {
    if (s.kept) return { ready: true, reason: null };
    if (s.readOnly)
      return { ready: false, reason: 'a saved or imported log keeps no REPL to continue in; fork it from an iteration instead' };
    if (!TERMINAL.has(s.status)) return { ready: false, reason: `the session is ${s.status}; ask once it has finished` };
    if (s.followUpGone) return { ready: false, reason: s.followUpGone };
    if (!s.followUps) return { ready: false, reason: 'a re-execution cannot be followed up' };
    return {
      ready: false,
      reason: `a ${s.status} session's REPL is not kept; only a finished one (answered or stopped at a limit) can be followed up`,
    };
  }

  /** The worker holds this finished session's REPL: released when idle too long or when more are kept. */
  private keep(s: Session): void {
    const idleMs = this.opts.followUpIdleMs ?? 10 * 60_000;
    const timer = setTimeout(
      () =>
        this.release(
          s,
          `its REPL was released after ${Math.round(idleMs / 60_000) || '<1'} min idle; start a new run (or fork) to continue`,
        ),
      idleMs,
    );
    timer.unref();
    s.kept = { since: performance.now(), timer };
    const kept = [...this.sessions.values()].filter((x) => x.kept !== null).sort((a, b) => a.kept!.since - b.kept!.since);
    const max = this.opts.followUpKeep ?? 4;
    for (const old of kept.slice(0, Math.max(0, kept.length - max))) {
      this.release(
        old,
        `its REPL was released to make room for newer sessions (the host keeps ${max}); start a new run (or fork) to continue`,
      );
    }
  }

  private release(s: Session, reason: string): void {
    if (!s.kept) return;
    clearTimeout(s.kept.timer);
    s.kept = null;
    s.followUpGone = reason;
    if (s.worker?.connected) s.worker.send({ t: 'end' } satisfies ToWorker);
    this.broadcast(s);
  }

  private cancel(id: string): Session {
    const s = this.live(id);
    if (TERMINAL.has(s.status)) return s;
    if (s.worker?.connected) s.worker.send({ t: 'cancel' });
    // A worker stuck in native code does not answer; it is killed after a grace period.
    const worker = s.worker;
    s.killTimer ??= setTimeout(() => {
      if (!TERMINAL.has(s.status)) this.end(s, 'cancelled', 'cancelled (the worker did not stop in time and was killed)');
      worker?.kill();
    }, this.opts.cancelGraceMs ?? 5000);
    s.killTimer.unref();
    return s;
  }

  // ---- fork ----

  private async fork(f: ForkSession): Promise<Session> {
    const src = this.get(f.sessionId);
    const srcEvents = await this.eventsOf(src);
    let recipe = src.recipe;
    if (!recipe && src.logFile && existsSync(recipePathFor(src.logFile))) {
      const parsed = SessionRecipe.safeParse(JSON.parse(readFileSync(recipePathFor(src.logFile), 'utf8')));
      if (parsed.success) recipe = parsed.data;
    }
    // A log with no recipe (the reference library's, a re-execution, a dropped file) forks from the context given.
    const imported = recipe === null;
    recipe ??= this.recipeForImported(src, srcEvents, f);
    const runs = new Map<string, number>();
    for (const e of srcEvents) if (e.type === 'iteration.start') runs.set(e.runId, Math.max(runs.get(e.runId) ?? 0, e.iteration));
    const last = runs.get(f.runId);
    if (last === undefined) throw new HostError('not_found', `run ${f.runId} has no iterations in session ${f.sessionId}`);
    if (f.iteration > last) throw new HostError('bad_request', `run ${f.runId} has ${last} iteration(s); fork at 1…${last}`);
    const runStart = srcEvents.find((e) => e.type === 'run.start' && e.runId === f.runId);
    if (runStart?.type === 'run.start' && runStart.turn > 0) {
      throw new HostError(
        'bad_request',
        `run ${f.runId} is follow-up turn ${runStart.turn}; a fork replays the first turn only, so fork a run of turn 0`,
      );
    }
    let plan: ReplayPlan;
    try {
      plan = buildReplayPlan(srcEvents, { runId: f.runId, iteration: f.iteration }, f.editedReply ?? null);
    } catch (err) {
      throw new HostError('bad_request', (err as Error).message);
    }
    const next: SessionRecipe = { ...recipe, profile: f.profile ?? recipe.profile, limits: { ...recipe.limits, ...(f.limits ?? {}) } };
    if (f.tools) next.tools = f.tools;
    if (f.finalPatterns !== undefined) next.finalPatterns = f.finalPatterns;
    if (f.subProfile === null) delete next.subProfile;
    else if (f.subProfile !== undefined) next.subProfile = f.subProfile;
    const sameProfile = next.profile === recipe.profile && next.subProfile === recipe.subProfile && !imported;
    return this.launch({
      recipe: next,
      model: f.model ?? (sameProfile ? recipe.model : undefined),
      subModel: f.subModel !== undefined ? f.subModel : sameProfile ? recipe.subModel : undefined,
      breakpoints: f.breakpoints,
      startPaused: false,
      title: `Fork of ${src.title} at ${f.runId} #${f.iteration}`,
      replay: plan,
      forkOf: { logFile: src.logFile ?? '', sessionId: asSessionId(src.id), runId: asRunId(f.runId), iteration: f.iteration },
    });
  }

  /**
   * The recipe of a fork of a log that has none: the context given (or the one it was
   * re-executed with), the endpoint profile given, the recorded query, depth and iteration
   * limits, and the log's language (reference logs are Python).
   */
  private recipeForImported(src: Session, events: TrajectoryEvent[], f: ForkSession): SessionRecipe {
    const context = f.context ?? src.rerunSource?.context;
    if (!context) {
      throw new HostError(
        'bad_request',
        `session ${f.sessionId} has no recorded context (a reference-library or dropped log); give the context it was made from to fork it`,
      );
    }
    if (!f.profile) throw new HostError('bad_request', `forking session ${f.sessionId} needs a profile: the endpoint it continues against`);
    const root = events.find((e) => e.type === 'run.start' && e.parentRunId === null);
    const start = root?.type === 'run.start' ? root : null;
    return {
      version: 1,
      profile: f.profile,
      model: '',
      subModel: null,
      context,
      query: start?.query ?? null,
      limits: start ? { maxDepth: start.limits.maxDepth, maxIterations: start.limits.maxIterations } : {},
      repl: src.rerunSource?.repl ?? this.languageOf(src, start?.repl),
      ...(src.rerunSource?.tools ? { tools: src.rerunSource.tools } : {}),
    };
  }

  /** The REPL language of a recorded session: reference logs are Python; native ones say theirs. */
  private languageOf(s: Session, fromRun: ReplLanguage | undefined, override?: ReplLanguage): ReplLanguage {
    if (s.format === 'rlm-python') return 'python';
    return override ?? s.header?.repl ?? s.recipe?.repl ?? fromRun ?? 'javascript';
  }

  // ---- re-execution ----

  /** A new session that runs the source's recorded code blocks again and compares their output. */
  private async rerun(r: RerunSession): Promise<Session> {
    if (this.closed) throw new HostError('conflict', 'the host is shutting down');
    const src = this.get(r.sessionId);
    if (!TERMINAL.has(src.status))
      throw new HostError('conflict', `session ${r.sessionId} is still ${src.status}; re-execute it once it has ended`);
    if (src.format === 'rlm-python' && r.repl === 'javascript') {
      throw new HostError('bad_request', 'a reference-library log is Python; it cannot be re-executed as JavaScript');
    }
    let recipe = src.recipe;
    if (!recipe && src.logFile && existsSync(recipePathFor(src.logFile))) {
      const parsed = SessionRecipe.safeParse(JSON.parse(readFileSync(recipePathFor(src.logFile), 'utf8')));
      if (parsed.success) recipe = parsed.data;
    }
    const context = r.context ?? recipe?.context ?? src.rerunSource?.context;
    if (!context)
      throw new HostError(
        'bad_request',
        `session ${r.sessionId} has no recorded context (a reference-library or dropped log); give the context it was made from`,
      );
    const events = await this.eventsOf(src);
    const root = events.find((e) => e.type === 'run.start' && e.parentRunId === null);
    const repl = this.languageOf(src, root?.type === 'run.start' ? root.repl : undefined, r.repl);
    const s = this.newSession({
      title: `Re-execution of ${src.title}`,
      status: 'starting',
      readOnly: false,
      format: 'native',
      rerunSource: { context, repl, tools: r.tools ?? null },
    });
    const created = new Date(s.createdAt);
    s.header = { ...makeHeader(asSessionId(s.id), created), repl, rerunOf: { logFile: src.logFile ?? src.title, format: src.format } };
    const logFile = join(this.opts.runsDir, nativeLogName(s.id, created));
    try {
      s.log = new NativeLogFile(logFile, s.header);
    } catch (err) {
      this.sessions.delete(s.id);
      throw new HostError('internal', `cannot write the session log in ${this.opts.runsDir}: ${(err as Error).message}`);
    }
    s.logFile = logFile;
    const spec: RerunSpec = {
      sessionId: s.id,
      // A file is read by the worker itself; a log opened from text goes over as its events.
      source: src.logFile !== null ? { kind: 'file', path: src.logFile } : { kind: 'events', events },
      format: src.format,
      context,
      tools: r.tools ?? null,
      repl,
    };
    this.spawnWorker(s, { t: 'rerun', spec });
    if (repl === 'python') this.expectPython();
    this.broadcast(s);
    return s;
  }

  // ---- saved logs ----

  private async open(path: string): Promise<Session> {
    const abs = resolve(path);
    let size: number;
    try {
      const st = await stat(abs);
      if (!st.isFile()) throw new HostError('bad_request', `${path} is not a file`);
      size = st.size;
    } catch (err) {
      if (err instanceof HostError) throw err;
      throw new HostError('not_found', `cannot open ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
    const s = this.newSession({ title: basename(abs), status: 'saved', readOnly: true, format: 'native', logFile: abs });
    // A large log is not held in memory; subscriptions stream it from the file.
    s.onDisk = size > (this.opts.inMemoryLogMaxBytes ?? 64 * 1024 * 1024);
    const problems: string[] = [];
    const iterator = readLogBatches(abs, { onProgress: (bytesRead, totalBytes) => this.progress(s, bytesRead, totalBytes) })[
      Symbol.asyncIterator
    ]();
    const take = (batch: LogItem[]): void => this.takeItems(s, batch, problems);
    let first: IteratorResult<LogItem[]>;
    try {
      first = await iterator.next();
    } catch (err) {
      this.sessions.delete(s.id);
      throw new HostError('bad_request', `cannot read ${path}: ${(err as Error).message}`);
    }
    if (!first.done) take(first.value);
    if (s.count === 0 && problems.length > 0 && s.header === null && !first.done && first.value.every((i) => i.kind === 'problem')) {
      this.sessions.delete(s.id);
      throw new HostError('bad_request', `${path}: ${problems[0]}`);
    }
    if (first.done && size === 0) {
      this.sessions.delete(s.id);
      throw new HostError('bad_request', `${path}: the file is empty`);
    }
    s.loaded = (async () => {
      try {
        for (let r = first; !r.done; r = await iterator.next()) if (r !== first) take(r.value);
      } catch (err) {
        problems.push(`reading stopped: ${(err as Error).message}`);
      }
      if (problems.length > 0) {
        s.message = `${problems.length} problem(s) reading the log; first: ${problems[0]}`;
      }
      this.markDirty(s.id);
      this.broadcast(s);
    })();
    return s;
  }

  /** Log file → the read-only session it was opened as by `eval.open` (opening again reuses it). */
  private readonly evalLogSessions = new Map<string, string>();

  /** An evaluation directory: its rows, and its first `openLogs` task logs as saved sessions. */
  private async openEval(path: string, openLogs: number): Promise<Replies['eval.open']> {
    let evaluation: EvalOverview;
    try {
      evaluation = readEvalDir(path);
    } catch (err) {
      if (err instanceof EvalDirError) throw new HostError(err.code, err.message);
      throw err;
    }
    const sessions: SessionSummary[] = [];
    for (const row of evaluation.tasks) {
      if (row.logFile === null) continue;
      const known = this.evalLogSessions.get(row.logFile);
      const s = known !== undefined ? this.sessions.get(known) : undefined;
      if (s) row.sessionId = s.id;
      else if (sessions.length < openLogs) {
        try {
          const opened = await this.open(row.logFile);
          opened.title = `${evaluation.name}/${row.id}`;
          this.evalLogSessions.set(row.logFile, opened.id);
          row.sessionId = opened.id;
        } catch (err) {
          evaluation.problems.push(`the log of ${row.id} could not be opened: ${(err as Error).message}`);
          continue;
        }
      } else continue;
      const opened = this.sessions.get(row.sessionId!);
      if (opened) sessions.push(this.summary(opened));
    }
    return { evaluation, sessions };
  }

  private takeItems(s: Session, batch: LogItem[], problems: string[]): void {
    const events: TrajectoryEvent[] = [];
    for (const item of batch) {
      if (item.kind === 'format') s.format = item.format;
      else if (item.kind === 'header') {
        s.header = item.header;
        s.createdAt = item.header.createdAt;
        if (item.header.forkOf)
          s.forkOf = { sessionId: item.header.forkOf.sessionId, runId: item.header.forkOf.runId, iteration: item.header.forkOf.iteration };
      } else if (item.kind === 'event') events.push(item.event);
      else if (item.kind === 'problem' && item.problem.severity === 'error') problems.push(formatProblem(item.problem));
    }
    this.append(s, events);
  }

  private progress(s: Session, bytesRead: number, totalBytes: number): void {
    const m: HostMessage = { kind: 'progress', sessionId: s.id, bytesRead, totalBytes };
    for (const c of this.clients) this.safeSend(c, m);
  }

  private openText(name: string, text: string): Session {
    const s = this.newSession({ title: name, status: 'saved', readOnly: true, format: 'native' });
    const reader = new AnyLogReader();
    const problems: string[] = [];
    this.takeItems(s, [...reader.push(text), ...reader.end()], problems);
    if (reader.detected === null) {
      this.sessions.delete(s.id);
      throw new HostError('bad_request', `${name}: ${problems[0] ?? 'not a log this host can read'}`);
    }
    if (problems.length > 0) s.message = `${problems.length} problem(s) reading the log; first: ${problems[0]}`;
    return s;
  }

  private async exportSession(id: string, format: 'native' | 'rlm-python'): Promise<Replies['session.export']> {
    const s = this.get(id);
    const events = await this.eventsOf(s);
    const base = (s.logFile ? basename(s.logFile) : s.title).replace(/\.(rlm\.)?jsonl?$/, '').replace(/[^\w.-]+/g, '_') || 'session';
    if (format === 'native') {
      const header = s.header ?? makeHeader(asSessionId(s.id), new Date(s.createdAt));
      return { fileName: `${base}.rlm.jsonl`, text: [...encodeNative(header, events)].join('') };
    }
    return { fileName: `${base}.jsonl`, text: exportRlmPython(events, s.header).join('') };
  }

  private async recentRuns(limit: number): Promise<RecentRun[]> {
    let names: string[];
    try {
      names = await readdir(this.opts.runsDir);
    } catch {
      return [];
    }
    const runs: RecentRun[] = [];
    for (const name of names) {
      if (!name.endsWith('.rlm.jsonl')) continue;
      const path = join(this.opts.runsDir, name);
      try {
        const st = await stat(path);
        runs.push({ path, name, sizeBytes: st.size, modifiedAt: st.mtime.toISOString() });
      } catch {
        // Deleted between readdir and stat.
      }
    }
    runs.sort((a, b) => b.modifiedAt.localeCompare(a.modifiedAt));
    return runs.slice(0, limit);
  }

  /** Stops every worker and the demo model; logs are closed with what they have. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const exits: Promise<void>[] = [];
    const spare = this.spare;
    this.spare = null;
    if (spare && !spare.child.exited) {
      exits.push(spare.child.whenExited());
      spare.child.kill();
    }
    for (const s of this.sessions.values()) {
      const w = s.worker;
      if (!w) continue;
      exits.push(w.whenExited());
      w.kill();
    }
    await Promise.all(exits);
    for (const s of this.sessions.values()) s.log?.close();
    if (this.demo) await (await this.demo).close();
  }
}
