// A re-execution's comparison, read from its log: `rlm-studio rerun` (or the host) runs every
// recorded block again and writes, on each block.end, the recorded output beside the new
// one and whether they match (`BlockEndEvent.rerun`); the header names the log re-executed.
import type { ComparedOutput, LogHeader, RunId } from '../../src-shared/events.ts';
import { blocksOf, type TrajectoryState } from '../../src-shared/trajectory/index.ts';
import { blockOutputText } from './block-output.ts';

interface RerunBlockRef {
  runId: RunId;
  depth: number;
  iteration: number;
  block: number;
}

export interface RerunSummary {
  /** The log that was re-executed. */
  source: NonNullable<LogHeader['rerunOf']>;
  /** Blocks compared so far (a live re-execution grows). */
  blocks: number;
  same: number;
  different: RerunBlockRef[];
}

/**
 * Null when the session is not a re-execution. Its header says so (`rlm-studio rerun` and the
 * host write `rerunOf` on every re-execution's log), so other logs are not scanned: this runs
 * at every commit, and scanning every block of a big log at each was quadratic over a load.
 */
export function rerunSummary(traj: TrajectoryState): RerunSummary | null {
  const source = traj.header?.rerunOf ?? null;
  if (source === null) return null;
  let blocks = 0;
  let same = 0;
  const different: RerunBlockRef[] = [];
  for (const run of traj.runs.values()) {
    for (const it of run.iterations) {
      for (const b of blocksOf(it)) {
        const r = b.end?.rerun;
        if (!r) continue;
        blocks++;
        if (r.same) same++;
        else different.push({ runId: run.id, depth: run.depth, iteration: it.iteration, block: b.block });
      }
    }
  }
  return { source, blocks, same, different };
}

/** One output as text, in the order the block view shows it (what a diff compares). */
export function comparedText(o: ComparedOutput): string {
  const out = blockOutputText(o, '\n');
  const submitted = o.submitted !== null ? `(submitted the answer: ${o.submitted})` : '';
  return out && submitted ? `${out}\n${submitted}` : out || submitted;
}
