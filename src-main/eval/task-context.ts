// The context an evaluation's log ran on, found through the evaluation. Logs do not carry their
// context, and a generated task's is often inline in the dataset, where no `--context FILE` can
// point. A log in DIR/logs/ of an evaluation directory belongs to the task that DIR/results.jsonl
// records it under (or, for a log with no result line, the task whose log name it has), and
// DIR/eval.json names the dataset that holds the task's context. `coverage` and `rerun` use it
// when no --context is given; the host serves it to the app's coverage map.
import { existsSync, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { fileErrorText } from '../../src-shared/file-errors.ts';
import type { ContextSource } from '../../src-shared/protocol.ts';
import { jsonTextOf } from '../sandbox/json-source.ts';
import { type Dataset, readDataset } from './dataset.ts';
import { isEvalDir } from './open-dir.ts';
import type { EvalTask } from './tasks/types.ts';
import { logNameFor } from './units.ts';

export type EvalTaskContext =
  /** `source` as a session recipe names a context; `task` and `dataset` for loading it as the runner did. */
  | { found: true; task: EvalTask; dataset: Dataset; source: ContextSource; label: string }
  /** The log is an evaluation's, but its context cannot be had: why, in words. */
  | { found: false; why: string };

/** The evaluation directory a log is in (DIR/logs/LOG), or null when it is not an evaluation's. */
export function evalDirOfLog(logFile: string): string | null {
  const logs = dirname(resolve(logFile));
  if (basename(logs) !== 'logs') return null;
  const dir = dirname(logs);
  return isEvalDir(dir) ? dir : null;
}

/**
 * The last value read from a file, kept while the file's size and modification time stay the
 * same: an evaluation's task logs are opened together (`eval.open` opens up to 50), and each
 * asks for the same results.jsonl and dataset. A failed read is not kept.
 */
class LastRead<T> {
  private last: { key: string; value: Promise<T> } | null = null;
  private readonly read: (path: string) => Promise<T>;

  constructor(read: (path: string) => Promise<T>) {
    this.read = read;
  }

  async get(path: string): Promise<T> {
    const st = await stat(path).catch((err: unknown) => {
      throw new Error(`${path}: ${fileErrorText(err)}`);
    });
    const key = `${path}\0${st.size}\0${st.mtimeMs}`;
    if (this.last?.key !== key) {
      const entry = { key, value: this.read(path) };
      this.last = entry;
      entry.value.catch(() => {
        if (this.last === entry) this.last = null;
      });
    }
    return this.last.value;
  }
}

/** Task ids by log file name, as results.jsonl records them (a torn or foreign line is skipped). */
const results = new LastRead(async (path) => {
  const byLog = new Map<string, string[]>();
  for (const line of (await readFile(path, 'utf8')).split('\n')) {
    if (line.trim() === '') continue;
    let r: unknown;
    try {
      r = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof r !== 'object' || r === null) continue;
    const { id, logFile } = r as { id?: unknown; logFile?: unknown };
    if (typeof id !== 'string' || typeof logFile !== 'string') continue;
    const name = basename(logFile);
    byLog.set(name, [...(byLog.get(name) ?? []), id]);
  }
  return byLog;
});

/** A dataset with inline contexts can be large (200 tasks of 256 KB: 28 MB, read in ~0.25 s). */
const datasets = new LastRead(readDataset);

async function idsFromResults(dir: string, logName: string): Promise<string[]> {
  const path = resolve(dir, 'results.jsonl');
  if (!existsSync(path)) return [];
  return (await results.get(path)).get(logName) ?? [];
}

/** The log names a task's sessions get: `<id>`, `<id>.rN`, and either set aside as `.interrupted-K` or `.retried-K`. */
function isLogOf(task: EvalTask, logName: string): boolean {
  const name = logName.replace(/\.rlm\.jsonl$/, '').replace(/\.(interrupted|retried)-\d+$/, '');
  const base = logNameFor({ task, repeat: 0 });
  return name === base || (name.startsWith(`${base}.r`) && /^\d+$/.test(name.slice(base.length + 2)));
}

function datasetPathOf(dir: string): string | null {
  try {
    const m = JSON.parse(readFileSync(resolve(dir, 'eval.json'), 'utf8')) as { dataset?: unknown };
    return typeof m.dataset === 'string' && m.dataset !== '' ? resolve(dir, m.dataset) : null;
  } catch {
    return null;
  }
}

/** The task's context as a recipe names one: its file, its text, or its JSON's own text. */
function sourceOf(task: EvalTask, dataset: Dataset): ContextSource {
  if (task.context === undefined) return { kind: 'file', path: resolve(dataset.dir, task.contextFile ?? '') };
  if (typeof task.context === 'string') return { kind: 'text', text: task.context };
  return { kind: 'json', json: jsonTextOf(task.context) };
}

/** The context of an evaluation's log; null when the log is not in an evaluation directory. */
export async function evalTaskContext(logFile: string): Promise<EvalTaskContext | null> {
  const dir = evalDirOfLog(logFile);
  if (dir === null) return null;
  const datasetPath = datasetPathOf(dir);
  if (datasetPath === null) return { found: false, why: `the evaluation ${dir} does not name its dataset (no readable eval.json)` };
  let dataset: Dataset;
  try {
    dataset = await datasets.get(datasetPath);
  } catch (err) {
    return { found: false, why: `the evaluation's dataset cannot be read: ${err instanceof Error ? err.message : String(err)}` };
  }
  const logName = basename(logFile);
  const ids = await idsFromResults(dir, logName);
  const task = ids.length > 0 ? dataset.tasks.find((t) => ids.includes(t.id)) : dataset.tasks.find((t) => isLogOf(t, logName));
  if (!task) return { found: false, why: `no task of ${datasetPath} has the log ${logName}` };
  return { found: true, task, dataset, source: sourceOf(task, dataset), label: `task ${task.id} of ${datasetPath}` };
}
