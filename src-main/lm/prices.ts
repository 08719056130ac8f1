// Default USD prices per million tokens, used when an endpoint does not report cost itself.
// Edit freely: keys match a model name exactly or as its longest prefix (see priceFor), so
// `gpt-4o` also prices `gpt-4o-2024-08-06`, and `gpt-4o-mini` wins over `gpt-4o` for its own
// names. Prices drift; treat these as estimates.
import type { Price, PriceTable } from './types.ts';

// Cached input (`cachedInputPerMTok`): input tokens the provider served from its prompt cache,
// at the rate each provider publishes for a cache hit:
// - OpenAI (openai.com/api/pricing, "Cached input"): a tenth of input for GPT-5, a quarter for
//   GPT-4.1, o3 and o4-mini, half for GPT-4o;
// - Anthropic (anthropic.com/pricing, "Cache hits & refreshes"): a tenth of base input (cache
//   writes, 1.25x, are not reported through the OpenAI-compatible endpoint);
// - Google (ai.google.dev/gemini-api/docs/pricing, "Context caching price", prompts of up to
//   200k tokens): a tenth of input.
export const DEFAULT_PRICES: PriceTable = {
  'gpt-5': { inputPerMTok: 1.25, cachedInputPerMTok: 0.125, outputPerMTok: 10 },
  'gpt-5-mini': { inputPerMTok: 0.25, cachedInputPerMTok: 0.025, outputPerMTok: 2 },
  'gpt-5-nano': { inputPerMTok: 0.05, cachedInputPerMTok: 0.005, outputPerMTok: 0.4 },
  'gpt-4.1': { inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 },
  'gpt-4.1-mini': { inputPerMTok: 0.4, cachedInputPerMTok: 0.1, outputPerMTok: 1.6 },
  'gpt-4.1-nano': { inputPerMTok: 0.1, cachedInputPerMTok: 0.025, outputPerMTok: 0.4 },
  'gpt-4o': { inputPerMTok: 2.5, cachedInputPerMTok: 1.25, outputPerMTok: 10 },
  'gpt-4o-mini': { inputPerMTok: 0.15, cachedInputPerMTok: 0.075, outputPerMTok: 0.6 },
  o3: { inputPerMTok: 2, cachedInputPerMTok: 0.5, outputPerMTok: 8 },
  'o4-mini': { inputPerMTok: 1.1, cachedInputPerMTok: 0.275, outputPerMTok: 4.4 },
  'claude-opus-4': { inputPerMTok: 15, cachedInputPerMTok: 1.5, outputPerMTok: 75 },
  'claude-sonnet-4': { inputPerMTok: 3, cachedInputPerMTok: 0.3, outputPerMTok: 15 },
  'claude-3-5-haiku': { inputPerMTok: 0.8, cachedInputPerMTok: 0.08, outputPerMTok: 4 },
  'gemini-2.5-pro': { inputPerMTok: 1.25, cachedInputPerMTok: 0.125, outputPerMTok: 10 },
  'gemini-2.5-flash': { inputPerMTok: 0.3, cachedInputPerMTok: 0.03, outputPerMTok: 2.5 },
  // The built-in mock server: small but non-zero so demos show a cost column (and what caching saves).
  'mock-': { inputPerMTok: 0.5, cachedInputPerMTok: 0.05, outputPerMTok: 1.5 },
};

/**
 * The price of `model`: an exact key, else the longest key that is a prefix of the name.
 * A provider prefix (`openai/gpt-4o`, as OpenRouter spells it) is tried without it too.
 */
export function priceFor(model: string, table: PriceTable): Price | null {
  const direct = lookup(model, table);
  if (direct) return direct;
  const slash = model.lastIndexOf('/');
  return slash >= 0 ? lookup(model.slice(slash + 1), table) : null;
}

function lookup(model: string, table: PriceTable): Price | null {
  const exact = Object.hasOwn(table, model) ? table[model] : undefined;
  if (exact) return exact;
  let best: string | null = null;
  for (const key of Object.keys(table)) {
    if (model.startsWith(key) && (best === null || key.length > best.length)) best = key;
  }
  return best === null ? null : (table[best] ?? null);
}

/**
 * USD for one call at `price`: cached input at the cached rate (or the input rate when the
 * table has none), the rest of the input at the input rate, all output (reasoning included)
 * at the output rate.
 */
export function costFromPrice(price: Price, inputTokens: number, outputTokens: number, cachedInputTokens = 0): number {
  const cached = Math.min(Math.max(0, cachedInputTokens), inputTokens);
  const cachedRate = price.cachedInputPerMTok ?? price.inputPerMTok;
  return ((inputTokens - cached) * price.inputPerMTok + cached * cachedRate + outputTokens * price.outputPerMTok) / 1_000_000;
}
