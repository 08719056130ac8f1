// A deterministic OpenAI-compatible chat server over real HTTP (node:http), for demos,
// tests and benchmarks. Replies come from a Policy; everything else (latency, injected
// failures, usage, reported cost, SSE streaming) is the server's. Latency is a timer, never
// a busy wait, so hundreds of concurrent calls overlap; a client that disconnects mid-call
// cancels its timer and is counted, not crashed on.
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import { classify, type MockMessage, type Policy } from './policy.ts';
import { chunkSizes, cutReply, overflowError, placeReasoning, PrefixCache, reasoningFor, type MockBehaviours } from './behaviours.ts';
import { NoRuleMatchedError } from './policies/script.ts';
import { packMarkers } from './request-markers.ts';
import type { PromptPack } from '../lm/prompt-pack.ts';
import { autoPolicy } from './policies/index.ts';
import { estimateTextTokens, estimateTokens } from '../../src-shared/tokens.ts';
import { schemaProblems } from '../../src-shared/schema-problems.ts';

export interface MockLlmOptions extends MockBehaviours {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Fixed delay before each chat reply (before the first chunk when streaming). Default 0. */
  latencyMs?: number;
  /** Default: `autoPolicy` (the eval tasks' policies, else the built-in scenarios). */
  policy?: Policy;
  /** When set, usage carries an OpenRouter-style `cost` = total tokens × this / 1e6. */
  costPerMTok?: number | null;
  /** Every Nth chat request (1-based: N, 2N, …) fails with `failStatus`. 0 or absent: never. */
  failEvery?: number;
  /** Default 500. */
  failStatus?: number;
  /** Sent as `retry-after-ms` on injected failures, so clients can retry fast in tests. */
  failRetryAfterMs?: number;
  /** Listed by GET /v1/models. Any model name is accepted in chat requests. */
  models?: string[];
  /** Largest accepted request body. Default 64 MiB. */
  maxBodyBytes?: number;
  /** Keep a record of every well-formed chat request, read with `requests()`. */
  recordRequests?: boolean;
  /** Append the same record, one JSON line per request, to this file. */
  recordFile?: string;
  /** Keep each message's text in the record too (off by default: records stay small). */
  recordTexts?: boolean;
  /** The prompt pack the engine under test uses: requests are read by its texts (default: our packs'). */
  prompts?: PromptPack;
}

/** What a client sent in one chat request; the message texts only with `recordTexts`. */
export interface RecordedRequest {
  /** 1-based, in arrival order (as `stats().requests` counts). */
  n: number;
  model: string;
  /** Every other body field as sent (temperature, top_p, seed, max_completion_tokens, stream…). */
  params: Record<string, unknown>;
  /** Role and length of each message; its text too when `recordTexts`. */
  messages: { role: string; chars: number; content?: string }[];
}

interface MockLlmStats {
  /** Chat completion requests received, injected failures and bad requests included. */
  requests: number;
  /** Replies fully sent. */
  completions: number;
  /** Injected failures sent. */
  failures: number;
  /** Calls whose client went away before the reply was complete. */
  aborted: number;
  inFlight: number;
  maxInFlight: number;
}

export interface MockLlmServer {
  /** Base URL ending in /v1, e.g. http://127.0.0.1:41234/v1 */
  url: string;
  port: number;
  close(): Promise<void>;
  stats(): MockLlmStats;
  /** The recorded requests (empty unless `recordRequests`). */
  requests(): RecordedRequest[];
}

const DEFAULT_MOCK_MODELS = ['mock-llm', 'mock-root', 'mock-sub'];

const ContentPart = z.looseObject({ type: z.string(), text: z.string().optional() });
const WireMessage = z.looseObject({
  role: z.string({ error: 'each message needs a string "role"' }),
  content: z.union([z.string(), z.array(ContentPart), z.null()]).optional(),
});
const ChatBody = z.looseObject({
  model: z.string({ error: '"model" must be a string' }).min(1, '"model" must not be empty'),
  messages: z.array(WireMessage, { error: '"messages" must be an array' }).min(1, '"messages" must not be empty'),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullable().optional() }).nullable().optional(),
});
type ChatBody = z.infer<typeof ChatBody>;

class HttpError extends Error {
  readonly status: number;
  readonly type: string;
  constructor(status: number, message: string, type = 'invalid_request_error') {
    super(message);
    this.status = status;
    this.type = type;
  }
}

export async function startMockLlm(opts: MockLlmOptions = {}): Promise<MockLlmServer> {
  const policy = opts.policy ?? autoPolicy;
  const markers = opts.prompts === undefined ? undefined : packMarkers(opts.prompts);
  const latencyMs = Math.max(0, opts.latencyMs ?? 0);
  const failEvery = Math.max(0, Math.floor(opts.failEvery ?? 0));
  const failStatus = opts.failStatus ?? 500;
  const maxBody = opts.maxBodyBytes ?? 64 * 1024 * 1024;
  const models = opts.models ?? DEFAULT_MOCK_MODELS;
  const stats: MockLlmStats = { requests: 0, completions: 0, failures: 0, aborted: 0, inFlight: 0, maxInFlight: 0 };
  const recorded: RecordedRequest[] = [];
  const prefixCache = opts.cachedTokens ? new PrefixCache() : null;
  const record = (n: number, body: ChatBody): void => {
    if (!opts.recordRequests && opts.recordFile === undefined) return;
    const { model, messages, ...params } = body;
    const r: RecordedRequest = {
      n,
      model,
      params,
      messages: messages.map((m) => {
        const content = toMockMessage(m).content;
        return opts.recordTexts ? { role: m.role, chars: content.length, content } : { role: m.role, chars: content.length };
      }),
    };
    if (opts.recordRequests) recorded.push(r);
    if (opts.recordFile !== undefined) appendFileSync(opts.recordFile, `${JSON.stringify(r)}\n`);
  };

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      // Last resort: a bug in the handler must cost one request, not the server.
      if (!res.headersSent && !res.destroyed) sendError(res, 500, `mock-llm internal error: ${messageOf(err)}`, 'server_error');
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    const path = (req.url ?? '/').split('?')[0]!.replace(/\/+$/, '') || '/';

    if (path === '/v1/models' && (req.method === 'GET' || req.method === 'HEAD')) {
      sendJson(res, 200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'rlm-studio-mock' })),
      });
      return;
    }
    if (path !== '/v1/chat/completions') {
      sendError(
        res,
        404,
        `mock-llm has no ${req.method ?? 'GET'} ${path}; it serves POST /v1/chat/completions and GET /v1/models`,
        'not_found',
      );
      return;
    }
    if (req.method !== 'POST') {
      sendError(res, 405, `use POST for /v1/chat/completions, not ${req.method ?? '?'}`);
      return;
    }

    stats.requests += 1;
    const n = stats.requests;
    stats.inFlight += 1;
    stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
    // Gone = the client closed the connection before we finished (an aborted call).
    const gone = new AbortController();
    res.on('close', () => {
      stats.inFlight -= 1;
      if (!res.writableFinished) {
        stats.aborted += 1;
        gone.abort();
      }
    });

    try {
      const body = parseChatBody(await readBody(req, maxBody));
      record(n, body);
      if (failEvery > 0 && n % failEvery === 0) {
        stats.failures += 1;
        const headers: Record<string, string> = {};
        if (opts.failRetryAfterMs !== undefined) headers['retry-after-ms'] = String(opts.failRetryAfterMs);
        sendError(
          res,
          failStatus,
          `mock-llm injected failure (request ${n}, every ${failEvery})`,
          failStatus === 429 ? 'rate_limit_error' : 'server_error',
          headers,
        );
        return;
      }
      if (opts.refuse === 'stream_options' && body.stream_options != null) {
        throw new HttpError(400, 'Unrecognized request argument supplied: stream_options');
      }
      if (opts.refuse === 'stream' && body.stream) throw new HttpError(400, 'Streaming is not supported by this server');
      const messages = body.messages.map(toMockMessage);
      const promptTokens = Math.ceil(estimateTokens(messages) * (opts.promptTokensScale ?? 1));
      const window = opts.contextWindow ?? null;
      if (window !== null && promptTokens > window) {
        sendJson(res, 400, overflowError(opts.overflowStyle ?? 'openai', window, promptTokens));
        return;
      }
      let reply: string;
      try {
        reply = policy({ model: body.model, messages, ...(markers ? { markers } : {}) });
      } catch (err) {
        if (err instanceof NoRuleMatchedError) throw new HttpError(400, err.message);
        throw new HttpError(500, `mock-llm policy failed: ${messageOf(err)}`, 'server_error');
      }
      if (latencyMs > 0) {
        try {
          await delay(latencyMs, undefined, { signal: gone.signal });
        } catch {
          return; // the client left while we were "thinking"
        }
      }
      if (gone.signal.aborted) return;
      const form = opts.reasoning ?? null;
      const reasoning = form === null ? '' : reasoningFor(classify({ model: body.model, messages }));
      const placed = placeReasoning(form, reasoning, reply);
      const cut = cutReply(placed.content, opts.maxReplyTokens);
      const answer: MockAnswer = {
        content: cut ?? placed.content,
        field: placed.field,
        finishReason: cut === null ? 'stop' : 'length',
      };
      const usage = usageFor(promptTokens, answer, opts.costPerMTok ?? null, prefixCache?.cachedTokens(messages) ?? null);
      const id = `chatcmpl-mock-${n}`;
      if (body.stream) await sendStream(res, id, body, answer, usage, streamShape(opts, n), gone.signal);
      else sendCompletion(res, id, body.model, answer, usage);
      stats.completions += 1;
    } catch (err) {
      if (err instanceof HttpError) sendError(res, err.status, err.message, err.type);
      else throw err;
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  let closing: Promise<void> | null = null;
  return {
    url: `http://${host}:${addr.port}/v1`,
    port: addr.port,
    stats: () => ({ ...stats }),
    requests: () => recorded.map((r) => ({ ...r, params: { ...r.params }, messages: [...r.messages] })),
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function readBody(req: IncomingMessage, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        reject(new HttpError(413, `request body larger than ${max} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
    req.on('aborted', () => reject(new HttpError(499, 'client closed the request')));
  });
}

function parseChatBody(text: string): ChatBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new HttpError(400, `request body is not valid JSON: ${messageOf(err)}`);
  }
  const res = ChatBody.safeParse(value, { reportInput: true });
  if (!res.success) {
    const problems = schemaProblems(res.error);
    throw new HttpError(400, `malformed chat completion request: ${problems.join('; ')}`);
  }
  return res.data;
}

function toMockMessage(m: z.infer<typeof WireMessage>): MockMessage {
  const c = m.content;
  const content = typeof c === 'string' ? c : Array.isArray(c) ? c.map((p) => p.text ?? '').join('') : '';
  return { role: m.role, content };
}

interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details?: { cached_tokens: number };
  completion_tokens_details?: { reasoning_tokens: number };
  cost?: number;
}

/** What is sent back: the content, the thinking's own field when it has one, why it ended. */
interface MockAnswer {
  content: string;
  field: Record<string, string>;
  finishReason: 'stop' | 'length';
}

/**
 * The shared estimate (ceil(chars / 4)) each way: deterministic and close enough to real
 * tokenisers for budgets. Thinking in a field of its own counts as output and is reported as
 * reasoning tokens, as OpenAI's reasoning models report it.
 */
function usageFor(prompt_tokens: number, a: MockAnswer, costPerMTok: number | null, cached: number | null): WireUsage {
  const thinking = Object.values(a.field).join('');
  const reasoning_tokens = thinking === '' ? 0 : estimateTextTokens(thinking);
  const completion_tokens = estimateTextTokens(a.content) + reasoning_tokens;
  const total_tokens = prompt_tokens + completion_tokens;
  const usage: WireUsage = { prompt_tokens, completion_tokens, total_tokens };
  if (cached !== null) usage.prompt_tokens_details = { cached_tokens: cached };
  if (thinking !== '') usage.completion_tokens_details = { reasoning_tokens };
  if (costPerMTok !== null) usage.cost = (total_tokens * costPerMTok) / 1_000_000;
  return usage;
}

function sendCompletion(res: ServerResponse, id: string, model: string, a: MockAnswer, usage: WireUsage): void {
  sendJson(res, 200, {
    id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: a.content, ...a.field, refusal: null },
        finish_reason: a.finishReason,
        logprobs: null,
      },
    ],
    usage,
  });
}

const STREAM_PIECE_CHARS = 64;

interface StreamShape {
  nextSize: () => number;
  chunkMs: number;
  hold: (() => Promise<void>) | null;
}

function streamShape(opts: MockLlmOptions, n: number): StreamShape {
  const hold = opts.holdStream;
  return {
    nextSize: chunkSizes(opts.streamChunkChars ?? STREAM_PIECE_CHARS, opts.streamChunkSeed),
    chunkMs: Math.max(0, opts.streamChunkMs ?? 0),
    hold: hold ? () => hold(n) : null,
  };
}

/**
 * SSE as OpenAI sends it: a role chunk, the thinking's field chunks, content chunks, a
 * finish_reason chunk, a usage chunk (`choices: []`) when asked for, then [DONE]. Written at
 * once, or chunk by chunk with `streamChunkMs` between them and after a hold.
 */
async function sendStream(
  res: ServerResponse,
  id: string,
  body: ChatBody,
  a: MockAnswer,
  usage: WireUsage,
  shape: StreamShape,
  gone: AbortSignal,
): Promise<void> {
  if (res.destroyed) return;
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): string =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices, ...extra })}\n\n`;
  const delta = (d: Record<string, string>): string => chunk([{ index: 0, delta: d, finish_reason: null }]);
  const pieces: { text: string; content: boolean }[] = [{ text: delta({ role: 'assistant', content: '' }), content: false }];
  for (const [field, text] of Object.entries(a.field)) {
    for (let i = 0; i < text.length;) {
      const size = shape.nextSize();
      pieces.push({ text: delta({ [field]: text.slice(i, i + size) }), content: true });
      i += size;
    }
  }
  for (let i = 0; i < a.content.length;) {
    const size = shape.nextSize();
    pieces.push({ text: delta({ content: a.content.slice(i, i + size) }), content: true });
    i += size;
  }
  pieces.push({ text: chunk([{ index: 0, delta: {}, finish_reason: a.finishReason }]), content: false });
  if (body.stream_options?.include_usage) pieces.push({ text: chunk([], { usage }), content: false });
  pieces.push({ text: 'data: [DONE]\n\n', content: false });
  if (shape.chunkMs === 0 && shape.hold === null) {
    res.end(pieces.map((p) => p.text).join(''));
    return;
  }
  let held = shape.hold === null;
  for (const p of pieces) {
    if (gone.aborted || res.destroyed) return;
    res.write(p.text);
    if (!held && p.content) {
      held = true;
      await shape.hold!();
    } else if (shape.chunkMs > 0 && p.content) {
      try {
        await delay(shape.chunkMs, undefined, { signal: gone });
      } catch {
        return;
      }
    }
  }
  res.end();
}

function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.headersSent) return;
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  type = 'invalid_request_error',
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { error: { message, type, code: status } }, headers);
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
