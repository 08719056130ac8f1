// Runs a tree query over logs on disk: each log is read (either format), folded into its run
// tree, given its labels sidecar, turned into a session document and queried. A few logs are
// read at once; matches come out in the order of the inputs.
import { buildSessionDoc } from '../../src-shared/analysis/query-document.ts';
import { readFile, stat } from 'node:fs/promises';
import { AnyLogReader } from '../../src-shared/codecs/detect.ts';
import type { ReadProblem } from '../../src-shared/codecs/lines.ts';
import { QueryError, type CompiledQuery, type QueryMatch } from '../../src-shared/analysis/query.ts';
import { reduceEvents } from '../../src-shared/trajectory/reducer.ts';
import { expandLogInputs, LogInputError, type LogInput } from '../export/log-inputs.ts';
import { readLabels } from '../logs/labels-sidecar.ts';
import { readLogFile, type LogContents } from '../logs/read-log.ts';

export interface QueryLogsOptions {
  /** The root runs' context file (for `printedContext` of root runs). */
  rootContext?: string | null;
  /** Logs read at once (default 4). */
  concurrency?: number;
  /** Called when a log is skipped or read with problems, in words. */
  onNote?: (note: string) => void;
  /** Called with the problems of a log that had lines it could not read; without it, a note says how many. */
  onDamaged?: (path: string, problems: ReadProblem[]) => void;
}

export interface QueryLogsResult {
  logs: number;
  sessions: number;
  matches: QueryMatch[];
}

/** Below this a log is read in one go: a stream's 1 MiB buffer costs more than a small file's whole read. */
const WHOLE_READ_BYTES = 8 * 1024 * 1024;

export async function readContents(path: string): Promise<LogContents> {
  if ((await stat(path)).size > WHOLE_READ_BYTES) return readLogFile(path);
  const reader = new AnyLogReader();
  const out: LogContents = { format: null, header: null, events: [], problems: [] };
  for (const item of [...reader.push(await readFile(path, 'utf8')), ...reader.end()]) {
    if (item.kind === 'format') out.format = item.format;
    else if (item.kind === 'header') out.header = item.header;
    else if (item.kind === 'event') out.events.push(item.event);
    else if (item.kind === 'problem') out.problems.push(item.problem);
  }
  return out;
}

async function queryOne(query: CompiledQuery, input: LogInput, o: QueryLogsOptions): Promise<QueryMatch[] | null> {
  const contents = await readContents(input.path);
  if (contents.format === null) {
    if (input.explicit) throw new Error(`${input.path}: not a log in a known format`);
    o.onNote?.(`${input.path}: skipped, not a log in a known format`);
    return null;
  }
  const errors = contents.problems.filter((p) => p.severity === 'error').length;
  if (errors > 0) {
    if (o.onDamaged) o.onDamaged(input.path, contents.problems);
    else o.onNote?.(`${input.path}: ${errors} line(s) could not be read; queried what could`);
  }
  const labels = await readLabels(input.path);
  for (const p of labels.problems.slice(0, 3)) o.onNote?.(`${input.path}.labels.jsonl ${p}`);
  const traj = reduceEvents(contents.events, contents.header);
  const doc = buildSessionDoc({ file: input.path, format: contents.format, traj, labels, rootContext: o.rootContext ?? null });
  return query.run(doc);
}

export async function queryLogs(query: CompiledQuery, inputs: readonly LogInput[], o: QueryLogsOptions = {}): Promise<QueryLogsResult> {
  const results: (QueryMatch[] | null)[] = new Array(inputs.length).fill(null);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < inputs.length) {
      const i = next++;
      results[i] = await queryOne(query, inputs[i]!, o);
    }
  };
  await Promise.all(Array.from({ length: Math.min(o.concurrency ?? 4, inputs.length) }, worker));
  const read = results.filter((r) => r !== null);
  return { logs: inputs.length, sessions: read.length, matches: read.flat() };
}

/** The same over paths as given (files, folders searched for logs); a path that names nothing is a QueryError. */
export async function queryPaths(query: CompiledQuery, paths: readonly string[], o: QueryLogsOptions = {}): Promise<QueryLogsResult> {
  let inputs: LogInput[];
  try {
    inputs = await expandLogInputs(paths);
  } catch (err) {
    if (err instanceof LogInputError) throw new QueryError(err.message, null);
    throw err;
  }
  return queryLogs(query, inputs, o);
}
