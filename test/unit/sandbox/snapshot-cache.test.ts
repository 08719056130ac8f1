// The Pyodide snapshot folder keeps the newest snapshots and drops abandoned temporary files.
import { mkdtempSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pruneSnapshots } from '../../../src-main/sandbox/python/snapshot-cache.ts';

describe('pruneSnapshots', () => {
  it('keeps the three newest snapshots, stale temporaries go, everything else stays', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rlm-snapshots-'));
    const now = Date.now();
    const put = (name: string, ageMin: number): void => {
      const path = join(dir, name);
      writeFileSync(path, 'x');
      const t = (now - ageMin * 60_000) / 1000;
      utimesSync(path, t, t);
    };
    put('pyodide-0.27.0-aaaa.snapshot', 500);
    put('pyodide-0.27.0-bbbb.snapshot', 400);
    put('pyodide-0.28.0-cccc.snapshot', 30);
    put('pyodide-0.28.0-dddd.snapshot', 20);
    put('pyodide-0.28.0-eeee.snapshot', 0);
    put('pyodide-0.28.0-eeee.snapshot.123.tmp', 120);
    put('pyodide-0.28.0-ffff.snapshot.456.tmp', 1);
    put('notes.txt', 900);
    const removed = await pruneSnapshots(dir, 3, now);
    expect(removed.sort()).toEqual([
      'pyodide-0.27.0-aaaa.snapshot',
      'pyodide-0.27.0-bbbb.snapshot',
      'pyodide-0.28.0-eeee.snapshot.123.tmp',
    ]);
    expect(readdirSync(dir).sort()).toEqual([
      'notes.txt',
      'pyodide-0.28.0-cccc.snapshot',
      'pyodide-0.28.0-dddd.snapshot',
      'pyodide-0.28.0-eeee.snapshot',
      'pyodide-0.28.0-ffff.snapshot.456.tmp',
    ]);
  });

  it('a missing folder is not an error', async () => {
    expect(await pruneSnapshots(join(tmpdir(), 'rlm-no-such-folder', 'x'))).toEqual([]);
  });
});
