// The sub-calls a run's blocks made in the original log, served again to the same blocks.
// Concurrent and batched calls complete in any order, so a call is matched by the block that
// makes it and its prompt (equal prompts in the order recorded), never by arrival order.
import type { BlockEndEvent } from '../../src-shared/events.ts';
import { blocksOf } from '../../src-shared/trajectory/reducer.ts';
import type { CallNode, RunNode, TrajectoryState } from '../../src-shared/trajectory/types.ts';
import type { CallSite } from '../sandbox/types.ts';
import type { ComparisonTerms } from './compare.ts';

export type CallShape = 'llm' | 'llm_batched' | 'rlm' | 'rlm_batched';

const key = (site: CallSite): string => `${site.iteration}|${site.block}`;

// How the reference library words a failed call it does not log (RLM-SPEC §6.8), most specific first.
const REFERENCE_FAILURE_PREFIXES: Record<CallShape, string[]> = {
  llm: ['Error: LM query failed - ', 'Error: '],
  llm_batched: ['Error: llm() call failed - ', 'Error: '],
  rlm: ['Error: RLM query failed - '],
  rlm_batched: ['Error: RLM query failed - '],
};

export class RecordedCalls {
  private readonly left = new Map<string, CallNode[]>();
  private readonly outputs = new Map<string, string>();
  private readonly recovered = new Map<string, number>();
  private readonly terms: ComparisonTerms;

  constructor(state: TrajectoryState, run: RunNode, terms: ComparisonTerms) {
    this.terms = terms;
    for (const it of run.iterations) {
      for (const b of blocksOf(it)) {
        const k = key({ iteration: b.iteration, block: b.block });
        const calls = b.calls.map((id) => state.calls.get(id)).filter((c): c is CallNode => c !== undefined && c.end !== null);
        this.left.set(k, calls);
        this.outputs.set(k, outputText(b.end));
      }
    }
  }

  /** The recorded call of this block with this prompt: one that spawned a child run, or a plain one. */
  take(site: CallSite, prompt: string, child: boolean): CallNode | null {
    const list = this.left.get(key(site));
    if (!list) return null;
    const i = list.findIndex((c) => c.start.prompt === prompt && (c.start.childRunId !== null) === child);
    return i < 0 ? null : (list.splice(i, 1)[0] ?? null);
  }

  /**
   * What a call the log has no record of returns. The reference logs only successful calls,
   * so such a call failed there; its error text is taken from the block's recorded output
   * when the code printed it, else it says the log does not record why.
   */
  unrecorded(site: CallSite, shape: CallShape): string {
    if (this.terms === 'native') return 'Error: no result is recorded for this call in the log (the original block did not make it)';
    const k = key(site);
    const text = this.outputs.get(k) ?? '';
    const prefixes = REFERENCE_FAILURE_PREFIXES[shape];
    const found: string[] = [];
    for (const prefix of prefixes) {
      const re = new RegExp(`${escapeRegExp(prefix)}[^\\n'"\\\\]*`, 'g');
      for (const m of text.matchAll(re)) found.push(m[0]);
      if (found.length > 0) break;
    }
    const n = this.recovered.get(k) ?? 0;
    this.recovered.set(k, n + 1);
    return found[Math.min(n, found.length - 1)] ?? `${prefixes[0]}(the log does not record why this call failed)`;
  }
}

function outputText(end: BlockEndEvent | null): string {
  return end === null ? '' : `${end.stdout}\n${end.stderr}`;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
