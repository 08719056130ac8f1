// `sweep.open`: a sweep folder's figures (the same as `rlm-studio sweep-summary DIR --json`) and
// each configuration's sessions, so the app can pair any two configurations as the CLI does.
import { basename } from 'node:path';
import type { SweepOverview } from '../../src-shared/analysis/sweep.ts';
import { readSweepDir, SweepDirError } from '../eval/sweep/sweep-dir.ts';
import { CommandError } from './command-error.ts';

export function openSweep(path: string): SweepOverview {
  try {
    const read = readSweepDir(path);
    return {
      dir: read.dir,
      name: basename(read.dir),
      dataset: read.manifest.dataset,
      summary: read.summary,
      sessions: Object.fromEntries(read.inputs.map((i) => [i.id, [...i.sessions]])),
      problems: read.problems,
    };
  } catch (err) {
    if (err instanceof SweepDirError) throw new CommandError(err.code, err.message);
    throw err;
  }
}
