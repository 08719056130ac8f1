// The host: sessions (live ones in worker processes, saved ones read from disk), their
// logs, their subscribers, profiles. Carriers connect through `connect()`; everything a
// client sends is validated with the protocol's schemas (dispatch.ts). This class wires the
// parts together and is the host's public face; each part is a module of its own.
import type { CommandType, HostMessage, Replies } from '../../src-shared/protocol.ts';
import { Counterfactuals } from './counterfactual.ts';
import { type CommandOf, execute, type HostParts, receive } from './dispatch.ts';
import type { ConnectOptions, HostConnection, HostEndpoint, SessionContext } from './endpoint.ts';
import { Evaluations } from './evaluations.ts';
import { FollowUps } from './follow-ups.ts';
import type { HostOptions } from './host-options.ts';
import { recipeOf } from './launch-plans.ts';
import { LiveSessions } from './live-sessions.ts';
import { ProfileKeys } from './profile-keys.ts';
import { RunsBrowser } from './runs-browser.ts';
import { eventsOf, SavedLogs } from './saved-logs.ts';
import { sessionContext } from './session-context.ts';
import { SessionTable, TERMINAL } from './session-state.ts';
import { type Client, Subscribers } from './subscribers.ts';
import { forkLauncher } from './worker-launcher.ts';
import { WorkerPool } from './worker-pool.ts';

export type { HostOptions } from './host-options.ts';

export class Host implements HostEndpoint {
  private readonly opts: HostOptions;
  private readonly sessions = new SessionTable();
  private readonly subscribers: Subscribers;
  private readonly pool: WorkerPool;
  private readonly profiles: ProfileKeys;
  private readonly parts: HostParts;
  private readonly counterfactuals: Counterfactuals;
  private readonly runsBrowser: RunsBrowser;

  constructor(opts: HostOptions) {
    this.opts = opts;
    this.subscribers = new Subscribers(this.sessions);
    this.pool = new WorkerPool(opts.workerLauncher ?? forkLauncher(), opts.prewarm !== false, () => this.sessions.closed);
    this.profiles = new ProfileKeys(opts);
    const followUps = new FollowUps(this.sessions, opts, (s) => this.subscribers.broadcast(s));
    const savedLogs = new SavedLogs(opts, this.sessions, this.subscribers);
    const live = new LiveSessions(opts, {
      sessions: this.sessions,
      subscribers: this.subscribers,
      pool: this.pool,
      profiles: this.profiles,
      followUps,
    });
    this.counterfactuals = new Counterfactuals({
      runsDir: opts.runsDir,
      source: async (id) => {
        const s = this.sessions.get(id);
        return { sessionId: s.id, title: s.title, logFile: s.logFile, format: s.format, events: () => eventsOf(s), setup: recipeOf(s) };
      },
      resolveProfile: (name) => this.profiles.resolveProfile(name),
      startSession: async (c) =>
        this.subscribers.summary(await live.launch({ ...c, breakpoints: [], startPaused: false, replay: null, forkOf: null })),
      eventsOf: (id) => eventsOf(this.sessions.get(id)),
      connect: (send) => this.connect(send),
    });
    this.runsBrowser = new RunsBrowser({
      runsDir: opts.runsDir,
      liveLogs: () =>
        new Set(
          [...this.sessions.values()].flatMap((s) => (s.logFile !== null && !s.readOnly && !TERMINAL.has(s.status) ? [s.logFile] : [])),
        ),
      send: (c, m) => this.subscribers.safeSend(c, m),
    });
    this.parts = {
      label: opts.label,
      sessions: this.sessions,
      subscribers: this.subscribers,
      live,
      followUps,
      profiles: this.profiles,
      savedLogs,
      evaluations: new Evaluations(this.sessions, savedLogs, this.subscribers),
      counterfactuals: this.counterfactuals,
      runsBrowser: this.runsBrowser,
    };
  }

  get runsDir(): string {
    return this.opts.runsDir;
  }

  /** The context a session ran on, when its recipe (or re-execution) names one the host can serve. */
  contextOf(sessionId: string): SessionContext | null {
    const s = this.sessions.find(sessionId);
    return s ? sessionContext(s) : null;
  }

  /** The file a session's events are in (its native log, or the saved log it was opened from). */
  logFileOf(sessionId: string): string | null {
    return this.sessions.find(sessionId)?.logFile ?? null;
  }

  connect(send: (m: HostMessage) => void, options: ConnectOptions = {}): HostConnection {
    const client: Client = { send, subs: new Map(), buffered: options.buffered ?? (() => 0) };
    this.subscribers.clients.add(client);
    return {
      receive: (raw) => void receive(this.parts, client, raw),
      close: () => {
        client.subs.clear();
        this.subscribers.clients.delete(client);
        this.runsBrowser.unwatch(client);
      },
    };
  }

  /** Runs one command for a client (exposed for in-process use and tests). */
  async execute<K extends CommandType>(client: Client | null, command: CommandOf<K>): Promise<Replies[K]> {
    return execute(this.parts, client, command);
  }

  /** Whether a booted spare worker is waiting for the next session (the benchmarks wait for one). */
  spareReady(): boolean {
    return this.pool.spareReady;
  }

  /** The worker process of a live session (tests use it to kill one). */
  workerPid(sessionId: string): number | null {
    return this.sessions.find(sessionId)?.worker?.pid ?? null;
  }

  /** Stops every worker and the demo model; logs are closed with what they have. */
  async close(): Promise<void> {
    this.sessions.closed = true;
    this.counterfactuals.close();
    this.runsBrowser.close();
    this.subscribers.stop();
    const exits: Promise<void>[] = [];
    const spare = this.pool.close();
    if (spare) exits.push(spare);
    for (const s of this.sessions.values()) {
      const w = s.worker;
      if (!w) continue;
      exits.push(w.whenExited());
      w.kill();
    }
    await Promise.all(exits);
    for (const s of this.sessions.values()) s.log?.close();
    await this.profiles.close();
  }
}
