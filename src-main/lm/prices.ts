// Default USD prices per million tokens, used when an endpoint does not report cost itself.
// Edit freely: keys match a model name exactly or as its longest prefix (see priceFor), so
// `gpt-4o` also prices `gpt-4o-2024-08-06`, and `gpt-4o-mini` wins over `gpt-4o` for its own
// names. Prices drift; treat these as estimates.
import type { Price, PriceTable } from './types.ts';

export const DEFAULT_PRICES: PriceTable = {
  'gpt-5': { inputPerMTok: 1.25, outputPerMTok: 10 },
  'gpt-5-mini': { inputPerMTok: 0.25, outputPerMTok: 2 },
  'gpt-5-nano': { inputPerMTok: 0.05, outputPerMTok: 0.4 },
  'gpt-4.1': { inputPerMTok: 2, outputPerMTok: 8 },
  'gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 },
  'gpt-4.1-nano': { inputPerMTok: 0.1, outputPerMTok: 0.4 },
  'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 },
  'gpt-4o-mini': { inputPerMTok: 0.15, outputPerMTok: 0.6 },
  o3: { inputPerMTok: 2, outputPerMTok: 8 },
  'o4-mini': { inputPerMTok: 1.1, outputPerMTok: 4.4 },
  'claude-opus-4': { inputPerMTok: 15, outputPerMTok: 75 },
  'claude-sonnet-4': { inputPerMTok: 3, outputPerMTok: 15 },
  'claude-3-5-haiku': { inputPerMTok: 0.8, outputPerMTok: 4 },
  'gemini-2.5-pro': { inputPerMTok: 1.25, outputPerMTok: 10 },
  'gemini-2.5-flash': { inputPerMTok: 0.3, outputPerMTok: 2.5 },
  // The built-in mock server: small but non-zero so demos show a cost column.
  'mock-': { inputPerMTok: 0.5, outputPerMTok: 1.5 },
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

/** USD for one call at `price`. */
export function costFromPrice(price: Price, inputTokens: number, outputTokens: number): number {
  return (inputTokens * price.inputPerMTok + outputTokens * price.outputPerMTok) / 1_000_000;
}
