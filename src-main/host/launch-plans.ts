// What a new session starts from: a `session.start`'s recipe and options, a fork's (the
// source's recipe, or one made for a log without any, and the replay plan up to the fork
// point), and the context and language a re-execution runs with.
import { asRunId, asSessionId, type LogHeader, type ReplChoice, type ReplLanguage, type TrajectoryEvent } from '../../src-shared/events.ts';
import type { Breakpoint, ContextSource, ForkSession, RerunSession, StartSession } from '../../src-shared/protocol.ts';
import { buildReplayPlan, type ReplayPlan } from '../lm/replay-client.ts';
import { DEMO_SCENARIOS } from './demo.ts';
import { CommandError } from './command-error.ts';
import { readRecipeBeside, type SessionRecipe } from './session-recipe.ts';
import { type Session, TERMINAL } from './session-state.ts';

export interface LaunchPlan {
  recipe: SessionRecipe;
  model: string | undefined;
  subModel: string | null | undefined;
  breakpoints: Breakpoint[];
  startPaused: boolean;
  title: string;
  replay: ReplayPlan | null;
  forkOf: (LogHeader['forkOf'] & object) | null;
  /** A new session takes these from its profile when it did not set them (a fork keeps its recipe's). */
  fromProfile?: {
    repl: boolean;
    systemPrompt: boolean;
    finalPatterns: boolean;
    examples: boolean;
    exampleBudget: boolean;
    prompts: boolean;
    contextWindow: boolean;
  };
}

export function planStart(p: StartSession): LaunchPlan {
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
  return {
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
      // Profile settings only: a new run does not set them itself.
      prompts: true,
      contextWindow: true,
    },
  };
}

/** The recipe a session was started with: its own, or the one written beside its log. */
export function recipeOf(src: Session): SessionRecipe | null {
  let recipe = src.recipe;
  if (!recipe && src.logFile) recipe = readRecipeBeside(src.logFile);
  return recipe;
}

/**
 * The context a session ran on, as far as the host knows it: its recipe's, the one it was
 * re-executed with, or its evaluation task's; null for a reference-library or dropped log.
 */
export function knownContext(s: Session): ContextSource | null {
  return recipeOf(s)?.context ?? s.rerunSource?.context ?? s.taskContext?.source ?? null;
}

export function planFork(src: Session, srcEvents: TrajectoryEvent[], f: ForkSession): LaunchPlan {
  let recipe = recipeOf(src);
  // A log with no recipe (the reference library's, a re-execution, a dropped file) forks from the context given.
  const imported = recipe === null;
  recipe ??= recipeForImported(src, srcEvents, f);
  const runs = new Map<string, number>();
  for (const e of srcEvents) if (e.type === 'iteration.start') runs.set(e.runId, Math.max(runs.get(e.runId) ?? 0, e.iteration));
  const last = runs.get(f.runId);
  if (last === undefined) throw new CommandError('not_found', `run ${f.runId} has no iterations in session ${f.sessionId}`);
  if (f.iteration > last) throw new CommandError('bad_request', `run ${f.runId} has ${last} iteration(s); fork at 1…${last}`);
  const runStart = srcEvents.find((e) => e.type === 'run.start' && e.runId === f.runId);
  if (runStart?.type === 'run.start' && runStart.turn > 0) {
    throw new CommandError(
      'bad_request',
      `run ${f.runId} is follow-up turn ${runStart.turn}; a fork replays the first turn only, so fork a run of turn 0`,
    );
  }
  let plan: ReplayPlan;
  try {
    plan = buildReplayPlan(srcEvents, { runId: f.runId, iteration: f.iteration }, f.editedReply ?? null);
  } catch (err) {
    throw new CommandError('bad_request', (err as Error).message);
  }
  const next: SessionRecipe = { ...recipe, profile: f.profile ?? recipe.profile, limits: { ...recipe.limits, ...(f.limits ?? {}) } };
  if (f.tools) next.tools = f.tools;
  if (f.finalPatterns !== undefined) next.finalPatterns = f.finalPatterns;
  if (f.subProfile === null) delete next.subProfile;
  else if (f.subProfile !== undefined) next.subProfile = f.subProfile;
  const sameProfile = next.profile === recipe.profile && next.subProfile === recipe.subProfile && !imported;
  return {
    recipe: next,
    model: f.model ?? (sameProfile ? recipe.model : undefined),
    subModel: f.subModel !== undefined ? f.subModel : sameProfile ? recipe.subModel : undefined,
    breakpoints: f.breakpoints,
    startPaused: false,
    title: `Fork of ${src.title} at ${f.runId} #${f.iteration}`,
    replay: plan,
    forkOf: { logFile: src.logFile ?? '', sessionId: asSessionId(src.id), runId: asRunId(f.runId), iteration: f.iteration },
  };
}

/**
 * The recipe of a fork of a log that has none: the context given (or the one it was
 * re-executed with, or its evaluation task's), the endpoint profile given, the recorded query,
 * depth and iteration limits, and the log's language (reference logs are Python).
 */
function recipeForImported(src: Session, events: TrajectoryEvent[], f: ForkSession): SessionRecipe {
  const context = f.context ?? knownContext(src);
  if (!context) {
    throw new CommandError(
      'bad_request',
      `session ${f.sessionId} has no recorded context (a reference-library or dropped log); give the context it was made from to fork it`,
    );
  }
  if (!f.profile)
    throw new CommandError('bad_request', `forking session ${f.sessionId} needs a profile: the endpoint it continues against`);
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
    repl: src.rerunSource?.repl ?? languageOf(src, start?.repl),
    ...(src.rerunSource?.tools ? { tools: src.rerunSource.tools } : {}),
  };
}

/**
 * The REPL of a recorded session: reference logs are Python; native ones say their language,
 * and the host's recipe says when its Python was the machine's CPython.
 */
export function languageOf(s: Session, fromRun: ReplLanguage | undefined, override?: ReplChoice): ReplChoice {
  if (s.format === 'rlm-python') return override === 'cpython' ? 'cpython' : 'python';
  if (override) return override;
  if (s.recipe?.repl === 'cpython') return 'cpython';
  return s.header?.repl ?? s.recipe?.repl ?? fromRun ?? 'javascript';
}

/** The context a re-execution of `src` runs on, once it may be re-executed at all. */
export function rerunContext(src: Session, r: RerunSession): ContextSource {
  if (!TERMINAL.has(src.status))
    throw new CommandError('conflict', `session ${r.sessionId} is still ${src.status}; re-execute it once it has ended`);
  if (src.format === 'rlm-python' && r.repl === 'javascript') {
    throw new CommandError('bad_request', 'a reference-library log is Python; it cannot be re-executed as JavaScript');
  }
  const context = r.context ?? knownContext(src);
  if (!context)
    throw new CommandError(
      'bad_request',
      `session ${r.sessionId} has no recorded context (a reference-library or dropped log); give the context it was made from`,
    );
  return context;
}
