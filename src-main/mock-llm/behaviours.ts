// What real endpoints do that a scripted reply does not: a reasoning model's thinking (in
// each of the places servers put it), prefix-cached input, replies cut by the token cap,
// requests refused for their length, slow or oddly chunked streams, and servers that refuse
// `stream_options` or streaming. The server (server.ts) applies these around a policy's reply.
import { createHash } from 'node:crypto';
import { estimateTextTokens, estimateTokens } from '../../src-shared/tokens.ts';
import type { Classified, MockMessage } from './policy.ts';

/**
 * Where the thinking goes: vLLM's and DeepSeek's `reasoning_content`, OpenRouter's
 * `reasoning`, or `<think>…</think>` at the start of the content (a Qwen3-family model
 * served without a reasoning parser).
 */
export type MockReasoning = 'reasoning_content' | 'reasoning' | 'think';
export const MOCK_REASONING_FORMS: readonly MockReasoning[] = ['reasoning_content', 'reasoning', 'think'];

/** How a request longer than the context window is refused: OpenAI's 400 `context_length_exceeded`, or vLLM's. */
export type OverflowStyle = 'openai' | 'vllm';
export const OVERFLOW_STYLES: readonly OverflowStyle[] = ['openai', 'vllm'];

/** What the server refuses: the `stream_options` field (older or strict servers), or streaming itself. */
export type MockRefusal = 'stream_options' | 'stream';
export const MOCK_REFUSALS: readonly MockRefusal[] = ['stream_options', 'stream'];

export interface MockBehaviours {
  reasoning?: MockReasoning | null;
  /** Report `prompt_tokens_details.cached_tokens`: the tokens of the longest message prefix an earlier request sent. */
  cachedTokens?: boolean;
  /** Cut replies longer than this many tokens (4 characters each), with `finish_reason: "length"`. */
  maxReplyTokens?: number | null;
  /** Refuse requests whose prompt has more tokens than this, as `overflowStyle` says. */
  contextWindow?: number | null;
  /** Default 'openai'. */
  overflowStyle?: OverflowStyle;
  /** Characters per streamed content chunk. Default 64. */
  streamChunkChars?: number;
  /** With a seed: chunks of 1..streamChunkChars characters drawn from it (deterministic). */
  streamChunkSeed?: number | null;
  /** Delay between streamed chunks (a slow token stream). Default 0: the stream is written at once. */
  streamChunkMs?: number;
  /** Called once the first content chunk of a stream is written; the rest of the stream waits for it. */
  holdStream?: (requestNumber: number) => Promise<void>;
  refuse?: MockRefusal | null;
  /**
   * Report prompt_tokens as this many times the 4-characters estimate (a tokenizer that
   * counts differently from the client's estimate). Default 1.
   */
  promptTokensScale?: number;
}

/**
 * The thinking of a reasoning model about this request, deterministic. A turn's thinking holds
 * a ```repl block the model decided against: a client that takes it for reply runs it, and its
 * printed marker shows that it did.
 */
export function reasoningFor(c: Classified): string {
  if (c.kind === 'sub') return 'The question is plain: I will answer it directly from the text I was given.';
  if (c.kind !== 'rlm') return `I am asked for ${c.kind === 'final' ? 'a final answer' : 'a summary'}; I will keep what matters.`;
  return [
    `Turn ${c.turn ?? '?'}: let me plan before I write code.`,
    'I could guess without looking:',
    '```repl',
    'print("THOUGHT-ONLY BLOCK RAN")', // print is a function in both REPLs
    '```',
    'No: guessing is wrong here. I will run the step below instead.',
  ].join('\n');
}

/** Where a reply's thinking goes for `form`: the content (think) or a field of its own. */
export function placeReasoning(
  form: MockReasoning | null,
  reasoning: string,
  reply: string,
): { content: string; field: Record<string, string> } {
  if (form === null) return { content: reply, field: {} };
  if (form === 'think') return { content: `<think>\n${reasoning}\n</think>\n\n${reply}`, field: {} };
  return { content: reply, field: { [form]: reasoning } };
}

/** A reply cut to `maxTokens` tokens (4 characters each), or null when it fits. */
export function cutReply(content: string, maxTokens: number | null | undefined): string | null {
  if (maxTokens === null || maxTokens === undefined) return null;
  return estimateTextTokens(content) > maxTokens ? content.slice(0, maxTokens * 4) : null;
}

/**
 * Prefix caching as providers do it: a request's cached input is the longest prefix of its
 * messages an earlier request sent (never the whole request).
 */
export class PrefixCache {
  private readonly seen = new Set<string>();

  /** The cached tokens of this request; remembers its prefixes for later ones. */
  cachedTokens(messages: MockMessage[]): number {
    let hash = '';
    let cached = 0;
    for (let k = 0; k < messages.length; k++) {
      const m = messages[k]!;
      hash = createHash('sha1').update(hash).update(m.role).update('\0').update(m.content).digest('hex');
      if (k < messages.length - 1 && this.seen.has(hash)) cached = estimateTokens(messages.slice(0, k + 1));
      this.seen.add(hash);
    }
    return cached;
  }
}

/** The error body and message a server sends for a prompt of `promptTokens` over `window`. */
export function overflowError(style: OverflowStyle, window: number, promptTokens: number): Record<string, unknown> {
  if (style === 'vllm') {
    // vLLM's OpenAI-compatible server (ErrorResponse): top-level fields, code = the HTTP status.
    return {
      object: 'error',
      message: `This model's maximum context length is ${window} tokens. However, you requested ${promptTokens} tokens (${promptTokens} in the messages, 0 in the completion). Please reduce the length of the messages or completion.`,
      type: 'BadRequestError',
      param: null,
      code: 400,
    };
  }
  return {
    error: {
      message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`,
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
  };
}

/** Chunk sizes for a streamed text: fixed, or drawn from a seed (mulberry32) between 1 and `max`. */
export function chunkSizes(max: number, seed: number | null | undefined): () => number {
  const size = Math.max(1, Math.floor(max));
  if (seed === null || seed === undefined) return () => size;
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const r = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return 1 + Math.floor(r * size);
  };
}

/**
 * What the demo's model does besides its replies: it thinks (in `reasoning_content`, shown
 * collapsed beside each reply) and, at a person's pace (a latency of 100 ms or more, the app's
 * default), streams in small pieces a little apart so the live view has something to show.
 * Faster demos (tests) stream each reply at once.
 */
export function demoBehaviours(latencyMs: number): MockBehaviours {
  return { reasoning: 'reasoning_content', streamChunkChars: 24, streamChunkMs: latencyMs >= 100 ? Math.round(latencyMs / 20) : 0 };
}
