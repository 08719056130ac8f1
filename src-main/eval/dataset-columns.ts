// Datasets as real RLM benchmarks ship them: JSON lines or Parquet files with a question, a
// context and an answer column under their own names (`eval DATASET --question-column Q
// --context-column C --answer-column A [--id-column ID] [--task-scorer S]`). Each row becomes a
// task of this folder's format; Parquet is read with hyparquet (pure JavaScript).
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { fileErrorText } from '../../src-shared/file-errors.ts';
import type { SandboxValue } from '../sandbox/types.ts';
import { SCORERS, type EvalTask, type Expected, type ScorerName } from './tasks/types.ts';

export interface DatasetColumns {
  question: string;
  context: string;
  answer: string;
  /** A column of task ids; absent: `row-N` (1-based). */
  id?: string;
  /** The scorer of every task (default `exact`). */
  scorer?: ScorerName;
}

export class ColumnDatasetError extends Error {
  override name = 'ColumnDatasetError';
}

export const isParquet = (path: string): boolean => extname(path).toLowerCase() === '.parquet';

/** A cell as JSON-like data: bigints (Parquet INT64) become numbers when exact, else strings; dates ISO text. */
function plain(v: unknown): SandboxValue {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v as SandboxValue;
}

function expectedOf(v: SandboxValue, where: string, column: string): Expected {
  if (typeof v === 'string' || typeof v === 'number') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v;
  if (typeof v === 'boolean') return String(v);
  throw new ColumnDatasetError(
    `${where}: the answer column "${column}" holds ${v === null ? 'null' : Array.isArray(v) ? 'a list that is not all strings' : typeof v}; a string, a number or a list of strings is needed`,
  );
}

function taskOf(row: Record<string, unknown>, n: number, c: DatasetColumns, path: string, where: string): EvalTask {
  for (const col of [c.question, c.context, c.answer, ...(c.id ? [c.id] : [])]) {
    if (!(col in row)) {
      const have = Object.keys(row).slice(0, 12).join(', ');
      throw new ColumnDatasetError(`${where}: no column "${col}" (it has: ${have || 'none'})`);
    }
  }
  const query = plain(row[c.question]);
  if (typeof query !== 'string')
    throw new ColumnDatasetError(
      `${where}: the question column "${c.question}" must hold text, got ${query === null ? 'null' : typeof query}`,
    );
  const context = plain(row[c.context]);
  if (context === null) throw new ColumnDatasetError(`${where}: the context column "${c.context}" is empty`);
  const idValue = c.id ? plain(row[c.id]) : `row-${n}`;
  if (typeof idValue !== 'string' && typeof idValue !== 'number')
    throw new ColumnDatasetError(`${where}: the id column "${c.id}" must hold text or a number`);
  const id = String(idValue);
  if (id === '') throw new ColumnDatasetError(`${where}: an empty id in "${c.id}"`);
  return {
    id,
    kind: basename(path).replace(/\.(jsonl?|parquet)$/i, ''),
    query,
    expected: expectedOf(plain(row[c.answer]), where, c.answer),
    scorer: c.scorer ?? 'exact',
    context,
  };
}

async function rowsOf(path: string): Promise<{ rows: Record<string, unknown>[]; where: (i: number) => string }> {
  let buf: Buffer;
  try {
    buf = await readFile(path);
  } catch (err) {
    throw new ColumnDatasetError(`cannot read dataset ${path}: ${fileErrorText(err)}`);
  }
  if (isParquet(path)) {
    const { parquetReadObjects } = await import('hyparquet');
    // A copy of the bytes as their own ArrayBuffer (a Buffer may be a view into a shared pool).
    const file = new Uint8Array(buf).buffer;
    try {
      return { rows: (await parquetReadObjects({ file })) as Record<string, unknown>[], where: (i) => `${path} row ${i + 1}` };
    } catch (err) {
      throw new ColumnDatasetError(`${path} is not a Parquet file that can be read: ${(err as Error).message}`);
    }
  }
  const rows: Record<string, unknown>[] = [];
  const lineOf: number[] = [];
  buf
    .toString('utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      let v: unknown;
      try {
        v = JSON.parse(line);
      } catch (err) {
        throw new ColumnDatasetError(`${path} line ${i + 1} is not valid JSON: ${(err as Error).message}`);
      }
      if (typeof v !== 'object' || v === null || Array.isArray(v))
        throw new ColumnDatasetError(`${path} line ${i + 1} is not a JSON object`);
      rows.push(v as Record<string, unknown>);
      lineOf.push(i + 1);
    });
  return { rows, where: (i) => `${path} line ${lineOf[i] ?? i + 1}` };
}

/** The tasks of a JSON lines or Parquet file whose columns are named by `columns`. */
export async function readColumnDataset(path: string, columns: DatasetColumns): Promise<EvalTask[]> {
  if (columns.scorer !== undefined && !SCORERS.includes(columns.scorer))
    throw new ColumnDatasetError(`--task-scorer must be one of ${SCORERS.join(', ')}, got "${columns.scorer as string}"`);
  const { rows, where } = await rowsOf(path);
  const tasks: EvalTask[] = [];
  const ids = new Set<string>();
  rows.forEach((row, i) => {
    const t = taskOf(row, i + 1, columns, path, where(i));
    if (ids.has(t.id)) throw new ColumnDatasetError(`${where(i)}: duplicate task id "${t.id}"`);
    ids.add(t.id);
    tasks.push(t);
  });
  if (tasks.length === 0) throw new ColumnDatasetError(`dataset ${path} has no rows`);
  return tasks;
}
