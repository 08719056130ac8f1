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
    expect(contextWindowFor('Qwen/Qwen3-8B')).toBe(128_000);
    expect(contextWindowFor('mock-llm')).toBe(32_000);
    expect(contextWindowFor('something-else')).toBe(128_000);
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
