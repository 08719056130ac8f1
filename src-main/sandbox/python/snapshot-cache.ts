// The cache folder's Pyodide snapshots. Each is named for the Pyodide version, `runtime.py`
// and the isolate code it was made with, so every change of those adds a new ~40 MB file;
// without pruning the folder only grew. After a snapshot is saved, the newest few are kept
// (several checkouts of different versions may share one cache), and leftovers of writes
// that never finished are removed once they are old enough not to be in progress.
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Snapshots kept, the newest by modification time (the one just saved among them). */
const SNAPSHOTS_KEPT = 3;
/** A temporary file this old is an abandoned write. */
const STALE_TMP_MS = 60 * 60 * 1000;

const SNAPSHOT = /^pyodide-.+\.snapshot$/;
const TEMPORARY = /^pyodide-.+\.snapshot\.\d+\.tmp$/;

/** Removes all but the `keep` newest snapshots in `dir`, and abandoned temporary files; never throws. */
export async function pruneSnapshots(dir: string, keep = SNAPSHOTS_KEPT, now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return removed;
  }
  const snapshots: { name: string; mtimeMs: number }[] = [];
  for (const name of names) {
    const isSnapshot = SNAPSHOT.test(name);
    if (!isSnapshot && !TEMPORARY.test(name)) continue;
    try {
      const { mtimeMs } = await stat(join(dir, name));
      if (isSnapshot) snapshots.push({ name, mtimeMs });
      else if (now - mtimeMs > STALE_TMP_MS) removed.push(name);
    } catch {
      // gone meanwhile
    }
  }
  snapshots.sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const s of snapshots.slice(keep)) removed.push(s.name);
  for (const name of removed) await rm(join(dir, name), { force: true }).catch(() => undefined);
  return removed;
}

/** Saves a snapshot at `path` (written whole under a temporary name, then renamed), then prunes its folder. */
export async function writeSnapshot(path: string, image: Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, image);
  await rename(tmp, path);
  await pruneSnapshots(dirname(path));
}

/** Whether `name` is a snapshot's file name (what a sandboxed child may ask its parent to save). */
export function isSnapshotName(name: string): boolean {
  return SNAPSHOT.test(name) && !name.includes('/');
}
