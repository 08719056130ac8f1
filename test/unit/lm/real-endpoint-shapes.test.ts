// The parts of issue 38 that are pure functions: length refusals in each endpoint's words,
// <think> sections, fences a cut reply left open, and cached input in a price.
import { describe, expect, it } from 'vitest';
import { lengthRefusal } from '../../../src-main/lm/length-refusal.ts';
import { costFromPrice, DEFAULT_PRICES } from '../../../src-main/lm/prices.ts';
import { hasUnclosedReplFence } from '../../../src-main/engine/code-blocks.ts';
import { contentAsSent, splitThink } from '../../../src-shared/think.ts';

describe('length refusals', () => {
  it.each([
    [
      'OpenAI',
      400,
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
      '{"error":{"code":"context_length_exceeded"}}',
      { windowTokens: 128000, requestTokens: 130512 },
    ],
    [
      'vLLM',
      400,
      "This model's maximum context length is 32768 tokens. However, you requested 33000 tokens (32000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
      '',
      { windowTokens: 32768, requestTokens: 32000 },
    ],
    [
      'vLLM (newer)',
      400,
      "This model's maximum context length is 32768 tokens and your request has 40000 input tokens (1000 > 32768 - 40000).",
      '',
      { windowTokens: 32768, requestTokens: 40000 },
    ],
    [
      'OpenRouter',
      400,
      "This endpoint's maximum context length is 200000 tokens. However, you requested about 250000 tokens (249000 of text input, 1000 in the output).",
      '',
      { windowTokens: 200000, requestTokens: 249000 },
    ],
    ['Anthropic', 400, 'prompt is too long: 213000 tokens > 200000 maximum', '', { windowTokens: 200000, requestTokens: 213000 }],
    [
      'Gemini',
      400,
      'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
      '',
      { windowTokens: 1048576, requestTokens: 1200000 },
    ],
    [
      'llama.cpp',
      400,
      'the request exceeds the available context size, try increasing it',
      '{"error":{"code":400,"type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}',
      { windowTokens: 8192, requestTokens: 9000 },
    ],
  ])('%s', (_name, status, message, body, want) => {
    expect(lengthRefusal(status, message, body)).toEqual(want);
  });

  it('is not every 400', () => {
    expect(lengthRefusal(400, 'Invalid value for temperature', '')).toBeNull();
    expect(lengthRefusal(401, 'maximum context length is 5 tokens', '')).toBeNull();
  });
});

describe('<think> sections', () => {
  it('splits the section at the start off the text, and rebuilds the content as sent', () => {
    const content = '<think>\nplan it\n```repl\nx\n```\n</think>\n\nThe reply.';
    expect(splitThink(content)).toEqual({ reasoning: 'plan it\n```repl\nx\n```', text: 'The reply.' });
    expect(contentAsSent('The reply.', { text: 'plan it\n```repl\nx\n```', source: 'think' })).toBe(content);
  });
  it('reads a closing tag with no opening one (a template that opened it) and a section cut before it closed', () => {
    expect(splitThink('thinking\n</think>\nreply')).toEqual({ reasoning: 'thinking', text: 'reply' });
    expect(splitThink('<think>\nhalf a thought')).toEqual({ reasoning: 'half a thought', text: '' });
  });
  it('leaves a reply with no section, or one later in the text, alone', () => {
    expect(splitThink('plain reply')).toBeNull();
    expect(splitThink('reply mentions <think> and </think> tags')).toBeNull();
  });
});

describe('fences a cut reply left open', () => {
  it('is true only when the last ```repl block never closes', () => {
    expect(hasUnclosedReplFence('a\n```repl\nprint(1)\n```\nb\n```repl\nprint(')).toBe(true);
    expect(hasUnclosedReplFence('a\n```repl\nprint(1)\n```\n')).toBe(false);
    expect(hasUnclosedReplFence('a\n```python\nx\n```\n```repl\ny')).toBe(true);
    expect(hasUnclosedReplFence('a\n```python\nx = 1')).toBe(false);
    expect(hasUnclosedReplFence('cut mid-sentence')).toBe(false);
  });
});

describe('cached input in a price', () => {
  it('prices cached tokens at the cached rate: a gpt-5-mini turn whose history was cached', () => {
    const p = DEFAULT_PRICES['gpt-5-mini']!;
    // 6,000 input tokens, 4,800 of them cached, 100 output: $0.0017 without the cache, $0.00062 billed.
    expect(costFromPrice(p, 6000, 100)).toBeCloseTo(0.0017, 12);
    expect(costFromPrice(p, 6000, 100, 4800)).toBeCloseTo((1200 * 0.25 + 4800 * 0.025 + 100 * 2) / 1e6, 12);
    expect(costFromPrice({ inputPerMTok: 1, outputPerMTok: 1 }, 10, 0, 5)).toBeCloseTo(10 / 1e6, 15);
  });
  it('has a cached-input rate for every model in the table', () => {
    for (const [model, price] of Object.entries(DEFAULT_PRICES)) {
      expect(price.cachedInputPerMTok, model).toBeGreaterThan(0);
      expect(price.cachedInputPerMTok!, model).toBeLessThan(price.inputPerMTok);
    }
  });
});
