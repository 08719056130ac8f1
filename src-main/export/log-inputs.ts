// The logs named on an export's command line: files as given, folders searched for logs of
// any supported format (an evaluation's output folder holds its logs under `logs/` beside
// `results.jsonl`, which is not a log and is passed over).
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileErrorText } from '../../src-shared/file-errors.ts';
import { isSidecar } from '../logs/labels-sidecar.ts';

/** Files in a folder that may be logs: ours end `.rlm.jsonl`, the reference library's `.jsonl` (not labels sidecars). */
function mayBeLog(name: string): boolean {
  return name.endsWith('.jsonl') && name !== 'results.jsonl' && name !== 'findings.jsonl' && !isSidecar(name);
}

async function walk(dir: string, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) await walk(path, out);
    else if (e.isFile() && mayBeLog(e.name)) out.push(path);
  }
}

/** A path that names no readable log or folder; the message names it. */
export class LogInputError extends Error {
  override name = 'LogInputError';
}

export interface LogInput {
  path: string;
  /** Named on the command line (an unreadable one is an error) or found in a folder (skipped with a note). */
  explicit: boolean;
}

/** The folder's notice when it holds no file that may be a log (a mistyped path, most often). */
export function noLogsIn(folder: string): string {
  return `${folder}: no logs in this folder (looked for .jsonl files in it and its subfolders)`;
}

/**
 * Expands the paths into log files, each once, in a stable order. With `requireLogs`, a folder
 * without any file that may be a log is an error (the command line's case; the app lists an
 * empty runs folder as empty).
 */
export async function expandLogInputs(
  paths: readonly string[],
  { requireLogs = false }: { requireLogs?: boolean } = {},
): Promise<LogInput[]> {
  if (paths.length === 0) throw new LogInputError('name at least one log file or folder');
  const seen = new Set<string>();
  const out: LogInput[] = [];
  for (const p of paths) {
    let isDir: boolean;
    try {
      isDir = (await stat(p)).isDirectory();
    } catch (err) {
      const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
      throw new LogInputError(missing ? `${p}: no such file or folder` : `${p}: cannot read it: ${fileErrorText(err)}`);
    }
    const found: string[] = [];
    if (isDir) await walk(p, found);
    else found.push(p);
    if (isDir && requireLogs && found.length === 0) throw new LogInputError(noLogsIn(p));
    for (const f of found) {
      const key = resolve(f);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ path: f, explicit: !isDir });
    }
  }
  return out;
}
