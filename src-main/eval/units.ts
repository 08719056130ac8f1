// The work of an evaluation: every task of the dataset, `repeat` times (one session each),
// optionally cut into shards. A unit is one session; its key names it in results.jsonl.
import { resultKey } from './results.ts';
import type { EvalTask } from './tasks/types.ts';

export interface WorkUnit {
  task: EvalTask;
  /** Which session of the task, from 0. */
  repeat: number;
  key: string;
}

/** `--shard I/N`: the I-th of N disjoint parts (1-based), tasks dealt round-robin in dataset order. */
export interface Shard {
  index: number;
  count: number;
}

export class ShardError extends Error {
  override name = 'ShardError';
}

export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m) throw new ShardError(`--shard must look like I/N (e.g. 1/4), got "${text}"`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index < 1 || index > count) throw new ShardError(`--shard ${text}: I must be between 1 and N, and N at least 1`);
  return { index, count };
}

export function workUnits(tasks: readonly EvalTask[], repeat: number, shard?: Shard): WorkUnit[] {
  const mine = shard === undefined ? tasks : tasks.filter((_, i) => i % shard.count === shard.index - 1);
  const units: WorkUnit[] = [];
  // Repeat-major order: every task's first session before any second one, so a partial run covers the dataset.
  for (let r = 0; r < repeat; r++) for (const task of mine) units.push({ task, repeat: r, key: resultKey(task.id, r) });
  return units;
}

/** The log's file name for a unit (repeats after the first get `.rK`). */
export function logNameFor(unit: { task: { id: string }; repeat: number }): string {
  const base = unit.task.id.replace(/[^\w.-]+/g, '_').slice(0, 120);
  return unit.repeat === 0 ? base : `${base}.r${unit.repeat}`;
}
