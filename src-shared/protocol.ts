// The one protocol between the UI and the host, whatever carries it (WebSocket in web mode,
// Electron IPC on the desktop). Declared once here; both sides derive from it and validate
// what arrives with these schemas. Commands get exactly one reply; events are pushed to
// subscribers, resumable from a sequence number so a reconnecting client misses nothing.
import type { LiveReplyDelta } from './live-reply.ts';
import type { PolicyAggregate, SessionRow } from './analysis/policy-aggregate.ts';
import type { SessionMetrics } from './analysis/policy-metrics.ts';
import type { UsageByModel } from './trajectory/by-model.ts';
import { z } from 'zod';
import type { LabelSet, TargetLabels } from './analysis/labels.ts';
import type { QueryMatch } from './analysis/query.ts';
import type { FindingsListing } from './analysis/scan-findings.ts';
import type { LogHeader, TrajectoryEvent } from './events.ts';
import type { CounterfactualRecord } from './analysis/counterfactual.ts';
import type { CoverageFigures } from './analysis/coverage.ts';
import type { SweepOverview } from './analysis/sweep.ts';

export const PROTOCOL_VERSION = 1;

const sessionId = z.string().min(1).max(200);
const runId = z.string().min(1).max(200);
const positiveInt = z.number().int().positive();
const nonNegInt = z.number().int().nonnegative();

/** Where a debugger stops. Each kind can be limited to some depths or runs. */
export const BreakpointKind = z.enum(['before_model_call', 'after_reply', 'after_block', 'on_error', 'on_subcall_start']);
export type BreakpointKind = z.infer<typeof BreakpointKind>;

export const Breakpoint = z.strictObject({
  kind: BreakpointKind,
  /** Only at these depths (absent: every depth). */
  depths: z.array(nonNegInt).optional(),
  /** Only in these runs (absent: every run). */
  runIds: z.array(runId).optional(),
  /** Only at these iterations of a run, 1-based (absent: every iteration). */
  iterations: z.array(positiveInt).optional(),
});
export type Breakpoint = z.infer<typeof Breakpoint>;

/** The language of a session's REPL (the model writes code in it). */
export const ReplLanguageInput = z.enum(['javascript', 'python']);
/** A REPL a session asks for (events.ts `ReplChoice`): 'cpython' is Python in the machine's CPython inside the OS sandbox. */
export const ReplChoiceInput = z.enum(['javascript', 'python', 'cpython']);

/** A system prompt that replaces the built-in one (`{tools}` is replaced by the tools list). */
const SystemPromptText = z.string().min(1).max(1_000_000);

/**
 * Sampling settings sent with a role's calls (as `--temperature`, `--top-p`, `--seed`,
 * `--max-output-tokens` on the command line); absent ones are left to the endpoint.
 */
export const SamplingInput = z.strictObject({
  // Each description is the rule in words: the profile editor shows it with a bad value.
  temperature: z.number().min(0).describe('a number ≥ 0').optional(),
  topP: z.number().gt(0).max(1).describe('a number in (0, 1]').optional(),
  seed: z.number().int().describe('an integer').optional(),
  maxOutputTokens: positiveInt.describe('a positive integer').optional(),
});
export type SamplingInput = z.infer<typeof SamplingInput>;

/** Our own prompt packs, by name (src-main/lm/our-prompt-packs.ts makes them; `rlm-studio prompts export NAME` writes one out). */
export const BUILT_IN_PROMPT_PACKS = ['rlm-studio-javascript', 'rlm-studio-python'] as const;

/** A prompt pack (`--prompts`): one of ours by name, or a pack file on the host (absolute, or relative to where the host runs). */
const PromptPackChoice = z.string().trim().min(1).max(4096);

/** Paths on the host of saved logs (either format) rendered into the root's system prompt as worked examples. */
const WorkedExamplePaths = z.array(z.string().min(1)).max(20);

/** Endpoint profile: where to send model calls. The key is referenced, never stored in logs. */
/** The built-in profile (the bundled mock model): always present, never saved or deleted. */
export const DEMO_PROFILE_NAME = 'demo';

export const EndpointProfile = z.strictObject({
  name: z.string().min(1).max(100),
  baseUrl: z.string().url(),
  model: z.string().min(1),
  subModel: z.string().min(1).nullable().default(null),
  /** Web mode: the environment variable holding the key. Desktop: a keychain entry name. */
  apiKeyRef: z.string().max(200).nullable().default(null),
  /** USD per million tokens, by model name; overrides the built-in table. */
  prices: z
    .record(
      z.string(),
      z.strictObject({
        inputPerMTok: z.number().nonnegative(),
        outputPerMTok: z.number().nonnegative(),
        cachedInputPerMTok: z.number().nonnegative().optional(),
      }),
    )
    .default({}),
  /** The REPL its sessions use unless the new run says otherwise (absent: JavaScript). */
  repl: ReplChoiceInput.optional(),
  /** Replaces the built-in system prompt for its sessions (absent: the built-in one). */
  systemPrompt: SystemPromptText.optional(),
  /** Its sessions accept paper-era FINAL(...) / FINAL_VAR(name) unless the new run says otherwise (absent: no). */
  finalPatterns: z.boolean().optional(),
  /** Sampling of the calls this profile serves: root calls, or sub-calls when it is a session's sub-call profile. */
  sampling: SamplingInput.optional(),
  /** Saved logs on the host shown to its sessions' root runs as worked examples, unless the new run says otherwise. */
  examples: WorkedExamplePaths.optional(),
  /** Characters all worked examples may take together (absent: 12,000). */
  exampleBudget: positiveInt.optional(),
  /** The prompt pack its sessions' model texts come from, as `--prompts` (absent: ours for the run's REPL). */
  prompts: PromptPackChoice.optional(),
  /** The root model's context window in tokens, as `--context-window`: overrides the model table for compaction and the budgets the prompts quote. */
  contextWindow: positiveInt.describe('a positive integer (tokens)').optional(),
});
export type EndpointProfile = z.infer<typeof EndpointProfile>;

export const RunLimitsInput = z.strictObject({
  maxDepth: nonNegInt.optional(),
  maxIterations: positiveInt.optional(),
  maxBudgetUsd: z.number().positive().nullable().optional(),
  maxTimeoutMs: z.number().positive().nullable().optional(),
  maxTokens: positiveInt.nullable().optional(),
  maxErrors: positiveInt.nullable().optional(),
  /** What `maxErrors` counts: blocks that raised (default) or any stderr output (the reference). */
  maxErrorsMode: z.enum(['thrown', 'stderr']).optional(),
  /** Sets both caps below. */
  maxConcurrency: positiveInt.optional(),
  maxConcurrencyLlm: positiveInt.optional(),
  maxConcurrencyRlm: positiveInt.optional(),
  /** Model of a child run's `llm_query` that names none: the sub model (default) or the child's own (the reference). */
  childLlmModel: z.enum(['sub', 'own']).optional(),
});
export type RunLimitsInput = z.infer<typeof RunLimitsInput>;

/** The context of a new session: text typed in, a file on the host, or a built-in demo. */
export const ContextSource = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('text'), text: z.string() }),
  z.strictObject({ kind: z.literal('json'), json: z.string() }),
  z.strictObject({ kind: z.literal('file'), path: z.string().min(1) }),
  z.strictObject({ kind: z.literal('demo'), name: z.enum(['recursive', 'needle', 'aggregate']) }),
]);
export type ContextSource = z.infer<typeof ContextSource>;

export const StartSession = z.strictObject({
  /** A saved profile's name, or 'demo' for the bundled mock model. */
  profile: z.string().min(1),
  /**
   * The profile of sub-calls (`llm_query`, batched, `rlm_query` at max depth): its endpoint,
   * key, sampling and prices, and its model as the sub-model unless `subModel` is given.
   * Absent or null: sub-calls use `profile` (the root's endpoint and sampling).
   */
  subProfile: z.string().min(1).nullable().optional(),
  model: z.string().min(1).optional(),
  subModel: z.string().min(1).nullable().optional(),
  context: ContextSource,
  query: z.string().nullable(),
  limits: RunLimitsInput.default({}),
  breakpoints: z.array(Breakpoint).default([]),
  /** Start paused before the first model call. */
  startPaused: z.boolean().default(false),
  /** Absent: the profile's REPL, else JavaScript. */
  repl: ReplChoiceInput.optional(),
  /** Absent: the profile's system prompt; null: the built-in one even when the profile has its own. */
  systemPrompt: SystemPromptText.nullable().optional(),
  /**
   * Accept paper-era FINAL(...) / FINAL_VAR(name) in replies and as REPL functions. Absent:
   * the profile's setting, else no.
   */
  finalPatterns: z.boolean().optional(),
  /** A custom tools module on the host (as `--tools FILE.mjs`). */
  tools: z.string().min(1).optional(),
  /** Worked examples (as `--example LOG`). Absent: the profile's; []: none even when the profile has some. */
  examples: WorkedExamplePaths.optional(),
  /** As `--example-budget`. Absent: the profile's, else 12,000. */
  exampleBudget: positiveInt.optional(),
});
export type StartSession = z.infer<typeof StartSession>;

/** What a person may change while paused after a reply, before its code runs. */
export const ReplyEditInput = z.strictObject({
  text: z.string().optional(),
  blocks: z.record(z.string().regex(/^\d+$/), z.string()).optional(),
});
export type ReplyEditInput = z.infer<typeof ReplyEditInput>;

export const ForkSession = z.strictObject({
  sessionId,
  runId,
  /** Replay recorded replies up to (not including) this iteration, then go live. */
  iteration: positiveInt,
  profile: z.string().min(1).optional(),
  /** Absent: the source's sub-call profile; null: none (sub-calls on `profile`). */
  subProfile: z.string().min(1).nullable().optional(),
  model: z.string().min(1).optional(),
  subModel: z.string().min(1).nullable().optional(),
  limits: RunLimitsInput.optional(),
  /** Replaces the reply at `iteration` instead of asking the model. */
  editedReply: z.string().optional(),
  breakpoints: z.array(Breakpoint).default([]),
  /**
   * The context the source session was made from, for a log that holds none and has no recipe
   * on the host (the reference library's, a dropped file). Absent: the recorded one.
   */
  context: ContextSource.optional(),
  /** A custom tools module on the host. Absent: the source's (its recipe's, or its re-execution's). */
  tools: z.string().min(1).optional(),
  /** The paper-era protocol for the fork. Absent: the source session's setting (off for a log with no recipe). */
  finalPatterns: z.boolean().optional(),
  /**
   * A counterfactual fork: the id of a finished `session.counterfactual` re-run of a call made
   * in `runId` at `iteration`. That iteration is replayed whole with the call's result replaced
   * by the re-run's (and calls after it that the log does not hold go live); the run goes live
   * after it. Not with `editedReply`.
   */
  counterfactual: z.string().min(1).max(200).optional(),
});
export type ForkSession = z.infer<typeof ForkSession>;

/**
 * Re-runs one recorded sub-call with an edited prompt and/or model against a live endpoint: a
 * plain call (`llm_query`, a leaf `rlm_query`) as one model request, a child run (`rlm_query`
 * below max depth) as an RLM session of its own whose context is the prompt. The recorded log
 * is never touched; the re-run is recorded in a sidecar beside it (CounterfactualRecord).
 */
export const RunCounterfactual = z.strictObject({
  sessionId,
  callId: z.string().min(1).max(200),
  prompt: z.string().max(100_000_000),
  /** Absent: the model the call was recorded with. */
  model: z.string().min(1).optional(),
  /** Absent: the profile the session's sub-calls (or, for a child run, its turns) ran on; required for a log the host did not run. */
  profile: z.string().min(1).optional(),
});
export type RunCounterfactual = z.infer<typeof RunCounterfactual>;

/**
 * Re-executes a saved or finished session's code blocks (as `rlm-studio rerun` does) in a new
 * session: recorded replies and sub-call results are served again, every block runs again, and
 * each block.end of the new session carries `rerun` (same or not, the recorded and the new
 * output). Its header names the source (`rerunOf`); its status message gives the counts.
 */
export const RerunSession = z.strictObject({
  sessionId,
  /** The context the source was made from. Absent: the source's recipe's; required for a log with none. */
  context: ContextSource.optional(),
  /** A custom tools module on the host (`--tools FILE.mjs`). */
  tools: z.string().min(1).optional(),
  /** For a native log: overrides the language it records. Reference-library logs are Python ('cpython': in the machine's CPython). */
  repl: ReplChoiceInput.optional(),
});
export type RerunSession = z.infer<typeof RerunSession>;

/**
 * Another turn of a finished live session, in the same REPL (the reference library's
 * `persistent=True`): the turn's context becomes `context_N`, the earlier turns' messages
 * are `history_0…`, and its events go to the same log with `turn` N. Only while the host
 * still keeps the session's REPL (`SessionSummary.followUp`).
 */
export const FollowUp = z.strictObject({
  sessionId,
  query: z.string().trim().min(1).max(100_000),
  /** The turn's context. Absent: the query text itself, as the reference's `completion(prompt)` adds its prompt. */
  context: ContextSource.optional(),
});
export type FollowUp = z.infer<typeof FollowUp>;

const labelTarget = z.string().min(1).max(1000);
const labelName = z.string().min(1).max(64);
const noteText = z.string().max(20_000);

/** A change to a saved log's labels (its sidecar): add or remove a label, or set a note ("" clears it). */
export const LabelChangeInput = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('add'), target: labelTarget, label: labelName, note: noteText.optional() }),
  z.strictObject({ op: z.literal('remove'), target: labelTarget, label: labelName }),
  z.strictObject({ op: z.literal('note'), target: labelTarget, text: noteText }),
]);
export type LabelChangeInput = z.infer<typeof LabelChangeInput>;

/** Every command, with its parameters. `id` correlates the reply. */
export const Command = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('hello'), protocol: z.number().int() }),
  z.strictObject({ type: z.literal('sessions.list') }),
  z.strictObject({ type: z.literal('session.start'), params: StartSession }),
  z.strictObject({ type: z.literal('session.open'), path: z.string().min(1) }),
  z.strictObject({ type: z.literal('session.openText'), name: z.string().min(1).max(500), text: z.string() }),
  z.strictObject({ type: z.literal('session.cancel'), sessionId }),
  z.strictObject({ type: z.literal('session.pause'), sessionId }),
  /**
   * Releases the stop shown (the front one). Other runs already held (batched children that
   * hit breakpoints together) then show in turn, each needing its own continue; `all`
   * releases every held stop at once.
   */
  z.strictObject({ type: z.literal('session.continue'), sessionId, all: z.boolean().optional() }),
  z.strictObject({ type: z.literal('session.step'), sessionId }),
  z.strictObject({ type: z.literal('session.setBreakpoints'), sessionId, breakpoints: z.array(Breakpoint) }),
  z.strictObject({ type: z.literal('session.edit'), sessionId, edit: ReplyEditInput }),
  z.strictObject({ type: z.literal('session.variables'), sessionId, runId }),
  z.strictObject({ type: z.literal('session.fork'), params: ForkSession }),
  z.strictObject({ type: z.literal('session.rerun'), params: RerunSession }),
  z.strictObject({ type: z.literal('session.followUp'), params: FollowUp }),
  z.strictObject({ type: z.literal('session.counterfactual'), params: RunCounterfactual }),
  /** The counterfactual re-runs recorded for a session's log (its sidecar and those of this host's life). */
  z.strictObject({ type: z.literal('session.counterfactuals'), sessionId }),
  z.strictObject({ type: z.literal('session.export'), sessionId, format: z.enum(['native', 'rlm-python']) }),
  z.strictObject({ type: z.literal('profiles.list') }),
  z.strictObject({ type: z.literal('profiles.save'), profile: EndpointProfile }),
  /**
   * Deletes a saved profile; a key that `profiles.setKey` stored for it in the keychain goes
   * with it (an environment variable it names is left alone). Sessions already started
   * with it are not affected. The built-in demo profile cannot be deleted.
   */
  z.strictObject({ type: z.literal('profiles.delete'), profile: z.string().min(1).max(100) }),
  /**
   * Desktop only: stores the API key of a profile in the OS keychain (null removes it). A
   * profile without `apiKeyRef` gets one. Web mode refuses: keys come from the environment.
   * The reply never carries the key.
   */
  z.strictObject({
    type: z.literal('profiles.setKey'),
    profile: z.string().min(1).max(100),
    key: z.string().min(1).max(10_000).nullable(),
  }),
  z.strictObject({ type: z.literal('runs.recent'), limit: positiveInt.max(1000).default(50) }),
  /**
   * The runs browser: every session log and evaluation folder in the host's runs folder and in
   * `folders` (more folders on the host: each is listed the same way, or is itself an
   * evaluation). The reply lists them; afterwards the host pushes `runs` messages with the rows
   * that changed (a new log, a run that ended, an evaluation's next result) until `runs.unwatch`
   * or the client leaves. Another `runs.watch` replaces the folders.
   */
  z.strictObject({ type: z.literal('runs.watch'), folders: z.array(z.string().min(1).max(4096)).max(50).default([]) }),
  z.strictObject({ type: z.literal('runs.unwatch') }),
  z.strictObject({ type: z.literal('subscribe'), sessionId, fromSeq: nonNegInt.default(0) }),
  z.strictObject({ type: z.literal('unsubscribe'), sessionId }),
  /**
   * An evaluation directory written by `rlm-studio eval` (results.jsonl, eval.json, logs/).
   * Task logs open as read-only sessions, up to `openLogs` of them at once (the rest open
   * on demand with `session.open` on the row's `logFile`).
   */
  z.strictObject({
    type: z.literal('eval.open'),
    path: z.string().min(1),
    openLogs: nonNegInt.max(10_000).default(50),
    /** Read correctness and scores from this scorer of the folder's scores.jsonl (`rlm-studio score`) instead of results.jsonl's. */
    scorer: z.string().min(1).max(80).optional(),
  }),
  /**
   * Policy metrics (issue 13 part 2) of a log, a folder of logs or an evaluation directory on
   * the host: per session and run, and their distributions across sessions (`bins` per histogram).
   */
  z.strictObject({ type: z.literal('metrics.open'), path: z.string().min(1), bins: positiveInt.max(200).default(20) }),
  /** Every task log of an evaluation directory against its task's context (`rlm-studio coverage DIR`). */
  z.strictObject({ type: z.literal('eval.coverage'), path: z.string().min(1) }),
  /** A sweep folder (`rlm-studio sweep -o DIR`): its figures, as `sweep-summary DIR --json`, and each configuration's sessions for paired comparisons. */
  z.strictObject({ type: z.literal('sweep.open'), path: z.string().min(1) }),
  /** The labels and notes of a session's log (its `LOG.labels.jsonl`) and the label set that applies. */
  z.strictObject({ type: z.literal('labels.get'), sessionId }),
  /** Appends one change to the session's labels sidecar; the log itself is never written. */
  z.strictObject({ type: z.literal('labels.change'), sessionId, change: LabelChangeInput }),
  /** A tree query (JSONata, docs/queries.md) over logs and folders on the host. */
  z.strictObject({
    type: z.literal('query.run'),
    expression: z.string().min(1).max(10_000),
    paths: z.array(z.string().min(1)).min(1).max(1000),
  }),
  /** Scanner findings of scanned folders (their findings.jsonl), with the people's verdicts and each scanner's agreement. */
  z.strictObject({ type: z.literal('findings.list'), paths: z.array(z.string().min(1)).min(1).max(100) }),
  /**
   * A person's verdict on a finding's target (or on a scanned log's `session`), stored as the
   * label scan.SCANNER.confirmed|rejected in the log's sidecar (null withdraws it); the reply
   * is `findings.list` of `paths` after it.
   */
  z.strictObject({
    type: z.literal('findings.verdict'),
    paths: z.array(z.string().min(1)).min(1).max(100),
    dir: z.string().min(1),
    log: z.string().min(1).max(4000),
    scanner: z.string().min(1).max(40),
    target: labelTarget,
    verdict: z.enum(['confirmed', 'rejected']).nullable(),
  }),
]);
export type Command = z.infer<typeof Command>;
export type CommandType = Command['type'];

export const ClientMessage = z.strictObject({ id: nonNegInt, command: Command });
export type ClientMessage = z.infer<typeof ClientMessage>;

export type SessionStatus = 'starting' | 'running' | 'paused' | 'finished' | 'failed' | 'cancelled' | 'saved';

/** Where a paused session is held, and what the person can do there. */
export interface PauseInfo {
  kind: BreakpointKind | 'manual';
  runId: string;
  depth: number;
  iteration: number;
  block: number | null;
  /** Present when paused after a reply: the reply and its blocks, editable. */
  reply: { text: string; blocks: string[] } | null;
}

export interface SessionSummary {
  sessionId: string;
  title: string;
  status: SessionStatus;
  /** The log on disk (native), or the file a saved session was opened from. */
  logFile: string | null;
  format: 'native' | 'rlm-python';
  readOnly: boolean;
  createdAt: string;
  model: string | null;
  pause: PauseInfo | null;
  /** Set for a fork: where it came from. */
  forkOf: { sessionId: string; runId: string; iteration: number } | null;
  /** Events so far (the next `seq`). */
  eventCount: number;
  /** Why it failed or stopped, or problems met reading a saved log, in words. */
  message?: string | null;
  /**
   * Whether `session.followUp` can be sent now (a finished live session whose REPL the host
   * still keeps), and if not, why not in words. Absent from hosts without follow-ups.
   */
  followUp?: { ready: boolean; reason: string | null };
}

export interface VariableView {
  name: string;
  type: string;
  size: number | null;
  preview: string;
}

export interface RecentRun {
  path: string;
  name: string;
  sizeBytes: number;
  modifiedAt: string;
}

/**
 * Where a listed run or evaluation is. `live`: running now (a session of this host, a log
 * written to within the last minutes, an evaluation whose progress is fresh); `limit`: stopped
 * at a limit; `interrupted`: it ended without saying so (a killed process, a stale progress).
 */
export type ListingStatus = 'live' | 'finished' | 'failed' | 'limit' | 'cancelled' | 'interrupted';

/** One row of the runs browser: a session log, or an evaluation folder. */
export interface RunListing {
  kind: 'run' | 'evaluation';
  /** The log file, or the evaluation folder. */
  path: string;
  /** The folder it was found in (the runs folder, or one of `runs.watch`'s folders). */
  folder: string;
  name: string;
  status: ListingStatus;
  /** The stop reason (a run), or the state of its progress (an evaluation), in words. */
  detail: string | null;
  model: string | null;
  repl: 'javascript' | 'python' | null;
  /** Evaluations: tasks scored correct, of those finished (and of the dataset when known). */
  score: { correct: number; finished: number; total: number | null } | null;
  /** Null: unknown (no price recorded, or not all of it read); never 0 for unknown. */
  costUsd: number | null;
  /** Sessions or tasks whose cost is not in `costUsd` (no price); 0 when all are. */
  unpriced: number;
  durationMs: number | null;
  /** When it started (its header, eval.json), else when it was last written. */
  startedAt: string;
  modifiedAt: string;
  sizeBytes: number;
  /** Root turns (multi-turn sessions: more than 1); null for an evaluation. */
  turns: number | null;
}

export interface RunsListing {
  runsDir: string;
  folders: string[];
  entries: RunListing[];
  /** Folders that could not be read, in words. */
  problems: string[];
}

/** One finished task of an evaluation (a line of its results.jsonl). */
export interface EvalTaskRow {
  /** The session's key: the task's id, with `#k` for its repeats after the first (`--repeat`). */
  id: string;
  /** The dataset task this session ran: what repeats share, and what comparisons pair by. */
  taskId: string;
  /** Which of the task's sessions (from 0). */
  repeat: number;
  kind: string;
  sizeTokens: number | null;
  score: number;
  correct: boolean;
  stopReason: string;
  /** null: the endpoint reported no price. */
  costUsd: number | null;
  durationMs: number;
  calls: number;
  /** Requests the client retried before the endpoint answered (absent when none, as in results written before they were counted). */
  retries?: number;
  iterations: number;
  /** The task's log, resolved against the directory when it has moved; null when none was written. */
  logFile: string | null;
  /** The read-only session of `logFile` when the host opened it (null: open on demand). */
  sessionId: string | null;
  /** Usage per model name (null in results written before it was recorded). */
  byModel: UsageByModel | null;
}

/** What `eval.json` records (null where absent); `dataset` as given to `eval`. */
export interface EvalSettings {
  dataset: string | null;
  model: string | null;
  subModel: string | null;
  maxDepth: number | null;
  maxIterations: number | null;
  baseUrl: string | null;
  createdAt: string | null;
}

/** DIR/progress.json: where a running evaluation (local or queued) is, rewritten as sessions finish. */
export interface EvalProgress {
  /** `running` until the runner or coordinator ends; a killed one leaves `running` with an old `updatedAt`. */
  state: 'running' | 'finished' | 'interrupted';
  mode: 'local' | 'queue';
  /** Sessions of this evaluation (tasks × repeats, of this shard). */
  total: number;
  done: number;
  /** Done, and ended in an error. */
  failed: number;
  running: number;
  /** Spent by the finished sessions that recorded a price; null when sessions finished and none did. */
  costUsd: number | null;
  /** Sessions finished per minute since this runner started. */
  perMinute: number;
  /** Estimated time left; null while no rate is known. */
  etaMs: number | null;
  startedAt: string;
  updatedAt: string;
  host: string;
  pid: number;
}

export interface EvalOverview {
  /** Absolute path of the evaluation directory. */
  dir: string;
  /** A short name for pickers: the directory's name. */
  name: string;
  settings: EvalSettings;
  /** Tasks in the dataset when known (summary.json), else null. */
  datasetTasks: number | null;
  tasks: EvalTaskRow[];
  /** Problems met reading it (a torn last line of results.jsonl, missing logs), in words. */
  problems: string[];
  /** progress.json when there is one; `live` while it is running and was updated recently. */
  progress: (EvalProgress & { live: boolean }) | null;
  /** The scorers of its scores.jsonl (`rlm-studio score`), in the order they first scored. */
  scorers: string[];
  /** Whose scores `score` and `correct` are: a scorer of `scorers`, or null for results.jsonl's. */
  scorer: string | null;
}

/** A session's labels as the host reads them; `writable` is false (with the reason) when there is no file to label. */
export interface SessionLabels {
  sessionId: string;
  sidecar: string | null;
  writable: boolean;
  reason: string | null;
  /** The label set that applies (`rlm-labels.json` in the log's folder or one above), or null. */
  set: { path: string; labels: LabelSet['labels'] } | null;
  /** Why there is no usable set (none found, or a bad file), in words. */
  setProblem: string | null;
  targets: TargetLabels[];
  /** Lines of the sidecar that could not be read. */
  problems: string[];
}

export interface QueryResult {
  logs: number;
  sessions: number;
  matches: QueryMatch[];
}

/** Reply payloads by command type. */
export interface Replies {
  hello: { protocol: number; host: string };
  'sessions.list': { sessions: SessionSummary[] };
  'session.start': { session: SessionSummary };
  'session.open': { session: SessionSummary };
  'session.openText': { session: SessionSummary };
  'session.cancel': { session: SessionSummary };
  'session.pause': { session: SessionSummary };
  'session.continue': { session: SessionSummary };
  'session.step': { session: SessionSummary };
  'session.setBreakpoints': { session: SessionSummary };
  'session.edit': { session: SessionSummary };
  'session.variables': { variables: VariableView[] };
  'session.fork': { session: SessionSummary };
  'session.rerun': { session: SessionSummary };
  'session.followUp': { session: SessionSummary };
  /** A plain call's re-run is `done` (or `failed`) when this comes; a child run's is `running`, its `session` streaming. */
  'session.counterfactual': { counterfactual: CounterfactualRecord };
  'session.counterfactuals': { counterfactuals: CounterfactualRecord[] };
  'session.export': { fileName: string; text: string };
  'profiles.list': { profiles: EndpointProfile[] };
  'profiles.save': { profiles: EndpointProfile[] };
  'profiles.delete': { profiles: EndpointProfile[] };
  'profiles.setKey': { profiles: EndpointProfile[]; profile: string; stored: boolean };
  'runs.recent': { runs: RecentRun[] };
  'runs.watch': { listing: RunsListing };
  'runs.unwatch': Record<string, never>;
  subscribe: { session: SessionSummary; header: LogHeader | null };
  unsubscribe: Record<string, never>;
  'eval.open': { evaluation: EvalOverview; sessions: SessionSummary[] };
  'metrics.open': { metrics: PolicyOverview };
  'eval.coverage': { coverage: EvalCoverage };
  'sweep.open': { sweep: SweepOverview };
  'labels.get': { labels: SessionLabels };
  'labels.change': { labels: SessionLabels };
  'query.run': QueryResult;
  'findings.list': { findings: FindingsListing };
  'findings.verdict': { findings: FindingsListing };
}

/** One task of `eval.coverage`: its result, and its session's context coverage (null, with `problem`, when there is none). */
export interface EvalCoverageTask {
  id: string;
  kind: string;
  sizeTokens: number | null;
  correct: boolean;
  score: number;
  log: string | null;
  session: CoverageFigures | null;
  problem: string | null;
}

/** `eval.coverage`: every task log of an evaluation against its task's context. */
export interface EvalCoverage {
  dir: string;
  tasks: EvalCoverageTask[];
  /** Copies shorter than this are not counted (the same for every task; null when none was mapped). */
  minSpanChars: number | null;
  /** The median share (0–1) of its context no model saw, over the correct tasks and over the others (null: no such task mapped). */
  unseen: { correct: { median: number | null; n: number }; incorrect: { median: number | null; n: number } };
  problems: string[];
}

/** One session in `metrics.open`'s reply: its task and whole-tree figures, without per-run detail (a smaller reply). */
type PolicySessionRef = Omit<SessionRow, 'metrics'> & { figures: SessionMetrics['figures'] };

/** What `metrics.open` gives: every session's figures and their aggregate. */
export interface PolicyOverview {
  /** Absolute path as opened. */
  path: string;
  kind: 'log' | 'folder' | 'evaluation';
  logs: number;
  rows: PolicySessionRef[];
  /** Tokens (input + output) of every session's root run, summed: its own turns, its plain sub-calls, its child runs. */
  tokens: { root: number; subcalls: number; children: number };
  aggregate: PolicyAggregate;
  /** Files skipped, lines that could not be read, missing logs, in words. */
  problems: string[];
}

export type ReplyOf<T extends CommandType> = Replies[T];

export type HostMessage =
  | { kind: 'reply'; id: number; ok: true; result: Replies[CommandType] }
  | { kind: 'reply'; id: number; ok: false; error: { code: ErrorCode; message: string } }
  /** Events of a subscribed session, in `seq` order with no gaps after `fromSeq`. */
  | { kind: 'events'; sessionId: string; events: TrajectoryEvent[] }
  /** A session changed status (also sent for sessions the client has not subscribed to). */
  | { kind: 'session'; session: SessionSummary }
  /** Load progress of a large saved log. */
  | { kind: 'progress'; sessionId: string; bytesRead: number; totalBytes: number }
  /** The runs browser (`runs.watch`): rows that are new or changed, and paths that went away. */
  | { kind: 'runs'; changed: RunListing[]; removed: string[]; problems: string[] }
  /**
   * A live session's replies while they stream, to its subscribers: pieces in order, never
   * logged (the reply's model.reply event carries it whole). Added for issue 38.
   */
  | { kind: 'live'; sessionId: string; deltas: LiveReplyDelta[] };

export type ErrorCode = 'bad_request' | 'not_found' | 'conflict' | 'read_only' | 'unauthorized' | 'internal';

/** Parses a client message, naming the first problem. */
export function parseClientMessage(raw: unknown): { ok: true; message: ClientMessage } | { ok: false; error: string } {
  const res = ClientMessage.safeParse(raw);
  if (res.success) return { ok: true, message: res.data };
  const issue = res.error.issues[0];
  return { ok: false, error: issue ? `${issue.path.join('.') || 'message'}: ${issue.message}` : 'invalid message' };
}
