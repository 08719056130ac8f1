// Where two sessions' root runs first part (the compare view).
import { blocksOf, type IterationNode, type RunNode, type TrajectoryState } from '../../src-shared/trajectory/index.ts';

function rootRun(state: TrajectoryState): RunNode | null {
  const id = state.roots[0];
  return id ? (state.runs.get(id) ?? null) : null;
}

function codeOf(it: IterationNode): string {
  return blocksOf(it)
    .map((b) => b.start?.code ?? '')
    .join('\n---\n');
}

/** Where two sessions' root runs first part: the iteration, why, and the differing texts side by side. */
export interface Divergence {
  /** 1-based root iteration. */
  iteration: number;
  why: string;
  /** Which text differs; `missing` when one side has no such iteration. */
  what: 'code' | 'reply' | 'output' | 'missing';
  /** Each side's text of that kind; null where the side has no such iteration. */
  a: string | null;
  b: string | null;
  /** 1-based line of the texts where they first differ (1 when a side is missing). */
  line: number;
}

function stdoutOf(it: IterationNode): string {
  return blocksOf(it)
    .map((x) => x.end?.stdout ?? '')
    .join('');
}

/** 1-based number of the first line at which two texts differ. */
export function firstDifferingLine(a: string, b: string): number {
  const la = a.split('\n');
  const lb = b.split('\n');
  let i = 0;
  while (i < la.length && i < lb.length && la[i] === lb[i]) i++;
  return i + 1;
}

/** The first iteration (1-based, of the root runs) where the two sessions' replies or code differ. */
export function firstDivergence(a: TrajectoryState, b: TrajectoryState): Divergence | null {
  const ra = rootRun(a);
  const rb = rootRun(b);
  if (!ra || !rb) return null;
  const n = Math.max(ra.iterations.length, rb.iterations.length);
  for (let i = 0; i < n; i++) {
    const ia = ra.iterations[i];
    const ib = rb.iterations[i];
    if (!ia || !ib)
      return {
        iteration: (ia ?? ib)?.iteration ?? i + 1,
        why: ia ? 'the second session has no such iteration' : 'the first session has no such iteration',
        what: 'missing',
        a: ia ? (ia.reply?.text ?? '') : null,
        b: ib ? (ib.reply?.text ?? '') : null,
        line: 1,
      };
    const pairs = [
      ['code', codeOf(ia), codeOf(ib), 'code differs'],
      ['reply', ia.reply?.text ?? '', ib.reply?.text ?? '', 'reply text differs'],
      ['output', stdoutOf(ia), stdoutOf(ib), 'output differs'],
    ] as const;
    for (const [what, ta, tb, why] of pairs)
      if (ta !== tb) return { iteration: ia.iteration, why, what, a: ta, b: tb, line: firstDifferingLine(ta, tb) };
  }
  return null;
}
