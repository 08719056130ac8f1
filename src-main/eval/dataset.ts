// Datasets: JSONL, one task per line (id, kind, query, expected, scorer, and the context
// inline or as a file beside the dataset). Validated line by line; errors name the line.
import { mkdir, readFile, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { withoutUndefined } from '../../src-shared/defined.ts';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { fileErrorText } from '../../src-shared/file-errors.ts';
import { schemaProblems } from '../../src-shared/schema-problems.ts';
import { ContextFileError, readContextFile } from '../engine/context-file.ts';
import { memberTextOf, parseJsonContext } from '../sandbox/json-source.ts';
import type { SandboxValue } from '../sandbox/types.ts';
import { ColumnDatasetError, isParquet, readColumnDataset, type DatasetColumns } from './dataset-columns.ts';
import { generateTask } from './tasks/index.ts';
import { SCORERS, type EvalTask, type TaskKind } from './tasks/types.ts';

export class DatasetError extends Error {
  override name = 'DatasetError';
}

const JsonValue: z.ZodType<SandboxValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(JsonValue), z.record(z.string(), JsonValue)]),
);

const TaskLine = z
  .strictObject({
    id: z.string().min(1, 'id must not be empty'),
    kind: z.string().min(1),
    query: z.string(),
    expected: z.union([z.string(), z.number(), z.array(z.string())]),
    scorer: z.enum(SCORERS),
    context: JsonValue.optional(),
    contextFile: z.string().min(1).optional(),
    sizeTokens: z.number().int().positive().optional(),
    seed: z.number().int().optional(),
  })
  .refine((t) => (t.context === undefined) !== (t.contextFile === undefined), 'exactly one of "context" and "contextFile" is needed');

export interface Dataset {
  path: string;
  /** Where `contextFile` paths are resolved. */
  dir: string;
  tasks: EvalTask[];
}

/**
 * A dataset of this folder's format, or with `columns` (and for any Parquet file) a JSON lines or
 * Parquet file whose question, context and answer columns are named (dataset-columns.ts).
 */
export async function readDataset(path: string, columns?: DatasetColumns): Promise<Dataset> {
  if (columns !== undefined || isParquet(path)) {
    try {
      const tasks = await readColumnDataset(path, columns ?? { question: 'question', context: 'context', answer: 'answer' });
      return { path: resolve(path), dir: dirname(resolve(path)), tasks };
    } catch (err) {
      if (err instanceof ColumnDatasetError) throw new DatasetError(err.message);
      throw err;
    }
  }
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new DatasetError(`cannot read dataset ${path}: ${fileErrorText(err)}`);
  }
  const tasks: EvalTask[] = [];
  const ids = new Set<string>();
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new DatasetError(`${path} line ${i + 1} is not valid JSON: ${(err as Error).message}`);
    }
    const res = TaskLine.safeParse(value, { reportInput: true });
    if (!res.success) {
      const problems = schemaProblems(res.error);
      throw new DatasetError(`${path} line ${i + 1}: ${problems.join('; ')}`);
    }
    if (ids.has(res.data.id)) throw new DatasetError(`${path} line ${i + 1}: duplicate task id "${res.data.id}"`);
    ids.add(res.data.id);
    const task = res.data;
    // An inline array or object is parsed again from its own text, which the Python REPL then
    // reads (2.0 stays a float, big integers exact), as it reads a context file's.
    const inline = typeof task.context === 'object' && task.context !== null ? memberTextOf(line, 'context') : undefined;
    tasks.push(withoutUndefined<EvalTask>(inline === undefined ? task : { ...task, context: parseJsonContext(inline) }));
  });
  if (tasks.length === 0) throw new DatasetError(`dataset ${path} has no tasks`);
  const dir = dirname(resolve(path));
  await checkContextFiles(path, dir, tasks);
  return { path: resolve(path), dir, tasks };
}

/**
 * Refuses a dataset whose context files are not all there, before any session spends money on
 * the tasks that do have theirs (a typo in one line would otherwise surface as that task's error).
 */
async function checkContextFiles(path: string, dir: string, tasks: readonly EvalTask[]): Promise<void> {
  const checked = await Promise.all(
    tasks.map(async (task) => {
      if (task.contextFile === undefined) return null;
      const file = resolve(dir, task.contextFile);
      const why = await stat(file).then(
        (s) => (s.isFile() ? null : 'it is not a file'),
        (err: unknown) => fileErrorText(err),
      );
      return why === null ? null : `task ${task.id}: ${file}: ${why}`;
    }),
  );
  const problems = checked.filter((p) => p !== null);
  if (problems.length === 0) return;
  const shown = problems.slice(0, 5).join('; ');
  const more = problems.length > 5 ? `; and ${problems.length - 5} more` : '';
  throw new DatasetError(`${path}: the context files of ${problems.length} task(s) cannot be read: ${shown}${more}`);
}

/**
 * The task's context: inline, or read from its file as `run` reads one (`.json` parsed, a file
 * larger than one string as an array of strings). `flat`: see `ContextFileOptions`.
 */
export async function loadTaskContext(task: EvalTask, datasetDir: string, options: { flat: boolean }): Promise<SandboxValue> {
  if (task.context !== undefined) return task.context;
  try {
    return await readContextFile(resolve(datasetDir, task.contextFile ?? ''), options);
  } catch (err) {
    if (err instanceof ContextFileError) throw new DatasetError(`task ${task.id}: ${err.message}`);
    throw err;
  }
}

export interface GenerateOptions {
  kinds: TaskKind[];
  sizes: number[];
  seed: number;
  /** Tasks per kind and size (seeds seed, seed+1, …). */
  count: number;
  out: string;
  /** Contexts longer than this go to a file in `<out>.contexts/`. */
  inlineMaxChars: number;
}

/**
 * Generates a dataset: each task's line into `write`, and each context longer than
 * `inlineMaxChars` into its file in `<out>.contexts/`. Returns the tasks written (contexts as
 * written). The caller makes the dataset file (whole or not at all); if generating fails,
 * the context files written here are removed again, so a retry finds nothing in its way.
 */
export async function generateDataset(
  o: GenerateOptions,
  write: (line: string) => Promise<void>,
  onTask?: (t: EvalTask) => void,
): Promise<EvalTask[]> {
  const out = resolve(o.out);
  const ctxDir = join(dirname(out), `${basename(out).replace(/\.jsonl?$/i, '')}.contexts`);
  const made: string[] = [];
  let madeDir = false;
  const written: EvalTask[] = [];
  try {
    for (const kind of o.kinds) {
      for (const size of o.sizes) {
        for (let k = 0; k < o.count; k++) {
          const seed = o.seed + k;
          const g = generateTask(kind, size, seed);
          const id = `${kind}-${size}-s${seed}`;
          const base: EvalTask = { id, kind, query: g.query, expected: g.expected, scorer: g.scorer, sizeTokens: size, seed };
          const text = typeof g.context === 'string' ? g.context : JSON.stringify(g.context);
          let task: EvalTask;
          if (text.length <= o.inlineMaxChars) {
            task = { ...base, context: g.context };
          } else {
            if (!madeDir) madeDir = (await mkdir(ctxDir, { recursive: true })) !== undefined;
            const file = join(ctxDir, `${id}.${typeof g.context === 'string' ? 'txt' : 'json'}`);
            made.push(file);
            await writeFile(file, text).catch((err: unknown) => {
              throw new DatasetError(`${file}: cannot write the context of ${id}: ${fileErrorText(err, true)}`);
            });
            task = { ...base, contextFile: relative(dirname(out), file) };
          }
          await write(`${JSON.stringify(task)}\n`);
          written.push(task);
          onTask?.(task);
        }
      }
    }
  } catch (err) {
    // Best effort: what cannot be removed (the folder in the way of a context file) stays as it was.
    await Promise.all(made.map((f) => rm(f, { force: true }).catch(() => undefined)));
    if (madeDir) await rmdir(ctxDir).catch(() => undefined);
    throw err;
  }
  return written;
}
