// The response shapes of the endpoint families our users name, as each documents them (checked
// against their reference pages: OpenAI's Chat Completions object and chunk; vLLM's
// OpenAI-compatible server with a reasoning parser; Ollama's OpenAI compatibility; llama.cpp's
// llama-server /v1/chat/completions; OpenRouter's API reference; Anthropic's and Gemini's
// OpenAI SDK compatibility pages). A family turns a reply (and its thinking) into that shape,
// whole or as SSE chunks.

export interface Answer {
  content: string;
  thinking: string;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
}

export interface Family {
  name: string;
  /** A model name of the family (priced by our table when the family's provider is in it). */
  model: string;
  /** Where the family puts a reasoning model's thinking; null: it does not return it. */
  thinking: 'reasoning_content' | 'reasoning' | null;
  /** Reports prompt_tokens_details.cached_tokens. */
  cached: boolean;
  /** Reports completion_tokens_details.reasoning_tokens. */
  reasoningTokens: boolean;
  /** Reports usage.cost (USD) itself. */
  cost: ((a: Answer) => number) | null;
  whole(a: Answer, model: string): Record<string, unknown>;
  /** The SSE body (`data: …` lines, comments included). */
  stream(a: Answer, model: string, includeUsage: boolean): string;
}

const now = 1_765_000_000;
const sse = (x: unknown): string => `data: ${JSON.stringify(x)}\n\n`;
/** Text in pieces of up to 7 characters. */
function pieces(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 7) out.push(text.slice(i, i + 7));
  return out;
}

function openAiUsage(a: Answer): Record<string, unknown> {
  return {
    prompt_tokens: a.promptTokens,
    completion_tokens: a.completionTokens,
    total_tokens: a.promptTokens + a.completionTokens,
    prompt_tokens_details: { cached_tokens: a.cachedTokens, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: a.reasoningTokens,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

const plainUsage = (a: Answer): Record<string, unknown> => ({
  prompt_tokens: a.promptTokens,
  completion_tokens: a.completionTokens,
  total_tokens: a.promptTokens + a.completionTokens,
});

/** Chunks as OpenAI streams them: role, deltas, finish_reason, then a usage chunk with no choices when asked. */
function chunked(
  id: string,
  model: string,
  a: Answer,
  opts: {
    thinkingField: string | null;
    usage: Record<string, unknown> | null;
    /** 'separate': usage in a chunk of its own (`choices: []`); 'last': beside the finish chunk. */
    usageAt: 'separate' | 'last';
    extra?: Record<string, unknown>;
    comment?: string;
  },
): string {
  const base = { id, object: 'chat.completion.chunk', created: now, model, ...opts.extra };
  const out: string[] = [];
  if (opts.comment) out.push(`: ${opts.comment}\n\n`);
  out.push(sse({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }));
  if (opts.thinkingField) {
    for (const p of pieces(a.thinking))
      out.push(sse({ ...base, choices: [{ index: 0, delta: { [opts.thinkingField]: p }, finish_reason: null }] }));
  }
  for (const p of pieces(a.content)) out.push(sse({ ...base, choices: [{ index: 0, delta: { content: p }, finish_reason: null }] }));
  const finish = { index: 0, delta: {}, finish_reason: 'stop' };
  if (opts.usage && opts.usageAt === 'last') out.push(sse({ ...base, choices: [finish], usage: opts.usage }));
  else out.push(sse({ ...base, choices: [finish] }));
  if (opts.usage && opts.usageAt === 'separate') out.push(sse({ ...base, choices: [], usage: opts.usage }));
  out.push('data: [DONE]\n\n');
  return out.join('');
}

export const FAMILIES: Family[] = [
  {
    name: 'OpenAI',
    model: 'gpt-5-mini',
    thinking: null, // Chat Completions returns no reasoning text, only its token count
    cached: true,
    reasoningTokens: true,
    cost: null,
    whole: (a, model) => ({
      id: 'chatcmpl-abc',
      object: 'chat.completion',
      created: now,
      model: `${model}-2025-08-07`,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: a.content, refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: openAiUsage(a),
      service_tier: 'default',
      system_fingerprint: null,
    }),
    stream: (a, model, inc) =>
      chunked('chatcmpl-abc', `${model}-2025-08-07`, a, {
        thinkingField: null,
        usage: inc ? openAiUsage(a) : null,
        usageAt: 'separate',
        extra: { service_tier: 'default', system_fingerprint: null, obfuscation: 'x' },
      }),
  },
  {
    name: 'vLLM',
    model: 'Qwen/Qwen3-8B',
    thinking: 'reasoning_content',
    cached: false,
    reasoningTokens: false,
    cost: null,
    whole: (a, model) => ({
      id: 'chatcmpl-9f1',
      object: 'chat.completion',
      created: now,
      model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', reasoning_content: a.thinking, content: a.content, tool_calls: [] },
          logprobs: null,
          finish_reason: 'stop',
          stop_reason: null,
        },
      ],
      usage: { ...plainUsage(a), prompt_tokens_details: null },
      prompt_logprobs: null,
    }),
    stream: (a, model, inc) =>
      chunked('chatcmpl-9f1', model, a, { thinkingField: 'reasoning_content', usage: inc ? plainUsage(a) : null, usageAt: 'separate' }),
  },
  {
    name: 'Ollama',
    model: 'qwen3:8b',
    thinking: 'reasoning',
    cached: false,
    reasoningTokens: false,
    cost: null,
    whole: (a, model) => ({
      id: 'chatcmpl-123',
      object: 'chat.completion',
      created: now,
      model,
      system_fingerprint: 'fp_ollama',
      choices: [{ index: 0, message: { role: 'assistant', content: a.content, reasoning: a.thinking }, finish_reason: 'stop' }],
      usage: plainUsage(a),
    }),
    stream: (a, model, inc) =>
      chunked('chatcmpl-123', model, a, {
        thinkingField: 'reasoning',
        usage: inc ? plainUsage(a) : null,
        usageAt: 'separate',
        extra: { system_fingerprint: 'fp_ollama' },
      }),
  },
  {
    name: 'llama.cpp server',
    model: 'qwen3-8b-q4_k_m.gguf',
    thinking: 'reasoning_content',
    cached: true,
    reasoningTokens: false,
    cost: null,
    whole: (a, model) => ({
      choices: [{ finish_reason: 'stop', index: 0, message: { role: 'assistant', content: a.content, reasoning_content: a.thinking } }],
      created: now,
      model,
      system_fingerprint: 'b6000-abc',
      object: 'chat.completion',
      usage: { ...plainUsage(a), prompt_tokens_details: { cached_tokens: a.cachedTokens } },
      id: 'chatcmpl-xyz',
      timings: {
        cache_n: a.cachedTokens,
        prompt_n: a.promptTokens - a.cachedTokens,
        predicted_n: a.completionTokens,
        predicted_per_second: 40,
      },
    }),
    // llama-server puts usage and timings beside the last choice.
    stream: (a, model) =>
      chunked('chatcmpl-xyz', model, a, {
        thinkingField: 'reasoning_content',
        usage: { ...plainUsage(a), prompt_tokens_details: { cached_tokens: a.cachedTokens } },
        usageAt: 'last',
        extra: { system_fingerprint: 'b6000-abc' },
      }),
  },
  {
    name: 'OpenRouter',
    model: 'openai/gpt-5-mini',
    thinking: 'reasoning',
    cached: true,
    reasoningTokens: true,
    cost: (a) => (a.promptTokens * 3 + a.completionTokens * 11) / 1e8,
    whole: (a, model) => ({
      id: 'gen-1765000000-abc',
      provider: 'OpenAI',
      model,
      object: 'chat.completion',
      created: now,
      choices: [
        {
          logprobs: null,
          finish_reason: 'stop',
          native_finish_reason: 'completed',
          index: 0,
          message: {
            role: 'assistant',
            content: a.content,
            refusal: null,
            reasoning: a.thinking,
            reasoning_details: [{ type: 'reasoning.summary', summary: a.thinking, format: 'openai-responses-v1', index: 0 }],
          },
        },
      ],
      usage: { ...openAiUsage(a), cost: FAMILIES[4]!.cost!(a), is_byok: false, cost_details: { upstream_inference_cost: null } },
    }),
    // OpenRouter sends keep-alive comments and always ends with a usage chunk.
    stream: (a, model) =>
      chunked('gen-1765000000-abc', model, a, {
        thinkingField: 'reasoning',
        usage: { ...openAiUsage(a), cost: FAMILIES[4]!.cost!(a), is_byok: false },
        usageAt: 'separate',
        extra: { provider: 'OpenAI' },
        comment: 'OPENROUTER PROCESSING',
      }),
  },
  {
    name: "Anthropic's OpenAI-compatible endpoint",
    model: 'claude-sonnet-4-5',
    thinking: null, // "the OpenAI SDK won't return Claude's detailed thought process"
    cached: false, // prompt_tokens_details: "Always empty"
    reasoningTokens: false, // completion_tokens_details: "Always empty"
    cost: null,
    whole: (a, model) => ({
      id: 'msg_01ABC',
      object: 'chat.completion',
      created: now,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: a.content }, finish_reason: 'stop' }],
      usage: plainUsage(a),
    }),
    stream: (a, model, inc) =>
      chunked('msg_01ABC', model, a, { thinkingField: null, usage: inc ? plainUsage(a) : null, usageAt: 'separate' }),
  },
  {
    name: "Gemini's OpenAI-compatible endpoint",
    model: 'gemini-2.5-flash',
    thinking: null,
    cached: true,
    reasoningTokens: true,
    cost: null,
    whole: (a, model) => ({
      choices: [{ finish_reason: 'stop', index: 0, message: { content: a.content, role: 'assistant' } }],
      created: now,
      id: 'aBcD-gemini',
      model,
      object: 'chat.completion',
      usage: openAiUsage(a),
    }),
    // Gemini's compatibility layer sends the usage in the last content chunk.
    stream: (a, model) => chunked('aBcD-gemini', model, a, { thinkingField: null, usage: openAiUsage(a), usageAt: 'last' }),
  },
];
