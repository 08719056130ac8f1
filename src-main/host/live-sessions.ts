// Live sessions: each runs in a worker process of its own. Starting one (a new run, a fork or a
// re-execution) writes its log and recipe and hands the worker its spec; the worker's messages
// are checked, its events appended in order, and its exit or failure ends the session.
import { join } from 'node:path';
import { checkEvent } from '../../src-shared/codecs/native.ts';
import { makeHeader } from '../../src-shared/codecs/native-lines.ts';
import { asRunId, asSessionId, languageOfChoice, type TrajectoryEvent } from '../../src-shared/events.ts';
import type { ForkSession, RerunSession, SessionStatus, StartSession } from '../../src-shared/protocol.ts';
import { PromptPackError, type PromptPack } from '../lm/prompt-pack.ts';
import { resolvePromptPack } from '../lm/prompt-pack-schema.ts';
import { DEFAULT_EXAMPLE_BUDGET, type WorkedExample, WorkedExampleError } from '../engine/worked-example.ts';
import { LogWriteError, NativeLogFile, nativeLogName } from '../logs/native-file-sink.ts';
import { loadWorkedExamples } from '../logs/worked-examples.ts';
import type { FollowUps } from './follow-ups.ts';
import { CommandError } from './command-error.ts';
import type { Counterfactuals } from './counterfactual.ts';
import type { HostOptions } from './host-options.ts';
import { languageOf, type LaunchPlan, planFork, planStart, rerunContext } from './launch-plans.ts';
import type { ProfileKeys } from './profile-keys.ts';
import { eventsOf } from './saved-logs.ts';
import { writeRecipeBeside, type SessionRecipe } from './session-recipe.ts';
import { type Session, type SessionTable, TERMINAL, toWorker } from './session-state.ts';
import type { Subscribers } from './subscribers.ts';
import type { WorkerPool } from './worker-pool.ts';
import { FromWorker, type RerunSpec, type ToWorker, type WorkerSpec } from './worker-protocol.ts';

export class LiveSessions {
  private readonly opts: Pick<HostOptions, 'runsDir' | 'cancelGraceMs' | 'onLiveEvents'>;
  private readonly sessions: SessionTable;
  private readonly subscribers: Subscribers;
  private readonly pool: WorkerPool;
  private readonly profiles: ProfileKeys;
  private readonly followUps: FollowUps;

  constructor(
    opts: Pick<HostOptions, 'runsDir' | 'cancelGraceMs' | 'onLiveEvents'>,
    parts: { sessions: SessionTable; subscribers: Subscribers; pool: WorkerPool; profiles: ProfileKeys; followUps: FollowUps },
  ) {
    this.opts = opts;
    this.sessions = parts.sessions;
    this.subscribers = parts.subscribers;
    this.pool = parts.pool;
    this.profiles = parts.profiles;
    this.followUps = parts.followUps;
  }

  async start(p: StartSession): Promise<Session> {
    return this.launch(planStart(p));
  }

  /** A fork; one with a `counterfactual` replays the call's iteration with that re-run's result in the call's place. */
  async fork(f: ForkSession, counterfactuals: Pick<Counterfactuals, 'substitute'>): Promise<Session> {
    const src = this.sessions.get(f.sessionId);
    const srcEvents = await eventsOf(src);
    const plan = planFork(src, srcEvents, f);
    const counterfactual = f.counterfactual;
    if (counterfactual && plan.replay && plan.forkOf) {
      const sub = await counterfactuals.substitute({ ...f, counterfactual }, plan.replay);
      plan.replay = sub.plan;
      plan.forkOf = { ...plan.forkOf, ...(sub.forkOf ? { counterfactual: sub.forkOf } : {}) };
      plan.title = `Counterfactual fork of ${src.title} at ${f.runId} #${f.iteration}`;
    }
    return this.launch(plan);
  }

  async launch(o: LaunchPlan): Promise<Session> {
    if (this.sessions.closed) throw new CommandError('conflict', 'the host is shutting down');
    const { profile, baseUrl, apiKey } = await this.profiles.resolveProfile(o.recipe.profile);
    const sub = o.recipe.subProfile ? await this.profiles.resolveProfile(o.recipe.subProfile) : null;
    const model = o.model ?? profile.model;
    // A sub-call profile brings its model as the sub-model, unless one is named.
    const subModel = o.subModel === undefined ? (sub ? sub.profile.model : profile.subModel) : o.subModel;
    const recipe: SessionRecipe = { ...o.recipe, model, subModel };
    if (o.fromProfile?.repl && profile.repl) recipe.repl = profile.repl;
    if (o.fromProfile?.systemPrompt && profile.systemPrompt) recipe.systemPrompt = profile.systemPrompt;
    if (o.fromProfile?.finalPatterns && profile.finalPatterns !== undefined) recipe.finalPatterns = profile.finalPatterns;
    if (o.fromProfile?.examples && profile.examples && profile.examples.length > 0) recipe.examples = profile.examples;
    if (o.fromProfile?.exampleBudget && profile.exampleBudget !== undefined) recipe.exampleBudget = profile.exampleBudget;
    if (o.fromProfile?.prompts && profile.prompts !== undefined) recipe.prompts = profile.prompts;
    if (o.fromProfile?.contextWindow && profile.contextWindow !== undefined) recipe.contextWindow = profile.contextWindow;
    const prompts = await this.loadPrompts(recipe);
    const examples = await this.loadExamples(recipe);
    const s = this.sessions.add({
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
    s.header = makeHeader(asSessionId(s.id), created, o.forkOf ?? undefined, languageOfChoice(recipe.repl ?? 'javascript'));
    const logFile = join(this.opts.runsDir, nativeLogName(s.id, created));
    try {
      s.log = new NativeLogFile(logFile, s.header);
      writeRecipeBeside(logFile, recipe);
    } catch (err) {
      this.sessions.delete(s.id);
      throw new CommandError('internal', `cannot write the session log in ${this.opts.runsDir}: ${(err as Error).message}`);
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
      ...(prompts ? { prompts } : {}),
      ...(recipe.contextWindow !== undefined ? { contextWindow: recipe.contextWindow } : {}),
    };
    this.spawnWorker(s, { t: 'start', spec });
    if (spec.repl === 'python') this.pool.expectPython();
    this.subscribers.broadcast(s);
    return s;
  }

  /**
   * The recipe's prompt pack, read here as `--prompts` reads it (one of ours by name, else a
   * file on the host), so a bad pack or one for another REPL refuses the start with its reason.
   */
  private async loadPrompts(recipe: SessionRecipe): Promise<PromptPack | null> {
    if (recipe.prompts === undefined) return null;
    let pack: PromptPack;
    try {
      pack = await resolvePromptPack(recipe.prompts);
    } catch (err) {
      if (err instanceof PromptPackError) throw new CommandError('bad_request', `prompt pack: ${err.message}`);
      throw err;
    }
    const language = languageOfChoice(recipe.repl ?? 'javascript');
    if (pack.language !== language)
      throw new CommandError(
        'bad_request',
        `the prompt pack "${pack.name}" is written for a ${pack.language} REPL, and this session's REPL is ${language}`,
      );
    return pack;
  }

  /** The recipe's worked examples, read and rendered here: the paths are the host's, as a context file's are. */
  private async loadExamples(recipe: SessionRecipe): Promise<WorkedExample[]> {
    const paths = recipe.examples ?? [];
    if (paths.length === 0) return [];
    if (recipe.limits.maxDepth === 0)
      throw new CommandError('bad_request', 'worked examples need a REPL: depth 0 is a direct call with no code to write');
    try {
      return await loadWorkedExamples(paths, recipe.exampleBudget ?? DEFAULT_EXAMPLE_BUDGET);
    } catch (err) {
      if (err instanceof WorkedExampleError) throw new CommandError('bad_request', err.message);
      throw err;
    }
  }

  /** A new session that runs the source's recorded code blocks again and compares their output. */
  async rerun(r: RerunSession): Promise<Session> {
    if (this.sessions.closed) throw new CommandError('conflict', 'the host is shutting down');
    const src = this.sessions.get(r.sessionId);
    const context = rerunContext(src, r);
    const events = await eventsOf(src);
    const root = events.find((e) => e.type === 'run.start' && e.parentRunId === null);
    const repl = languageOf(src, root?.type === 'run.start' ? root.repl : undefined, r.repl);
    const s = this.sessions.add({
      title: `Re-execution of ${src.title}`,
      status: 'starting',
      readOnly: false,
      format: 'native',
      rerunSource: { context, repl, tools: r.tools ?? null },
    });
    const created = new Date(s.createdAt);
    s.header = {
      ...makeHeader(asSessionId(s.id), created),
      repl: languageOfChoice(repl),
      rerunOf: { logFile: src.logFile ?? src.title, format: src.format },
    };
    const logFile = join(this.opts.runsDir, nativeLogName(s.id, created));
    try {
      s.log = new NativeLogFile(logFile, s.header);
    } catch (err) {
      this.sessions.delete(s.id);
      throw new CommandError('internal', `cannot write the session log in ${this.opts.runsDir}: ${(err as Error).message}`);
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
    if (repl === 'python') this.pool.expectPython();
    this.subscribers.broadcast(s);
    return s;
  }

  /** Starts the session's worker; `start` is sent once the worker is ready. */
  private spawnWorker(s: Session, start: ToWorker & { t: 'start' | 'rerun' }): void {
    const w = this.pool.claimWorker();
    const child = w.child;
    s.stderrTail = w.stderr;
    s.worker = child;
    child.listen({
      stderr: (d) => void (s.stderrTail = (s.stderrTail + d).slice(-4000)),
      message: (raw) => this.fromWorker(s, start, raw),
      exit: (how) => {
        if (s.killTimer) clearTimeout(s.killTimer);
        s.worker = null;
        if (s.kept) this.followUps.release(s, `its worker process ${how}`);
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
        try {
          this.subscribers.append(s, good);
        } catch (err) {
          if (!(err instanceof LogWriteError)) throw err;
          // A full disk ends this session, not the host: its worker stops, other sessions go on.
          this.fail(s, err.message);
          s.worker?.kill();
          return;
        }
        if (good.length > 0) this.opts.onLiveEvents?.(s.id, good);
        return;
      }
      case 'live':
        this.subscribers.live(
          s,
          m.deltas.map((d) => ({ ...d, runId: asRunId(d.runId) })),
        );
        return;
      case 'status':
        if (TERMINAL.has(s.status)) return;
        s.status = m.status;
        s.pause = m.pause;
        this.subscribers.broadcast(s);
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
        // The worker stopped in time: a cancel's grace timer must not kill it now.
        if (s.killTimer) clearTimeout(s.killTimer);
        s.killTimer = null;
        // The worker keeps a finished or cancelled session's REPL (and the log stays open) for follow-ups.
        if (status !== 'failed' && s.followUps && !TERMINAL.has(s.status)) this.followUps.keep(s);
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
    this.subscribers.broadcast(s);
  }

  control(id: string, msg: ToWorker): Session {
    const s = this.sessions.live(id);
    if (TERMINAL.has(s.status)) throw new CommandError('conflict', `session ${id} has ${s.status}`);
    toWorker(s, msg);
    return s;
  }

  cancel(id: string): Session {
    const s = this.sessions.live(id);
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
}
