// The labels sidecar of a log (`LOG.labels.jsonl`) and the label set that applies to it
// (`rlm-labels.json` in the log's folder or the nearest folder above it). Records are
// appended, one `write(2)` each; the log itself is only ever read.
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileErrorText } from '../../src-shared/file-errors.ts';
import { appendLine } from './append-line.ts';
import { LabelRecord, LabelSet, readLabelsText, emptyLabels, type LabelsState } from '../../src-shared/analysis/labels.ts';

const LABEL_SET_FILE = 'rlm-labels.json';
const SIDECAR_SUFFIX = '.labels.jsonl';

export function sidecarPath(logPath: string): string {
  return `${logPath}${SIDECAR_SUFFIX}`;
}

/** A sidecar, not a log: folder walks pass over it. */
export function isSidecar(name: string): boolean {
  return name.endsWith(SIDECAR_SUFFIX);
}

/** Bad label input (unknown label, bad set file); the message names the problem. */
export class LabelError extends Error {
  override name = 'LabelError';
}

/** The labels of a log (none when it has no sidecar). */
export async function readLabels(logPath: string): Promise<LabelsState> {
  let text: string;
  try {
    text = await readFile(sidecarPath(logPath), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return emptyLabels();
    throw err;
  }
  return readLabelsText(text);
}

/** Appends one record (validated) to the log's sidecar; the log is not opened. */
export async function appendLabelRecord(logPath: string, record: LabelRecord): Promise<void> {
  const r = LabelRecord.parse(record);
  await appendLine(sidecarPath(logPath), `${JSON.stringify(r)}\n`);
}

export interface FoundLabelSet {
  path: string;
  set: LabelSet;
}

/** The label set for a log: `rlm-labels.json` in its folder or the nearest one above; null when none. */
export async function findLabelSet(logPath: string): Promise<FoundLabelSet | null> {
  let dir = dirname(resolve(logPath));
  for (;;) {
    const path = join(dir, LABEL_SET_FILE);
    const found = await readLabelSet(path).catch((err: unknown) => {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    });
    if (found) return { path, set: found };
    const up = dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

/** Reads and checks a label set file. */
async function readLabelSet(path: string): Promise<LabelSet> {
  const text = await readFile(path, 'utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new LabelError(`${path}: not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  const r = LabelSet.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new LabelError(`${path}: ${issue ? `${issue.path.join('.') || 'file'}: ${issue.message}` : 'not a label set'}`);
  }
  return r.data;
}

/** A label set file the user named: one that cannot be read is their error, said in a sentence. */
async function readNamedLabelSet(path: string): Promise<LabelSet> {
  return readLabelSet(path).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === undefined) throw err;
    throw new LabelError(`label set ${path}: ${fileErrorText(err)}`);
  });
}

/** What to write when there is no label set, for error messages. */
const LABEL_SET_EXAMPLE = `{"labels": [{"name": "good-decomposition"}, {"name": "missed-evidence", "description": "the answer was in a span no model read"}]}`;

/** Checks a label against the set that applies to the log; the error says where the set is (or should be). */
export async function checkLabel(logPath: string, label: string, setPath?: string): Promise<FoundLabelSet> {
  const found = setPath !== undefined ? { path: setPath, set: await readNamedLabelSet(setPath) } : await findLabelSet(logPath);
  if (!found) {
    throw new LabelError(
      `no label set for ${logPath}: write ${join(dirname(resolve(logPath)), LABEL_SET_FILE)} (or one in a folder above), e.g. ${LABEL_SET_EXAMPLE}`,
    );
  }
  if (!found.set.labels.some((l) => l.name === label)) {
    throw new LabelError(`unknown label "${label}"; ${found.path} defines: ${found.set.labels.map((l) => l.name).join(', ')}`);
  }
  return found;
}
