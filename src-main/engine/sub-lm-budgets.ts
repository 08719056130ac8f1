// How much one sub-LM call and one batch should carry, sized from the sub-model's context
// window (the reference library states fixed figures: ~500K characters a call, ~100K read
// well, ~20 prompts a batch). The system prompt and the metadata message quote these.
import { contextWindowFor } from '../lm/context-windows.ts';

/** The rough characters-per-token rule used for every estimate in the app. */
const CHARS_PER_TOKEN = 4;
/** Share of the window a prompt may fill; the rest is left for the instruction and the reply. */
const PROMPT_SHARE = 0.75;
/** Characters a prompt is read well under, however large the window (the reference's figure). */
const GOOD_CHARS_CEILING = 100_000;
/** Prompts per batched call beyond which a batch rarely pays off (the reference's figure). */
const BATCH_GOOD_SIZE = 20;

export interface SubLmBudgets {
  /** The sub-model's context window, in tokens. */
  windowTokens: number;
  /** Characters one prompt can hold at most. */
  maxChars: number;
  /** Characters one prompt is read most reliably under. */
  goodChars: number;
  /** Prompts per batch worth sending at once. */
  batchSize: number;
  /** What one batch of well-sized prompts covers; a larger workload needs filtering or stages. */
  batchChars: number;
}

const roundDown = (n: number, step: number): number => Math.max(step, Math.floor(n / step) * step);

/** Budgets for a sub-model's window in tokens, or for a model name (looked up in the window table). */
export function subLmBudgets(window: number | string): SubLmBudgets {
  const windowTokens = typeof window === 'number' ? window : contextWindowFor(window);
  if (!Number.isFinite(windowTokens) || windowTokens <= 0)
    throw new Error(`a context window must be a positive number of tokens, got ${windowTokens}`);
  const maxChars = roundDown(windowTokens * CHARS_PER_TOKEN * PROMPT_SHARE, 1_000);
  const goodChars = Math.min(GOOD_CHARS_CEILING, roundDown(maxChars / 2, 1_000));
  return { windowTokens, maxChars, goodChars, batchSize: BATCH_GOOD_SIZE, batchChars: BATCH_GOOD_SIZE * goodChars };
}
