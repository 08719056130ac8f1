// Spending of one run and everything below it. Every model call is added exactly once, to
// the run that made it; the sum flows up to every ancestor so each run's limits see its
// whole subtree.
import type { Usage } from '../../src-shared/events.ts';
import { addModelUsage, roundedByModel, type UsageByModel } from '../../src-shared/trajectory/by-model.ts';

export interface SpendTotals {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** True once any call had a known cost; a conversation whose cost is unknown reports null. */
  costKnown: boolean;
  calls: number;
  cachedInputTokens: number;
  reasoningTokens: number;
}

export class UsageLedger {
  readonly totals: SpendTotals = {
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    costKnown: false,
    calls: 0,
    cachedInputTokens: 0,
    reasoningTokens: 0,
  };
  private readonly parent: UsageLedger | null;
  private readonly models: UsageByModel = {};

  constructor(parent: UsageLedger | null = null) {
    this.parent = parent;
  }

  /** This ledger and the ones it rolls up into, nearest first. */
  private *selfAndAncestors(): Generator<UsageLedger> {
    yield this;
    if (this.parent) yield* this.parent.selfAndAncestors();
  }

  /** One model call of `model` (the name the call asked for). */
  add(usage: Usage, model: string): void {
    for (const l of this.selfAndAncestors()) {
      addModelUsage(l.models, model, usage);
      l.totals.inputTokens += usage.inputTokens;
      l.totals.outputTokens += usage.outputTokens;
      l.totals.calls += 1;
      l.totals.cachedInputTokens += usage.cachedInputTokens ?? 0;
      l.totals.reasoningTokens += usage.reasoningTokens ?? 0;
      if (usage.costUsd !== null) {
        l.totals.costUsd += usage.costUsd;
        l.totals.costKnown = true;
      }
    }
  }

  get tokens(): number {
    return this.totals.inputTokens + this.totals.outputTokens;
  }

  summary(): Usage & { calls: number } {
    const t = this.totals;
    return {
      inputTokens: t.inputTokens,
      outputTokens: t.outputTokens,
      costUsd: t.costKnown ? roundUsd(t.costUsd) : null,
      calls: t.calls,
      ...(t.cachedInputTokens > 0 ? { cachedInputTokens: t.cachedInputTokens } : {}),
      ...(t.reasoningTokens > 0 ? { reasoningTokens: t.reasoningTokens } : {}),
    };
  }

  /** The same totals per model name. */
  byModel(): UsageByModel {
    return roundedByModel(this.models);
  }
}

export function roundUsd(x: number): number {
  return Math.round(x * 1e9) / 1e9;
}
