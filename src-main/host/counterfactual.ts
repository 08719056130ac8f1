// Counterfactual sub-calls (issue 13, part 3): re-run one recorded sub-call with an edited
// prompt or model, and substitute its result in a fork of the run that made it. A plain call
// is one model request made here; a child run is an RLM session of its own (a worker, a log)
// whose context is the prompt. Each re-run is appended to a sidecar beside the source log
// (`…rlm.counterfactuals.ndjson`, never the log itself); the fork's log records the
// substitution in the `subcall.end` it makes (`counterfactual`).
import { randomUUID } from 'node:crypto';
import type { SessionRecipe } from './session-recipe.ts';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import {
  childSessionSettings,
  CounterfactualRecord,
  findCounterfactualCall,
  foldCounterfactualLines,
  substitutionOf,
} from '../../src-shared/analysis/counterfactual.ts';
import type { LogHeader, ReplChoice, TrajectoryEvent } from '../../src-shared/events.ts';
import type {
  ContextSource,
  EndpointProfile,
  ForkSession,
  HostMessage,
  RunCounterfactual,
  SessionSummary,
} from '../../src-shared/protocol.ts';
import { reduceEvents } from '../../src-shared/trajectory/reducer.ts';
import { LmEndpointError, OpenAiCompatibleClient } from '../lm/openai-client.ts';
import type { ReplayPlan } from '../lm/replay-client.ts';
import { samplingArgs } from '../lm/sampling.ts';
import { appendLineSync } from '../logs/append-line.ts';
import { CommandError } from './command-error.ts';
import type { ConnectOptions, HostConnection } from './endpoint.ts';
import { TERMINAL } from './session-state.ts';

/** What a session was run with, as far as a re-run needs it (the host's recipe; null for a log it did not run). */
type RecordedSetup = Pick<
  SessionRecipe,
  'profile' | 'subProfile' | 'model' | 'subModel' | 'limits' | 'repl' | 'systemPrompt' | 'tools' | 'finalPatterns'
>;

export interface SourceSession {
  sessionId: string;
  title: string;
  logFile: string | null;
  format: 'native' | 'rlm-python';
  /** Read when needed: a large saved log is read back from its file. */
  events(): Promise<TrajectoryEvent[]>;
  setup: RecordedSetup | null;
}

/**
 * A failure that says nothing of the call: no reply at all (the endpoint unreachable, a wrong
 * host or port), or a refusal of the setup rather than of the prompt (no key, no such path or
 * model). Those are the caller's to fix, not results to keep beside the log for good.
 */
function notTheCallsAnswer(err: unknown): err is LmEndpointError {
  return err instanceof LmEndpointError && (err.status === null || [401, 403, 404, 405].includes(err.status));
}

/** A child run's re-run, started by the host as a session of its own (`recipe` as the host records a session's). */
interface ChildSessionStart {
  title: string;
  recipe: RecordedSetup & { version: 1; context: ContextSource; query: null };
  model: string;
  subModel: string | null;
}

/** The few things of the host this module uses. */
export interface CounterfactualHost {
  runsDir: string;
  source(sessionId: string): Promise<SourceSession>;
  resolveProfile(name: string): Promise<{ profile: EndpointProfile; baseUrl: string; apiKey: string | null }>;
  startSession(start: ChildSessionStart): Promise<SessionSummary>;
  /** Every event of a session of this host (a finished child re-run). */
  eventsOf(sessionId: string): Promise<TrajectoryEvent[]>;
  connect(send: (m: HostMessage) => void, options?: ConnectOptions): HostConnection;
}

const SIDECAR_SUFFIX = '.rlm.counterfactuals.ndjson';

/**
 * A child re-run the sidecar still says is running, though no run of this host's is making it:
 * the host that started it stopped first. Shown as failed; the sidecar is left as it is.
 */
function interrupted(r: CounterfactualRecord): CounterfactualRecord {
  return { ...r, status: 'failed', message: r.message ?? 'interrupted: the host running this re-run stopped before it ended; re-run it' };
}

/** The sidecar beside a log: its name without `.rlm.jsonl` / `.jsonl`, plus the suffix (not `.jsonl`: folder readers take those for logs). */
export function sidecarBeside(logFile: string): string {
  return join(dirname(logFile), basename(logFile).replace(/(\.rlm)?\.jsonl?$/, '') + SIDECAR_SUFFIX);
}

export class Counterfactuals {
  private readonly host: CounterfactualHost;
  /** Records of this host's life, by id. */
  private readonly records = new Map<string, CounterfactualRecord>();
  /** Where each record's lines go. */
  private readonly sidecars = new Map<string, string>();
  /** Child re-runs in flight: their session id → record id. */
  private readonly running = new Map<string, string>();
  private watch: HostConnection | null = null;

  constructor(host: CounterfactualHost) {
    this.host = host;
  }

  /** Re-runs the call; a plain call's record comes back finished, a child run's `running`. */
  async run(p: RunCounterfactual): Promise<CounterfactualRecord> {
    const src = await this.host.source(p.sessionId);
    const found = findCounterfactualCall(reduceEvents(await src.events()), p.callId);
    if (typeof found === 'string') throw new CommandError('not_found', found);
    const { call, run, child } = found;
    const setup = src.setup;
    const profileName = p.profile ?? (child ? setup?.profile : (setup?.subProfile ?? setup?.profile));
    if (profileName === undefined) {
      throw new CommandError(
        'bad_request',
        `session ${p.sessionId} was not run by this host (a reference-library or dropped log); choose the endpoint profile to re-run the call on`,
      );
    }
    const model = p.model ?? call.start.model;
    const record: CounterfactualRecord = {
      version: 1,
      id: randomUUID(),
      createdAt: new Date().toISOString(),
      source: { sessionId: src.sessionId, logFile: src.logFile, format: src.format },
      call: {
        callId: call.id,
        runId: run.id,
        iteration: call.iteration,
        block: call.block,
        kind: call.start.kind,
        child,
        prompt: call.start.prompt,
        model: call.start.model,
        response: call.end?.response ?? null,
        error: call.end?.error ?? null,
      },
      edited: { prompt: p.prompt, model, profile: profileName },
      status: 'running',
      result: null,
      session: null,
      message: null,
    };
    if (!child) {
      const { profile, baseUrl, apiKey } = await this.host.resolveProfile(profileName);
      const clientWith = (maxRetries?: number): OpenAiCompatibleClient =>
        new OpenAiCompatibleClient({
          baseUrl,
          apiKey: apiKey ?? 'no-key',
          ...(Object.keys(profile.prices).length > 0 ? { priceTable: profile.prices } : {}),
          sampling: samplingArgs(profile.sampling ?? {}),
          ...(maxRetries === undefined ? {} : { maxRetries }),
        });
      const request = { model, messages: [{ role: 'user' as const, content: p.prompt }] };
      try {
        // One try first: an endpoint that cannot be reached (a mistyped URL) fails at once
        // instead of after the SDK's retries; one that is busy (429, 5xx) gets them.
        const res = await clientWith(0)
          .complete(request)
          .catch((err: unknown) => {
            if (err instanceof LmEndpointError && err.status !== null && (err.status === 429 || err.status >= 500))
              return clientWith().complete(request);
            throw err;
          });
        record.status = 'done';
        record.result = { response: res.text, error: null, usage: res.usage, latencyMs: res.latencyMs };
      } catch (err) {
        if (notTheCallsAnswer(err)) throw new CommandError('bad_request', `${err.message}; nothing was recorded`);
        // What the code would have received, as the engine words a failed call.
        const msg = err instanceof Error ? err.message : String(err);
        record.status = 'failed';
        record.result = { response: `Error: LM query failed - ${msg}`, error: msg, usage: null, latencyMs: null };
        record.message = msg;
      }
      this.save(record, src);
      return record;
    }
    const settings = childSessionSettings(found);
    if (typeof settings === 'string') throw new CommandError('bad_request', settings);
    const language = src.format === 'rlm-python' ? 'python' : (settings.repl ?? setup?.repl ?? 'javascript');
    // A session that ran CPython re-runs its sub-call in CPython too.
    const repl: ReplChoice = language === 'python' && setup?.repl === 'cpython' ? 'cpython' : language;
    const sameProfile = setup !== null && profileName === setup.profile;
    this.watchSessions();
    const recipe: ChildSessionStart['recipe'] = {
      version: 1,
      profile: profileName,
      model: '',
      subModel: null,
      context: { kind: 'text', text: p.prompt },
      query: null,
      limits: { ...(sameProfile ? setup.limits : {}), ...settings.limits },
      repl,
    };
    if (sameProfile && setup.subProfile) recipe.subProfile = setup.subProfile;
    if (setup?.systemPrompt) recipe.systemPrompt = setup.systemPrompt;
    if (setup?.tools) recipe.tools = setup.tools;
    if (setup?.finalPatterns !== undefined) recipe.finalPatterns = setup.finalPatterns;
    const session = await this.host.startSession({
      title: `Counterfactual of ${call.id} in ${src.title}`,
      recipe,
      model: p.model ?? settings.model,
      subModel: sameProfile ? setup.subModel : null,
    });
    record.edited.model = session.model ?? record.edited.model;
    record.session = { sessionId: session.sessionId, logFile: session.logFile };
    this.running.set(session.sessionId, record.id);
    this.save(record, src);
    return record;
  }

  /** The records of a session's log: its sidecar's, then this host's life's not in it. */
  async list(sessionId: string): Promise<CounterfactualRecord[]> {
    const src = await this.host.source(sessionId);
    const byId = new Map<string, CounterfactualRecord>();
    for (const path of this.sidecarCandidates(src)) {
      if (!existsSync(path)) continue;
      for (const r of foldCounterfactualLines(readFileSync(path, 'utf8').split('\n')).records) byId.set(r.id, r);
    }
    for (const r of this.records.values()) if (r.source.sessionId === sessionId) byId.set(r.id, r);
    const live = new Set(this.running.values());
    return [...byId.values()]
      .filter((r) => r.source.logFile === src.logFile || r.source.sessionId === sessionId)
      .map((r) => (r.status === 'running' && !live.has(r.id) ? interrupted(r) : r));
  }

  /**
   * The fork's replay plan with the re-run's result substituted: the call's iteration is
   * replayed whole (the target moves one past it) and the run goes live after it.
   */
  async substitute(
    f: ForkSession & { counterfactual: string },
    plan: ReplayPlan,
  ): Promise<{ plan: ReplayPlan; forkOf: NonNullable<LogHeader['forkOf']>['counterfactual'] }> {
    if (f.editedReply !== undefined)
      throw new CommandError('bad_request', 'a counterfactual fork keeps the recorded reply; drop editedReply');
    const record = (await this.list(f.sessionId)).find((r) => r.id === f.counterfactual);
    if (!record) throw new CommandError('not_found', `no counterfactual ${f.counterfactual} for session ${f.sessionId}`);
    if (record.call.runId !== f.runId || record.call.iteration !== f.iteration) {
      throw new CommandError(
        'bad_request',
        `counterfactual ${record.id} re-ran a call of ${record.call.runId} #${record.call.iteration}; fork there, not at ${f.runId} #${f.iteration}`,
      );
    }
    const sub = substitutionOf(record);
    if (!sub) throw new CommandError('conflict', `counterfactual ${record.id} is ${record.status}; only a finished one can be substituted`);
    return {
      plan: { ...plan, target: { runId: f.runId, iteration: f.iteration + 1 }, substitute: sub },
      forkOf: { callId: sub.callId, id: record.id },
    };
  }

  close(): void {
    this.watch?.close();
    this.watch = null;
  }

  /** Child re-runs end as sessions do: this module listens to the host like any client. */
  private watchSessions(): void {
    this.watch ??= this.host.connect((m) => {
      if (m.kind !== 'session' || !TERMINAL.has(m.session.status)) return;
      const id = this.running.get(m.session.sessionId);
      if (id === undefined) return;
      this.running.delete(m.session.sessionId);
      // Nothing to answer here: a record that cannot be completed stays `running` (the child's session says why).
      this.childEnded(id, m.session).catch(() => undefined);
    });
  }

  private async childEnded(id: string, s: SessionSummary): Promise<void> {
    const record = this.records.get(id);
    if (!record) return;
    const events = await this.host.eventsOf(s.sessionId);
    const end = events.find((e) => e.type === 'run.end' && e.parentRunId === null);
    const next: CounterfactualRecord = { ...record, session: { sessionId: s.sessionId, logFile: s.logFile } };
    if (end?.type === 'run.end' && (end.stopReason === 'answered' || end.stopReason === 'max_iterations')) {
      next.status = 'done';
      const { inputTokens, outputTokens, costUsd } = end.usage;
      next.result = { response: end.answer ?? '', error: null, usage: { inputTokens, outputTokens, costUsd }, latencyMs: end.durationMs };
    } else {
      // What the parent's code would have received from a child that stopped this way.
      const reason = end?.type === 'run.end' ? end.stopReason : s.status;
      const message = end?.type === 'run.end' ? (end.message ?? '') : (s.message ?? '');
      next.status = 'failed';
      next.result = {
        response: `Error: child RLM stopped (${reason}): ${message}.`,
        error: `${reason}: ${message}`,
        usage: null,
        latencyMs: null,
      };
      next.message = `the child run stopped: ${reason}${message ? ` (${message})` : ''}`;
    }
    const path = this.sidecars.get(id);
    this.records.set(id, next);
    if (path) this.append(path, next);
  }

  private sidecarCandidates(src: Pick<SourceSession, 'logFile' | 'sessionId'>): string[] {
    const fallback = join(this.host.runsDir, `${src.sessionId}${SIDECAR_SUFFIX}`);
    return src.logFile ? [sidecarBeside(src.logFile), fallback] : [fallback];
  }

  /** Appends the record beside the source log, or in the runs folder when that cannot be written (or there is no file). */
  private save(record: CounterfactualRecord, src: SourceSession): void {
    this.records.set(record.id, record);
    for (const path of this.sidecarCandidates(src)) {
      try {
        this.append(path, record);
        this.sidecars.set(record.id, path);
        return;
      } catch {
        // A read-only folder: the next candidate.
      }
    }
  }

  private append(path: string, record: CounterfactualRecord): void {
    mkdirSync(dirname(path), { recursive: true });
    appendLineSync(path, `${JSON.stringify(CounterfactualRecord.parse(record))}\n`);
  }
}
