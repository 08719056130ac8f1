// An LmClient for any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp,
// LM Studio, OpenRouter, our mock-llm), through the official `openai` SDK. The SDK owns
// retries (429, 408, 409, 5xx, timeouts, connection errors; exponential backoff, honouring
// Retry-After) and the per-attempt timeout; this file owns usage, cost and error wording.
import { subscribe } from 'node:diagnostics_channel';
import type { OpenAI } from 'openai';
import type {
  ChatCompletionCreateParamsBase,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { blockedPortText, fetchBlockedPort } from '../../src-shared/endpoint-url.ts';
import type { ChatMessage, ReasoningSource, Usage } from '../../src-shared/events.ts';
import { estimateTextTokens, estimateTokens } from '../../src-shared/tokens.ts';
import { markPhase } from '../../src-shared/phase-timing.ts';
import { httpParserSdkLoaded } from './http-parser-tiering.ts';
import { costFromPrice, DEFAULT_PRICES, priceFor } from './prices.ts';
import { lengthRefusal, type LengthRefusal } from './length-refusal.ts';
import type { CompletionRequest, CompletionResult, LmClient, PriceTable } from './types.ts';

/** Sampling arguments sent with every request (temperature, max_tokens, seed…). */
export type SamplingArgs = Partial<Omit<ChatCompletionCreateParamsBase, 'model' | 'messages' | 'stream' | 'stream_options'>>;

export interface OpenAiClientOptions {
  baseUrl: string;
  /** Local servers ignore it, but the SDK insists on one; a placeholder is used when absent. */
  apiKey?: string;
  /** Per attempt. Default 300 s, as in the reference client. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 4. */
  maxRetries?: number;
  /** Used when the endpoint does not report cost. Default: DEFAULT_PRICES. */
  priceTable?: PriceTable;
  sampling?: SamplingArgs;
  /** Vendor-specific body fields the SDK types do not know (vLLM `top_k`, OpenRouter `usage`…). */
  extraBody?: Record<string, unknown>;
  /**
   * Stream the reply (SSE), reporting pieces to `onDelta` as they come; usage comes from the
   * final chunk. Default true. An endpoint that refuses `stream_options` is asked again
   * without it, one that refuses streaming without streaming, and the client remembers.
   */
  stream?: boolean;
  headers?: Record<string, string>;
  /** Replaces the SDK's fetch (every attempt, retries included, goes through it): a shared rate gate. */
  fetch?: typeof fetch;
}

type Sdk = typeof import('openai');

// `onSent` hints: the SDK's fetch is Node's undici, which reports each request body it has
// written. Requests are not matched to calls (a hint may come early, for another request of
// the process); a hint is dropped when its call ends.
const sentWaiters = new Set<() => void>();
let watchingSends = false;
function whenSent(fn: () => void): () => void {
  if (!watchingSends) {
    watchingSends = true;
    subscribe('undici:request:bodySent', () => {
      const fns = [...sentWaiters];
      sentWaiters.clear();
      for (const f of fns) f();
    });
  }
  sentWaiters.add(fn);
  return () => sentWaiters.delete(fn);
}

// The SDK costs ~0.15 s to load (it loads every API resource and Node's fetch). It is loaded
// without blocking whoever imports this module, at the next turn of the event loop: a
// whole-process `run` has started reading its context file by then, and the first call awaits
// it. A dynamic `import` so that the bundled command line (cli-build.ts) carries the SDK in one
// chunk of its own, read as one file instead of ~450 modules resolved one by one; only this
// file uses the SDK, so there is one copy of its classes.
let sdkModule: Sdk | null = null;
const sdkReady: Promise<Sdk> = new Promise<Sdk>((resolve, reject) => {
  setImmediate(() => {
    import('openai').then((m) => {
      markPhase('openai SDK loaded');
      httpParserSdkLoaded();
      resolve((sdkModule = m));
    }, reject);
  });
});
sdkReady.catch(() => undefined); // a failed import is reported by the first call that needs it

const DEFAULT_TIMEOUT_MS = 300_000;
const DEFAULT_MAX_RETRIES = 4;
/** Marks each attempt with its call, so the SDK's retries can be counted; removed before sending. */
const CALL_HEADER = 'x-rlm-studio-call';

/** A failed call to the endpoint, with the endpoint and the problem in the message. */
export class LmEndpointError extends Error {
  override name = 'LmEndpointError';
  readonly endpoint: string;
  /** HTTP status, or null when no response arrived (unreachable, timed out, bad body). */
  readonly status: number | null;
  /** Set when the endpoint refused the request for its length (context window exceeded). */
  readonly lengthRefusal: LengthRefusal | null;
  constructor(
    endpoint: string,
    status: number | null,
    message: string,
    options?: { cause?: unknown; lengthRefusal?: LengthRefusal | null },
  ) {
    super(message, options);
    this.endpoint = endpoint;
    this.status = status;
    this.lengthRefusal = options?.lengthRefusal ?? null;
  }
}

/** The caller aborted the call through its signal. */
export class LmAbortError extends Error {
  override name = 'AbortError';
}

/** True for any abort: ours, the SDK's, or a DOM/undici AbortError. */
export function isAbortError(err: unknown): boolean {
  // Without the SDK loaded, no error can be one of its classes.
  return (
    err instanceof LmAbortError ||
    (sdkModule !== null && err instanceof sdkModule.APIUserAbortError) ||
    (err instanceof Error && err.name === 'AbortError')
  );
}

export class OpenAiCompatibleClient implements LmClient {
  readonly baseUrl: string;
  private sdkClient: OpenAI | null = null;
  private readonly sdkOptions: ConstructorParameters<typeof OpenAI>[0];
  private readonly timeoutMs: number;
  private readonly priceTable: PriceTable;
  private readonly sampling: SamplingArgs;
  private readonly extraBody: Record<string, unknown>;
  /** 'full': stream with `stream_options.include_usage`; 'bare': stream without it; 'off': one JSON reply. */
  private streamMode: 'full' | 'bare' | 'off';
  /** The body of each call's last refused request, read before the SDK drops what it does not know (vLLM's top-level errors). */
  private readonly errorBodies = new Map<string, string>();
  /** A port Node's fetch refuses: every call fails at once, naming it, instead of after the SDK's retries. */
  private readonly blockedPort: number | null;
  /** Requests sent so far for each call in flight (the SDK retries inside one `create`). */
  private readonly attempts = new Map<string, number>();
  private callSeq = 0;

  get requestFields(): Readonly<Record<string, unknown>> {
    return { ...this.sampling, ...this.extraBody };
  }

  constructor(opts: OpenAiClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.priceTable = opts.priceTable ?? DEFAULT_PRICES;
    this.sampling = opts.sampling ?? {};
    this.extraBody = opts.extraBody ?? {};
    this.streamMode = (opts.stream ?? true) ? 'full' : 'off';
    this.blockedPort = opts.fetch || !URL.canParse(this.baseUrl) ? null : fetchBlockedPort(new URL(this.baseUrl));
    this.sdkOptions = {
      baseURL: this.baseUrl,
      apiKey: opts.apiKey || 'not-needed',
      timeout: this.timeoutMs,
      maxRetries: opts.maxRetries ?? DEFAULT_MAX_RETRIES,
      // Explicit nulls keep OPENAI_ORG_ID / OPENAI_PROJECT_ID out of calls to third-party endpoints.
      organization: null,
      project: null,
      ...(opts.headers ? { defaultHeaders: opts.headers } : {}),
      fetch: this.countingFetch(opts.fetch),
    };
  }

  /** Every attempt goes through here: counted for its call, then sent without the marker. */
  private countingFetch(inner: typeof fetch | undefined): typeof fetch {
    return async (input, init) => {
      const headers = new Headers(init?.headers);
      const call = headers.get(CALL_HEADER);
      if (call !== null) {
        headers.delete(CALL_HEADER);
        if (this.attempts.has(call)) this.attempts.set(call, this.attempts.get(call)! + 1);
      }
      markPhase(`request ${call ?? '?'} to the endpoint`);
      if (this.streamMode !== 'off' && sdkModule !== null) warmStreamReadingOnceSent(sdkModule);
      const res = await (inner ?? fetch)(input, { ...init, headers });
      markPhase(`request ${call ?? '?'} answered (headers)`);
      if (!res.ok && call !== null && this.attempts.has(call)) {
        this.errorBodies.set(
          call,
          await res
            .clone()
            .text()
            .catch(() => ''),
        );
      }
      return res;
    };
  }

  private async sdk(): Promise<OpenAI> {
    this.sdkClient ??= new (sdkModule ?? (await sdkReady)).OpenAI(this.sdkOptions);
    return this.sdkClient;
  }

  async complete(req: CompletionRequest): Promise<CompletionResult> {
    const { signal } = req;
    if (signal?.aborted) throw new LmAbortError(`LM call to ${this.baseUrl} was aborted before it started`);
    if (this.blockedPort !== null) {
      throw new LmEndpointError(this.baseUrl, null, `LM endpoint ${this.baseUrl} is unreachable: ${blockedPortText(this.blockedPort)}`);
    }
    const started = performance.now();
    const call = String(++this.callSeq);
    this.attempts.set(call, 0);
    let onSent = req.onSent ?? null;
    const forget = onSent
      ? whenSent(() => {
          const f = onSent;
          onSent = null;
          f?.();
        })
      : null;
    try {
      const reply = await this.completeAnyMode(req, call);
      const retries = Math.max(0, (this.attempts.get(call) ?? 0) - 1);
      return {
        text: reply.text,
        model: reply.model,
        usage: reply.usage,
        latencyMs: performance.now() - started,
        promptTokensReported: reply.promptTokensReported,
        ...(retries > 0 ? { retries } : {}),
        ...(reply.reasoning ? { reasoning: reply.reasoning } : {}),
        ...(reply.finishReason ? { finishReason: reply.finishReason } : {}),
      };
    } catch (err) {
      throw withAttempts(this.describe(err, signal, call), this.attempts.get(call) ?? 0);
    } finally {
      forget?.();
      this.attempts.delete(call);
      this.errorBodies.delete(call);
    }
  }

  /** Streams when the endpoint lets it, stepping down (and remembering) when it refuses. */
  private async completeAnyMode(req: CompletionRequest, call: string): Promise<Reply> {
    for (;;) {
      const mode = this.streamMode;
      if (mode === 'off') return this.completeOnce(req, call);
      try {
        return await this.completeStreaming(req, call, mode === 'full');
      } catch (err) {
        const next = this.streamRefused(err, mode, call);
        if (next === null) throw err;
        this.streamMode = next;
        this.attempts.set(call, 0); // the refused request was no retry
      }
    }
  }

  /** The mode to try after an error that says the endpoint refuses this one, else null. */
  private streamRefused(err: unknown, mode: 'full' | 'bare', call: string): 'bare' | 'off' | null {
    if (sdkModule === null || !(err instanceof sdkModule.APIError) || typeof err.status !== 'number') return null;
    if (![400, 404, 415, 422, 501].includes(err.status)) return null;
    const text = `${err.message} ${this.errorBodies.get(call) ?? ''}`;
    if (!/stream/i.test(text)) return null;
    return mode === 'full' && /stream_options|include_usage/i.test(text) ? 'bare' : 'off';
  }

  private requestOptions(req: CompletionRequest, call: string): { signal?: AbortSignal; headers: Record<string, string> } {
    return { ...(req.signal ? { signal: req.signal } : {}), headers: { [CALL_HEADER]: call } };
  }

  /** No `stream` field at all: a whole reply is what an endpoint gives by default, and the reference library's requests carry none (prompt-pack parity). */
  private body(req: CompletionRequest): ChatCompletionCreateParamsNonStreaming {
    const body: ChatCompletionCreateParamsNonStreaming = {
      ...this.sampling,
      model: req.model,
      messages: req.messages.map(toSdkMessage),
    };
    return Object.assign(body, this.extraBody);
  }

  private async completeOnce(req: CompletionRequest, call: string): Promise<Reply> {
    const sdk = await this.sdk();
    const res = await sdk.chat.completions.create(this.body(req), this.requestOptions(req, call));
    const choice = res.choices?.[0];
    if (!choice) throw new LmEndpointError(this.baseUrl, null, `LM endpoint ${this.baseUrl} returned no choices`);
    const text = choice.message?.content ?? '';
    const thinking = reasoningField(choice.message);
    return {
      text,
      model: res.model || req.model,
      ...this.usage(req, text, res.usage),
      reasoning: thinking,
      finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
    };
  }

  private async completeStreaming(req: CompletionRequest, call: string, withUsage: boolean): Promise<Reply> {
    const sdk = await this.sdk();
    const stream = await sdk.chat.completions.create(
      { ...this.body(req), stream: true, ...(withUsage ? { stream_options: { include_usage: true } } : {}) },
      this.requestOptions(req, call),
    );
    const parts: string[] = [];
    const thinking: string[] = [];
    let source: ReasoningSource | null = null;
    let finishReason: string | null = null;
    let model = '';
    let usage: unknown = undefined;
    for await (const chunk of stream) {
      if (chunk.model) model = chunk.model;
      const choice = chunk.choices?.[0];
      const delta = choice?.delta;
      const content = typeof delta?.content === 'string' ? delta.content : '';
      const piece = reasoningField(delta);
      if (content) parts.push(content);
      if (piece) {
        thinking.push(piece.text);
        source ??= piece.source;
      }
      if (content || piece) req.onDelta?.({ content, reasoning: piece?.text ?? '' });
      if (typeof choice?.finish_reason === 'string') finishReason = choice.finish_reason;
      // Most servers send usage in a chunk of its own; some (Ollama, llama.cpp) beside the last choice.
      if (chunk.usage) usage = chunk.usage;
    }
    const text = parts.join('');
    return {
      text,
      model: model || req.model,
      ...this.usage(req, text, usage),
      reasoning: source === null ? null : { text: thinking.join(''), source },
      finishReason,
    };
  }

  /** Tokens from the response, else estimated at 4 characters a token; cost reported, else priced, else null. */
  private usage(req: CompletionRequest, text: string, raw: unknown): { usage: Usage; promptTokensReported: boolean } {
    const u = isRecord(raw) ? raw : null;
    const reportedIn = u ? finiteNumber(u['prompt_tokens']) : null;
    const reportedOut = u ? finiteNumber(u['completion_tokens']) : null;
    const inputTokens = reportedIn ?? estimateTokens(req.messages);
    const outputTokens = reportedOut ?? estimateTextTokens(text);
    const cached = u ? detail(u['prompt_tokens_details'], 'cached_tokens') : 0;
    const reasoningTokens = u ? detail(u['completion_tokens_details'], 'reasoning_tokens') : 0;
    const extra = { ...(cached > 0 ? { cachedInputTokens: cached } : {}), ...(reasoningTokens > 0 ? { reasoningTokens } : {}) };
    const reported = u ? reportedCost(u) : null;
    const price = priceFor(req.model, this.priceTable);
    const costUsd = reported ?? (price ? costFromPrice(price, inputTokens, outputTokens, cached) : null);
    return { usage: { inputTokens, outputTokens, costUsd, ...extra }, promptTokensReported: reportedIn !== null };
  }

  private describe(err: unknown, signal: AbortSignal | undefined, call: string): Error {
    const at = this.baseUrl;
    if (sdkModule === null) {
      // The SDK failed to load: no call was made.
      return new LmEndpointError(
        at,
        null,
        `LM endpoint ${at} failed: the openai SDK did not load: ${err instanceof Error ? err.message : String(err)}`,
        { cause: err },
      );
    }
    const { APIConnectionError, APIConnectionTimeoutError, APIError } = sdkModule;
    if (signal?.aborted || isAbortError(err)) {
      return new LmAbortError(`LM call to ${at} was aborted`, { cause: err });
    }
    if (err instanceof LmEndpointError) return err;
    if (err instanceof APIConnectionTimeoutError) {
      return new LmEndpointError(at, null, `LM endpoint ${at} timed out (no reply within ${this.timeoutMs} ms per attempt)`, {
        cause: err,
      });
    }
    if (err instanceof APIConnectionError) {
      return new LmEndpointError(at, null, `LM endpoint ${at} is unreachable: ${rootCauseMessage(err)}`, { cause: err });
    }
    if (err instanceof APIError && typeof err.status === 'number') {
      const body = this.errorBodies.get(call) ?? '';
      const detail = apiErrorDetail(err, body);
      const hint = err.status === 404 ? ' (check the base URL: most servers expect it to end in /v1, and the model name)' : '';
      return new LmEndpointError(at, err.status, `LM endpoint ${at} returned ${err.status}: ${detail}${hint}`, {
        cause: err,
        lengthRefusal: lengthRefusal(err.status, detail, body),
      });
    }
    const message = err instanceof Error ? err.message : String(err);
    return new LmEndpointError(at, null, `LM endpoint ${at} failed: ${message}`, { cause: err });
  }
}

// The first streamed reply is read by SDK code that has not run yet in this process (V8
// compiles each function on its first call): ~10 ms of CPU between the reply's arrival and its
// use. While the first request waits for its answer, a reply made up here goes through the same
// code: the SDK's request building, its SSE reader and stream, fetch's Response. Nothing leaves
// the process (its own client, whose fetch answers from memory), and nothing is recorded. It
// starts once the request's body is written (undici says so), after what that moment starts
// (the engine's sandbox process), so that it takes no CPU from the request itself.
let streamReadingWarmed = false;
const WARM_MODEL = 'warm-up';
const WARM_SSE = `data: ${JSON.stringify({
  id: 'warm-up',
  object: 'chat.completion.chunk',
  created: 0,
  model: WARM_MODEL,
  choices: [{ index: 0, delta: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
})}\n\ndata: [DONE]\n\n`;

function warmStreamReadingOnceSent(sdk: Sdk): void {
  if (streamReadingWarmed) return;
  streamReadingWarmed = true;
  // After the call's own hint (added before this one, so called first).
  whenSent(() => setImmediate(() => warmStreamReading(sdk)));
}

function warmStreamReading(sdk: Sdk): void {
  const client = new sdk.OpenAI({
    baseURL: 'http://warm-up.invalid/v1',
    apiKey: 'warm-up',
    organization: null,
    project: null,
    maxRetries: 0,
    // Not in a log of OPENAI_LOG's: no request of the user's.
    logLevel: 'off',
    fetch: () => Promise.resolve(new Response(WARM_SSE, { status: 200, headers: { 'content-type': 'text/event-stream' } })),
  });
  void (async () => {
    const stream = await client.chat.completions.create({ model: WARM_MODEL, messages: [{ role: 'user', content: 'ok' }], stream: true });
    for await (const chunk of stream) reasoningField(chunk.choices[0]?.delta);
    markPhase('stream reading warmed');
  })().catch(() => undefined);
}

/** An endpoint error after the SDK's retries says how many requests were made. */
function withAttempts(err: Error, attempts: number): Error {
  if (attempts > 1 && err instanceof LmEndpointError) err.message += ` (after ${attempts} attempts)`;
  return err;
}

interface Reply {
  text: string;
  model: string;
  usage: Usage;
  promptTokensReported: boolean;
  reasoning: { text: string; source: ReasoningSource } | null;
  finishReason: string | null;
}

/**
 * A message's or delta's thinking in a field of its own: `reasoning_content` (vLLM, DeepSeek,
 * llama.cpp) first, else `reasoning` (OpenRouter, Ollama). The SDK's types know neither.
 */
function reasoningField(x: unknown): { text: string; source: ReasoningSource } | null {
  if (!isRecord(x)) return null;
  for (const source of ['reasoning_content', 'reasoning'] as const) {
    const v = x[source];
    if (typeof v === 'string' && v !== '') return { text: v, source };
  }
  return null;
}

/** A count in a usage details object (`prompt_tokens_details.cached_tokens`…), 0 when absent. */
function detail(details: unknown, key: string): number {
  const n = isRecord(details) ? finiteNumber(details[key]) : null;
  return n !== null && n > 0 ? n : 0;
}

function toSdkMessage(m: ChatMessage): ChatCompletionMessageParam {
  switch (m.role) {
    case 'system':
      return { role: 'system', content: m.content };
    case 'user':
      return { role: 'user', content: m.content };
    case 'assistant':
      return { role: 'assistant', content: m.content };
  }
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null;
}

function finiteNumber(x: unknown): number | null {
  return typeof x === 'number' && Number.isFinite(x) ? x : null;
}

/**
 * Cost the endpoint reported (OpenRouter-style): `usage.cost` when positive, else
 * `usage.cost_details.upstream_inference_cost` (bring-your-own-key calls report cost 0 and
 * the real price there), else an explicit zero, else null.
 */
function reportedCost(u: Record<string, unknown>): number | null {
  const cost = finiteNumber(u['cost']);
  if (cost !== null && cost > 0) return cost;
  const details = u['cost_details'];
  const upstream = isRecord(details) ? finiteNumber(details['upstream_inference_cost']) : null;
  if (upstream !== null && upstream > 0) return upstream;
  return cost === 0 ? 0 : null;
}

/**
 * The endpoint's own words: the SDK's `error.message`, else the message of a body the SDK
 * does not read (vLLM's top-level `{"object": "error", "message": …}`, a `detail`), else the
 * SDK's message without the status it starts with.
 */
function apiErrorDetail(err: InstanceType<Sdk['APIError']>, body: string): string {
  const known = err.error;
  if (isRecord(known) && typeof known['message'] === 'string') return known['message'];
  const raw = parseJson(body);
  if (isRecord(raw)) {
    for (const key of ['message', 'detail', 'error'] as const) {
      if (typeof raw[key] === 'string' && raw[key] !== '') return raw[key];
    }
  }
  return err.message.replace(/^\d{3}\s*/, '') || 'no details';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The innermost cause, where Node puts ECONNREFUSED / ENOTFOUND. */
function rootCauseMessage(err: Error): string {
  let cur: unknown = err;
  let last = err.message;
  for (let i = 0; i < 8 && cur instanceof Error; i++) {
    const code = (cur as Error & { code?: unknown }).code;
    last = typeof code === 'string' && !cur.message.includes(code) ? `${code} ${cur.message}` : cur.message;
    cur = cur.cause;
  }
  return last;
}
