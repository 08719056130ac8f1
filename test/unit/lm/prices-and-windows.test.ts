import { describe, expect, it } from 'vitest';
import { contextWindowFor } from '../../../src-main/lm/context-windows.ts';
import { costFromPrice, DEFAULT_PRICES, priceFor } from '../../../src-main/lm/prices.ts';
import { isAbortError, LmAbortError } from '../../../src-main/lm/openai-client.ts';

describe('priceFor', () => {
  it('matches exactly, else by the longest prefix, also after a provider prefix', () => {
    expect(priceFor('gpt-4o', DEFAULT_PRICES)).toBe(DEFAULT_PRICES['gpt-4o']);
    expect(priceFor('gpt-4o-mini-2024-07-18', DEFAULT_PRICES)).toBe(DEFAULT_PRICES['gpt-4o-mini']);
    expect(priceFor('gpt-4o-2024-08-06', DEFAULT_PRICES)).toBe(DEFAULT_PRICES['gpt-4o']);
    expect(priceFor('openai/gpt-4.1-mini', DEFAULT_PRICES)).toBe(DEFAULT_PRICES['gpt-4.1-mini']);
    expect(priceFor('llama3:8b', DEFAULT_PRICES)).toBeNull();
  });

  it('prices mock models above zero', () => {
    const p = priceFor('mock-llm', DEFAULT_PRICES);
    expect(p).not.toBeNull();
    expect(costFromPrice(p!, 1000, 1000)).toBeGreaterThan(0);
  });
});

describe('contextWindowFor', () => {
  it('uses an exact key, else the longest contained key, else 128k', () => {
    expect(contextWindowFor('gpt-5')).toBe(272_000);
    expect(contextWindowFor('gpt-5-mini')).toBe(272_000);
    expect(contextWindowFor('openai/gpt-4.1-mini')).toBe(1_000_000);
    expect(contextWindowFor('gpt-4o-2024-08-06')).toBe(128_000);
    expect(contextWindowFor('anthropic/claude-sonnet-4')).toBe(200_000);
    expect(contextWindowFor('gemini-2.5-flash')).toBe(1_000_000);
    expect(contextWindowFor('Qwen/Qwen3-8B')).toBe(32_768);
    expect(contextWindowFor('mock-llm')).toBe(32_000);
    expect(contextWindowFor('something-else')).toBe(128_000);
  });

  it("gives every model the reference library's table lists its figure", () => {
    const reference: Record<string, number> = {
      'gpt-4': 8_192,
      'gpt-4-0613': 8_192,
      'gpt-4-32k': 32_768,
      'gpt-4-turbo': 128_000,
      'gpt-3.5-turbo': 16_385,
      'o1-mini': 128_000,
      o1: 200_000,
      'claude-2': 100_000,
      'claude-2.1': 200_000,
      'gemini-1.0-pro': 30_720,
      'qwen3-8b': 32_768,
      'qwen3-max': 256_000,
      'kimi-k2.5': 262_000,
      'kimi-k2': 128_000,
      'glm-4.6': 200_000,
      'glm-4-9b': 1_000_000,
    };
    for (const [model, window] of Object.entries(reference)) expect([model, contextWindowFor(model)]).toEqual([model, window]);
  });
});

describe('isAbortError', () => {
  it('recognises ours and DOM-style aborts, not other errors', () => {
    expect(isAbortError(new LmAbortError('x'))).toBe(true);
    expect(isAbortError(new DOMException('x', 'AbortError'))).toBe(true);
    expect(isAbortError(new Error('x'))).toBe(false);
    expect(isAbortError('AbortError')).toBe(false);
  });
});
