// What the commands that read logs share: the logs they name (LOG|DIR…, unusable paths as
// usage errors), refusing an unreadable input, a log's read problems in words, and where they write.
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { formatProblem, type ReadProblem } from '../../src-shared/codecs/lines.ts';
import { fileErrorText } from '../../src-shared/file-errors.ts';
import { expandLogInputs, type LogInput, LogInputError } from '../export/log-inputs.ts';
import { UsageError } from './errors.ts';

/** The logs `paths` name (files, and the logs inside folders); an unusable path is a UsageError. */
export async function logInputs(paths: readonly string[]): Promise<LogInput[]> {
  try {
    return await expandLogInputs(paths, { requireLogs: true });
  } catch (err) {
    if (err instanceof LogInputError) throw new UsageError(err.message);
    throw err;
  }
}

export interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
}

/** The process's stdout and stderr, for commands run from the command line (tests pass their own). */
export const processOutput: Output = {
  out: (t) => void process.stdout.write(t),
  err: (t) => void process.stderr.write(t),
};

/** Refuses a path that is missing or unreadable, or a folder unless `folder` (reading one as a file fails with a bare EISDIR). */
export async function assertReadable(path: string, { folder = false }: { folder?: boolean } = {}): Promise<void> {
  let isDir: boolean;
  try {
    await access(path, constants.R_OK);
    isDir = (await stat(path)).isDirectory();
  } catch (err) {
    throw new UsageError(`${path}: ${fileErrorText(err)}`);
  }
  if (isDir && !folder) throw new UsageError(`${path} is a folder, not a file`);
}

/**
 * A log's read problems in words: its warnings and later errors as lines for stderr, and its
 * first error with the count of the rest as the failure's message (null when none is an error).
 */
export function describeProblems(path: string, problems: ReadProblem[], what: string): { lines: string[]; failure: string | null } {
  const lines = problems.filter((p) => p.severity === 'warning').map((p) => `rlm-studio: ${path}: warning: ${formatProblem(p)}\n`);
  const errors = problems.filter((p) => p.severity === 'error');
  const first = errors[0];
  if (!first) return { lines, failure: null };
  for (const p of errors.slice(1, 10)) lines.push(`rlm-studio: ${path}: ${formatProblem(p)}\n`);
  const more = errors.length > 1 ? ` (${errors.length - 1} more problem(s) listed above)` : '';
  return { lines, failure: `${path}: ${formatProblem(first)}${more}; ${what}` };
}

/** Warnings go to stderr; errors become one UsageError naming the first bad line. */
export function reportProblems(path: string, problems: ReadProblem[], io: Output, what: string): void {
  const { lines, failure } = describeProblems(path, problems, what);
  for (const line of lines) io.err(line);
  if (failure !== null) throw new UsageError(failure);
}
