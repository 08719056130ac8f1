// `rerun` end to end: read a saved log (native or the reference library's), check the context
// file against it, pick the REPL language, re-execute, and write the re-execution's native log.
import { randomUUID } from 'node:crypto';
import { join, resolve } from 'node:path';
import { fileErrorText } from '../../src-shared/file-errors.ts';
import { formatProblem } from '../../src-shared/codecs/lines.ts';
import type { LogFormat } from '../../src-shared/codecs/detect.ts';
import { makeHeader } from '../../src-shared/codecs/native-lines.ts';
import { asSessionId, type EventSink, type LogHeader, type ReplLanguage, type TrajectoryEvent } from '../../src-shared/events.ts';
import { reduceEvents } from '../../src-shared/trajectory/reducer.ts';
import type { TrajectoryState } from '../../src-shared/trajectory/types.ts';
import { RLM_DEFAULTS, type ToolSpec } from '../engine/config.ts';
import { EventRecorder } from '../engine/event-recorder.ts';
import { replFactoryFor } from '../engine/conversation.ts';
import { folderProblem, NativeLogFile, nativeLogName } from '../logs/native-file-sink.ts';
import { readLogFile } from '../logs/read-log.ts';
import type { HostFunction, ReplOptions, SandboxValue } from '../sandbox/types.ts';
import type { ComparisonTerms } from './compare.ts';
import { contextMismatch } from './context-check.ts';
import { RerunInputError } from './errors.ts';
import { checkContextCount, contextOfTurn, reexecute, rootRuns, type BlockComparison } from './re-execute.ts';

export type { ReplLanguage };

export { RerunInputError };

export interface RecordedLog {
  path: string;
  format: LogFormat;
  header: LogHeader | null;
  events: TrajectoryEvent[];
  state: TrajectoryState;
  /** Problems met reading it, in words (the readable part is still re-executed). */
  warnings: string[];
}

/** A recorded session already read (a log opened from text): its events as they are. */
export function recordedLogFromEvents(label: string, format: LogFormat, header: LogHeader | null, events: TrajectoryEvent[]): RecordedLog {
  if (events.length === 0) throw new RerunInputError(`${label}: the log has no events to re-execute`);
  return { path: label, format, header, events, state: reduceEvents(events, header), warnings: [] };
}

export async function readRecordedLog(path: string): Promise<RecordedLog> {
  let contents: Awaited<ReturnType<typeof readLogFile>>;
  try {
    contents = await readLogFile(path);
  } catch (err) {
    throw new RerunInputError(`${path}: ${fileErrorText(err)}`);
  }
  const problems = contents.problems.map(formatProblem);
  if (contents.format === null) throw new RerunInputError(`${path}: ${problems[0] ?? 'not a log this reader knows'}`);
  if (contents.events.length === 0)
    throw new RerunInputError(`${path}: the log has no events to re-execute${problems[0] ? ` (${problems[0]})` : ''}`);
  const state = reduceEvents(contents.events, contents.header);
  return { path, format: contents.format, header: contents.header, events: contents.events, state, warnings: problems };
}

/** The language a native log says it ran in (header or root run.start), if it says. */
function declaredLanguage(log: RecordedLog): ReplLanguage | null {
  const root = log.state.roots[0] === undefined ? undefined : log.state.runs.get(log.state.roots[0]);
  return log.header?.repl ?? root?.start?.repl ?? null;
}

export interface RerunPlan {
  terms: ComparisonTerms;
  language: ReplLanguage;
}

/**
 * Reference logs are Python and compared in the reference's terms; native logs run in the
 * language they name (JavaScript when they name none) unless `override` says otherwise.
 */
export function planRerun(log: RecordedLog, contexts: SandboxValue[], contextLabels: string[], override?: ReplLanguage): RerunPlan {
  const terms: ComparisonTerms = log.format === 'rlm-python' ? 'rlm-python' : 'native';
  if (terms === 'rlm-python' && override === 'javascript') {
    throw new RerunInputError(
      `${log.path} was written by the reference library, whose code is Python; it cannot be re-executed as JavaScript`,
    );
  }
  const language: ReplLanguage = terms === 'rlm-python' ? 'python' : (override ?? declaredLanguage(log) ?? 'javascript');
  const roots = rootRuns(log.state);
  checkContextCount(roots.length, contexts.length);
  for (const [turn, root] of roots.entries()) {
    const recorded = root.start?.context;
    if (!recorded) continue;
    const mismatch = contextMismatch(recorded, contextOfTurn(contexts, turn), terms);
    if (mismatch === null) continue;
    const label = (contexts.length === 1 ? contextLabels[0] : contextLabels[turn]) ?? 'the context';
    const which = roots.length === 1 ? '' : ` turn ${turn + 1} of`;
    throw new RerunInputError(`${label} is not the context${which} ${log.path} was made from: ${mismatch}`);
  }
  return { terms, language };
}

/** REPL options of a re-execution: the engine's default limits and the given tools. */
export function rerunReplOptions(tools: Record<string, ToolSpec>): Omit<ReplOptions, 'bridge'> {
  const values: Record<string, HostFunction | SandboxValue> = {};
  for (const [name, t] of Object.entries(tools)) values[name] = t.value;
  const s = RLM_DEFAULTS.sandbox;
  return { tools: values, memoryLimitMb: s.memoryLimitMb, cpuLimitMs: s.blockCpuMs, wallLimitMs: s.blockWallMs };
}

export interface RerunLogOptions {
  logPath: string;
  /** Each turn's context, or one for every turn (see `ReexecuteOptions.contexts`). */
  contexts: SandboxValue[];
  /** How each context is named in messages (its file). */
  contextLabels: string[];
  tools?: Record<string, ToolSpec>;
  language?: ReplLanguage;
  /** Python in the machine's CPython inside the OS sandbox rather than Pyodide (`--repl cpython`). */
  cpython?: { python?: string };
  /** Where the re-execution's native log goes; null: nowhere. */
  logDir: string | null;
  onBlock?: (c: BlockComparison) => void;
  onWarning?: (message: string) => void;
  signal?: AbortSignal;
}

export interface RerunReport {
  format: LogFormat;
  language: ReplLanguage;
  blocks: number;
  same: number;
  different: BlockComparison[];
  logFile: string | null;
}

/** The custom tools the log's runs had (native logs record their names) that are not given. */
function toolsNotGiven(log: RecordedLog, given: Record<string, ToolSpec>): string[] {
  const had = new Set<string>();
  for (const run of log.state.runs.values()) for (const name of run.start?.tools ?? []) had.add(name);
  return [...had].filter((name) => !Object.hasOwn(given, name)).sort();
}

export async function rerunLog(o: RerunLogOptions): Promise<RerunReport> {
  const log = await readRecordedLog(o.logPath);
  for (const w of log.warnings) o.onWarning?.(w);
  const missing = toolsNotGiven(log, o.tools ?? {});
  if (missing.length > 0)
    o.onWarning?.(`its runs had custom tools that were not given (--tools): ${missing.join(', ')}; blocks that call them will differ`);
  const plan = planRerun(log, o.contexts, o.contextLabels, o.language);
  const createRepl = replFactoryFor(plan.language, plan.language === 'python' ? o.cpython : undefined);
  const recorder = new EventRecorder();
  let file: NativeLogFile | null = null;
  if (o.logDir !== null) {
    const sessionId = asSessionId(randomUUID());
    const created = new Date();
    const header: LogHeader = {
      ...makeHeader(sessionId, created, undefined, plan.language),
      rerunOf: { logFile: resolve(o.logPath), format: log.format },
    };
    try {
      file = new NativeLogFile(join(resolve(o.logDir), nativeLogName(sessionId, created)), header);
    } catch (err) {
      throw new RerunInputError(`cannot create the re-execution's log in ${o.logDir}: ${folderProblem(err)}`);
    }
    const out = file;
    recorder.listen((e) => out.append(e));
  }
  const sink: EventSink = recorder;
  try {
    const result = await reexecute({
      state: log.state,
      terms: plan.terms,
      contexts: o.contexts,
      createRepl,
      replOptions: rerunReplOptions(o.tools ?? {}),
      sink,
      ...(o.onBlock ? { onBlock: o.onBlock } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
    });
    return { format: log.format, language: plan.language, ...result, logFile: file?.path ?? null };
  } finally {
    file?.close();
  }
}
