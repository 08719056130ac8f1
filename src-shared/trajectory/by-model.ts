// Usage per model name: what `run --json`, `stats --json`, the app's totals, the evaluation
// summary and the reference-format export report beside the totals. Keyed by the model a call
// asked for (the run's model for its turns, the sub-call's model for plain calls), as the
// reference library keys its `model_usage_summaries`.
import type { Usage } from '../events.ts';

interface ModelUsage {
  inputTokens: number;
  outputTokens: number;
  calls: number;
  /** Null when no call of this model had a known cost. */
  costUsd: number | null;
  /** Of `inputTokens`, served from the provider's prompt cache; absent when none. */
  cachedInputTokens?: number | undefined;
  /** Of `outputTokens`, the model's thinking; absent when none. */
  reasoningTokens?: number | undefined;
}

/** Model names are data: entries are own properties, even a model called `__proto__`. */
export type UsageByModel = Record<string, ModelUsage>;

export function addModelUsage(into: UsageByModel, model: string, u: Usage, calls = 1): void {
  let m = Object.hasOwn(into, model) ? into[model] : undefined;
  if (!m) {
    m = { inputTokens: 0, outputTokens: 0, calls: 0, costUsd: null };
    Object.defineProperty(into, model, { value: m, enumerable: true, writable: true, configurable: true });
  }
  m.inputTokens += u.inputTokens;
  m.outputTokens += u.outputTokens;
  m.calls += calls;
  if (u.costUsd !== null) m.costUsd = (m.costUsd ?? 0) + u.costUsd;
  if (u.cachedInputTokens) m.cachedInputTokens = (m.cachedInputTokens ?? 0) + u.cachedInputTokens;
  if (u.reasoningTokens) m.reasoningTokens = (m.reasoningTokens ?? 0) + u.reasoningTokens;
}

/** Adds every model of `from` into `into`; returns `into`. */
export function addByModel(into: UsageByModel, from: UsageByModel): UsageByModel {
  for (const [model, u] of Object.entries(from)) addModelUsage(into, model, u, u.calls);
  return into;
}

/** A copy with costs rounded (sums of float prices drift in the last digits). */
export function roundedByModel(from: UsageByModel, digits = 9): UsageByModel {
  const f = 10 ** digits;
  const out: UsageByModel = {};
  for (const [model, m] of Object.entries(from)) {
    addModelUsage(out, model, { ...m, costUsd: m.costUsd === null ? null : Math.round(m.costUsd * f) / f }, m.calls);
  }
  return out;
}
