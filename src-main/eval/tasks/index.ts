// The task generators by kind, and parsing of `--sizes`.
import { browsecompTask } from './browsecomp.ts';
import { oolongPairsTask, oolongTask } from './oolong.ts';
import { sniahTask } from './sniah.ts';
import { TASK_KINDS, type GeneratedTask, type TaskKind } from './types.ts';

export * from './types.ts';
export { scoreAnswer } from './scorers.ts';

const GENERATORS: Record<TaskKind, (sizeTokens: number, seed: number) => GeneratedTask> = {
  sniah: sniahTask,
  oolong: oolongTask,
  'oolong-pairs': oolongPairsTask,
  browsecomp: browsecompTask,
};

export function isTaskKind(s: string): s is TaskKind {
  return (TASK_KINDS as readonly string[]).includes(s);
}

export function generateTask(kind: TaskKind, sizeTokens: number, seed: number): GeneratedTask {
  return GENERATORS[kind](sizeTokens, seed);
}

/** The paper's sweep: 2^13 … 2^20 tokens. */
export const PAPER_SIZES = Array.from({ length: 8 }, (_, i) => 2 ** (13 + i));

/** The smallest context `--sizes` accepts, in tokens. */
const MIN_SIZE_TOKENS = 256;

/**
 * The largest, 2^24 tokens (≈ 64 MB of text): a generator builds its context whole in memory
 * (2^24 takes ~20 s and under 1 GB here), and not far above it one context no longer fits in a
 * JavaScript string (2^29 characters); 2^40 ran for minutes and died out of memory.
 */
const MAX_SIZE_TOKENS = 2 ** 24;

const LARGEST = `2^24 tokens (${MAX_SIZE_TOKENS.toLocaleString('en-US')}, ≈ 64 MB of text)`;
const WHY_LARGEST = 'each context is built whole in memory, and one far larger does not fit in a JavaScript string';

/**
 * Sizes in tokens: comma-separated integers, `2^N`, `Nk`/`Nm` (×1024, ×1024²), or a power-of-two
 * range `2^13..2^20`, each from 256 to 2^24 tokens. Throws RangeError naming the bad item.
 */
export function parseSizes(spec: string): number[] {
  const one = (s: string): number => {
    const t = s.trim().toLowerCase();
    let m: RegExpExecArray | null;
    let n: number;
    if ((m = /^2\^(\d+)$/.exec(t))) n = 2 ** Number(m[1]);
    else if ((m = /^(\d+)([km]?)$/.exec(t))) n = Number(m[1]) * (m[2] === 'k' ? 1024 : m[2] === 'm' ? 1024 * 1024 : 1);
    else throw new RangeError(`size "${s}" is not a number, 2^N or Nk/Nm`);
    if (n < MIN_SIZE_TOKENS) throw new RangeError(`size "${s}" must be at least ${MIN_SIZE_TOKENS} tokens`);
    if (n > MAX_SIZE_TOKENS) throw new RangeError(`size "${s}" is larger than the largest eval-gen makes, ${LARGEST}: ${WHY_LARGEST}`);
    return n;
  };
  const out: number[] = [];
  for (const item of spec.split(',').filter((s) => s.trim() !== '')) {
    const range = /^\s*2\^(\d+)\s*\.\.\s*2\^(\d+)\s*$/.exec(item);
    if (range) {
      const lo = Number(range[1]);
      const hi = Number(range[2]);
      if (hi < lo) throw new RangeError(`size range "${item}" is empty`);
      // Checked before the loop: 2^13..2^99999 would otherwise count to 99999 first.
      one(`2^${hi}`);
      for (let e = lo; e <= hi; e++) out.push(one(`2^${e}`));
    } else out.push(one(item));
  }
  if (out.length === 0) throw new RangeError('no sizes given');
  return out;
}
