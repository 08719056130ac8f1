// Context windows in tokens, for deciding when to compact. A lookup table, not an API call:
// an exact key wins, else the longest key contained in the model name (so
// `openai/gpt-4o-2024-08-06` finds `gpt-4o`), else a conservative default.

export const DEFAULT_CONTEXT_WINDOW = 128_000;

const CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  'gpt-5': 272_000,
  'gpt-4o': 128_000,
  'gpt-4o-mini': 128_000,
  'gpt-4.1': 1_000_000,
  'gpt-4-turbo': 128_000,
  claude: 200_000,
  gemini: 1_000_000,
  qwen3: 128_000,
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
