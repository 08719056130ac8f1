// An LmClient for any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp,
// LM Studio, OpenRouter, our mock-llm), through the official `openai` SDK. The SDK owns
// retries (429, 408, 409, 5xx, timeouts, connection errors; exponential backoff, honouring
// Retry-After) and the per-attempt timeout; this file owns usage, cost and error wording.
import { subscribe } from 'node:diagnostics_channel';
import type { OpenAI } from 'openai';
import type { ChatCompletionCreateParamsBase, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { blockedPortText, fetchBlockedPort } from '../../src-shared/endpoint-url.ts';
import type { ChatMessage, Usage } from '../../src-shared/events.ts';
import { estimateTextTokens, estimateTokens } from '../../src-shared/tokens.ts';
import { costFromPrice, DEFAULT_PRICES, priceFor } from './prices.ts';
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
  /** Stream the reply (SSE) and assemble it; usage comes from the final chunk. */
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
    import('openai').then((m) => resolve((sdkModule = m)), reject);
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
  constructor(endpoint: string, status: number | null, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.endpoint = endpoint;
    this.status = status;
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
  private readonly stream: boolean;
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
    this.stream = opts.stream ?? false;
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
    return (input, init) => {
      const headers = new Headers(init?.headers);
      const call = headers.get(CALL_HEADER);
      if (call !== null) {
        headers.delete(CALL_HEADER);
        if (this.attempts.has(call)) this.attempts.set(call, this.attempts.get(call)! + 1);
      }
      return (inner ?? fetch)(input, { ...init, headers });
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
      const { text, model, usage } = this.stream ? await this.completeStreaming(req, call) : await this.completeOnce(req, call);
      const retries = Math.max(0, (this.attempts.get(call) ?? 0) - 1);
      return { text, model, usage, latencyMs: performance.now() - started, ...(retries > 0 ? { retries } : {}) };
    } catch (err) {
      throw withAttempts(this.describe(err, signal), this.attempts.get(call) ?? 0);
    } finally {
      forget?.();
      this.attempts.delete(call);
    }
  }

  private requestOptions(req: CompletionRequest, call: string): { signal?: AbortSignal; headers: Record<string, string> } {
    return { ...(req.signal ? { signal: req.signal } : {}), headers: { [CALL_HEADER]: call } };
  }

  private body(req: CompletionRequest): ChatCompletionCreateParamsBase {
    const body: ChatCompletionCreateParamsBase = {
      ...this.sampling,
      model: req.model,
      messages: req.messages.map(toSdkMessage),
    };
    return Object.assign(body, this.extraBody);
  }

  private async completeOnce(req: CompletionRequest, call: string): Promise<Reply> {
    const sdk = await this.sdk();
    const res = await sdk.chat.completions.create({ ...this.body(req), stream: false }, this.requestOptions(req, call));
    const choice = res.choices?.[0];
    if (!choice) throw new LmEndpointError(this.baseUrl, null, `LM endpoint ${this.baseUrl} returned no choices`);
    const text = choice.message?.content ?? '';
    return { text, model: res.model || req.model, usage: this.usage(req, text, res.usage) };
  }

  private async completeStreaming(req: CompletionRequest, call: string): Promise<Reply> {
    const sdk = await this.sdk();
    const stream = await sdk.chat.completions.create(
      { ...this.body(req), stream: true, stream_options: { include_usage: true } },
      this.requestOptions(req, call),
    );
    const parts: string[] = [];
    let model = '';
    let usage: unknown = undefined;
    for await (const chunk of stream) {
      if (chunk.model) model = chunk.model;
      const delta = chunk.choices?.[0]?.delta?.content;
      if (delta) parts.push(delta);
      if (chunk.usage) usage = chunk.usage;
    }
    const text = parts.join('');
    return { text, model: model || req.model, usage: this.usage(req, text, usage) };
  }

  /** Tokens from the response, else estimated at 4 characters a token; cost reported, else priced, else null. */
  private usage(req: CompletionRequest, text: string, raw: unknown): Usage {
    const u = isRecord(raw) ? raw : null;
    const reportedIn = u ? finiteNumber(u['prompt_tokens']) : null;
    const reportedOut = u ? finiteNumber(u['completion_tokens']) : null;
    const inputTokens = reportedIn ?? estimateTokens(req.messages);
    const outputTokens = reportedOut ?? estimateTextTokens(text);
    const reported = u ? reportedCost(u) : null;
    if (reported !== null) return { inputTokens, outputTokens, costUsd: reported };
    const price = priceFor(req.model, this.priceTable);
    return { inputTokens, outputTokens, costUsd: price ? costFromPrice(price, inputTokens, outputTokens) : null };
  }

  private describe(err: unknown, signal: AbortSignal | undefined): Error {
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
      const detail = apiErrorDetail(err);
      const hint = err.status === 404 ? ' (check the base URL: most servers expect it to end in /v1, and the model name)' : '';
      return new LmEndpointError(at, err.status, `LM endpoint ${at} returned ${err.status}: ${detail}${hint}`, {
        cause: err,
      });
    }
    const message = err instanceof Error ? err.message : String(err);
    return new LmEndpointError(at, null, `LM endpoint ${at} failed: ${message}`, { cause: err });
  }
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

function apiErrorDetail(err: InstanceType<Sdk['APIError']>): string {
  const body = err.error;
  if (isRecord(body) && typeof body['message'] === 'string') return body['message'];
  // The SDK prefixes its message with the status; drop it so we say it once.
  return err.message.replace(/^\d{3}\s*/, '') || 'no details';
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
