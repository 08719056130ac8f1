// Context windows in tokens: compaction triggers at a share of the root model's, and the
// sub-LM budgets the prompts quote are sized from the sub-model's. A lookup table, not an API
// call: an exact key wins, else the longest key contained in the model name (so
// `openai/gpt-4o-2024-08-06` finds `gpt-4o`), else a conservative default. Every model the
// reference library's table lists has its figure here; the last block is ours. `--context-window`
// (a profile's `contextWindow`) overrides the table for the root model.

export const DEFAULT_CONTEXT_WINDOW = 128_000;

const CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  // As the reference library's table (rlm/utils/token_utils.py, v0.1.3).
  'gpt-5-nano': 272_000,
  'gpt-5': 272_000,
  'gpt-4o-mini': 128_000,
  'gpt-4o-2024': 128_000,
  'gpt-4o': 128_000,
  'gpt-4-turbo-preview': 128_000,
  'gpt-4-turbo': 128_000,
  'gpt-4-32k': 32_768,
  'gpt-4': 8_192,
  'gpt-3.5-turbo-16k': 16_385,
  'gpt-3.5-turbo': 16_385,
  'o1-mini': 128_000,
  'o1-preview': 128_000,
  o1: 200_000,
  'claude-3-5-sonnet': 200_000,
  'claude-3-5-haiku': 200_000,
  'claude-3-opus': 200_000,
  'claude-3-sonnet': 200_000,
  'claude-3-haiku': 200_000,
  'claude-2.1': 200_000,
  'claude-2': 100_000,
  'gemini-2.5-flash': 1_000_000,
  'gemini-2.5-pro': 1_000_000,
  'gemini-2.0-flash': 1_000_000,
  'gemini-1.5-pro': 1_000_000,
  'gemini-1.5-flash': 1_000_000,
  'gemini-1.0-pro': 30_720,
  'qwen3-max': 256_000,
  'qwen3-72b': 128_000,
  'qwen3-32b': 128_000,
  'qwen3-8b': 32_768,
  qwen3: 128_000,
  'kimi-k2.5': 262_000,
  'kimi-k2-0905': 256_000,
  'kimi-k2-thinking': 256_000,
  'kimi-k2': 128_000,
  kimi: 128_000,
  'glm-4.6': 200_000,
  'glm-4-9b': 1_000_000,
  'glm-4': 128_000,
  glm: 128_000,
  // Ours: families the reference's table does not name (it gives them the default).
  'gpt-4.1': 1_000_000,
  claude: 200_000,
  gemini: 1_000_000,
  'llama-3': 128_000,
  mock: 32_000,
};

export function contextWindowFor(model: string): number {
  const exact = Object.hasOwn(CONTEXT_WINDOWS, model) ? CONTEXT_WINDOWS[model] : undefined;
  if (exact !== undefined) return exact;
  const name = model.toLowerCase();
  let best: string | null = null;
  for (const key of Object.keys(CONTEXT_WINDOWS)) {
    if (name.includes(key.toLowerCase()) && (best === null || key.length > best.length)) best = key;
  }
  return best === null ? DEFAULT_CONTEXT_WINDOW : (CONTEXT_WINDOWS[best] ?? DEFAULT_CONTEXT_WINDOW);
}
