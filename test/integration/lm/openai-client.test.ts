// The real OpenAiCompatibleClient against the real mock-llm server over HTTP: no SDK mocks.
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { isAbortError, LmEndpointError, OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import type { OpenAiClientOptions } from '../../../src-main/lm/openai-client.ts';
import { startMockLlm } from '../../../src-main/mock-llm/server.ts';
import type { MockLlmOptions, MockLlmServer } from '../../../src-main/mock-llm/server.ts';
import { fetchBlockedPort } from '../../../src-shared/endpoint-url.ts';
import type { ChatMessage } from '../../../src-shared/events.ts';

const servers: MockLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(opts: MockLlmOptions = {}): Promise<MockLlmServer> {
  const s = await startMockLlm(opts);
  servers.push(s);
  return s;
}

function client(server: MockLlmServer, opts: Partial<OpenAiClientOptions> = {}): OpenAiCompatibleClient {
  return new OpenAiCompatibleClient({ baseUrl: server.url, apiKey: 'test', ...opts });
}

const COUNT_PROMPT: ChatMessage[] = [
  { role: 'user', content: 'TASK: count-labels\nITEMS:\nbuy now || label: spam\nhello || label: ham\nwin big || label: spam' },
];

function promptChars(messages: ChatMessage[]): number {
  return messages.reduce((n, m) => n + m.content.length, 0);
}

describe('OpenAiCompatibleClient over HTTP', () => {
  it('completes a non-streaming call with text, tokens from the response and latency', async () => {
    const s = await serve();
    const res = await client(s).complete({ model: 'mock-llm', messages: COUNT_PROMPT });
    expect(res.text).toBe('{"ham":1,"spam":2}');
    expect(res.model).toBe('mock-llm');
    expect(res.usage.inputTokens).toBe(Math.ceil(promptChars(COUNT_PROMPT) / 4));
    expect(res.usage.outputTokens).toBe(Math.ceil(res.text.length / 4));
    expect(res.latencyMs).toBeGreaterThan(0);
    expect(s.stats().requests).toBe(1);
  });

  it('streams and assembles the same text, with usage from the final chunk', async () => {
    const s = await serve();
    const messages: ChatMessage[] = [{ role: 'user', content: `TASK: summarise\nTEXT:\n${'lorem ipsum dolor sit amet\n'.repeat(50)}` }];
    const plain = await client(s).complete({ model: 'mock-llm', messages });
    const streamed = await client(s, { stream: true }).complete({ model: 'mock-llm', messages });
    expect(streamed.text).toBe(plain.text);
    expect(streamed.text.length).toBeGreaterThan(64); // more than one SSE piece
    expect(streamed.usage).toEqual(plain.usage);
  });

  it('prefers the cost the endpoint reports over the price table', async () => {
    const s = await serve({ costPerMTok: 3 });
    const res = await client(s, { priceTable: { 'mock-': { inputPerMTok: 1000, outputPerMTok: 1000 } } }).complete({
      model: 'mock-llm',
      messages: COUNT_PROMPT,
    });
    const total = res.usage.inputTokens + res.usage.outputTokens;
    expect(res.usage.costUsd).toBeCloseTo((total * 3) / 1e6, 12);
  });

  it('reads the reported cost from a streamed usage chunk too', async () => {
    const s = await serve({ costPerMTok: 3 });
    const res = await client(s, { stream: true, priceTable: {} }).complete({ model: 'mock-llm', messages: COUNT_PROMPT });
    expect(res.usage.costUsd).toBeCloseTo(((res.usage.inputTokens + res.usage.outputTokens) * 3) / 1e6, 12);
  });

  it('prices from the table by exact name or longest prefix, else null', async () => {
    const s = await serve();
    const table = {
      'gpt-4o': { inputPerMTok: 2, outputPerMTok: 8 },
      'gpt-4o-mini': { inputPerMTok: 0.5, outputPerMTok: 1 },
    };
    const c = client(s, { priceTable: table });
    const mini = await c.complete({ model: 'gpt-4o-mini-2024-07-18', messages: COUNT_PROMPT });
    expect(mini.usage.costUsd).toBeCloseTo((mini.usage.inputTokens * 0.5 + mini.usage.outputTokens * 1) / 1e6, 12);
    const exact = await c.complete({ model: 'gpt-4o', messages: COUNT_PROMPT });
    expect(exact.usage.costUsd).toBeCloseTo((exact.usage.inputTokens * 2 + exact.usage.outputTokens * 8) / 1e6, 12);
    const unknown = await c.complete({ model: 'some-local-model', messages: COUNT_PROMPT });
    expect(unknown.usage.costUsd).toBeNull();
  });

  it('prices mock models with the default table so demos show a cost', async () => {
    const s = await serve();
    const res = await client(s).complete({ model: 'mock-llm', messages: COUNT_PROMPT });
    expect(res.usage.costUsd).toBeGreaterThan(0);
  });

  it('retries injected 429s and 500s through the SDK, visible in the server request count', async () => {
    for (const status of [429, 500]) {
      const s = await serve({ failEvery: 2, failStatus: status, failRetryAfterMs: 5 });
      const c = client(s, { maxRetries: 4 });
      const results = [];
      for (let i = 0; i < 3; i++) results.push(await c.complete({ model: 'mock-llm', messages: COUNT_PROMPT }));
      expect(results.every((r) => r.text === '{"ham":1,"spam":2}')).toBe(true);
      // Requests 2 and 4 fail; each is retried once: 3 calls → 5 requests. Each call says how often it was retried.
      expect(s.stats()).toMatchObject({ requests: 5, failures: 2, completions: 3 });
      expect(results.map((r) => r.retries ?? 0)).toEqual([0, 1, 1]);
      expect('retries' in results[0]!).toBe(false);
    }
  });

  it('counts the retries of concurrent calls each for its own call, also through a fetch of the caller', async () => {
    const s = await serve({ failEvery: 3, failStatus: 500, failRetryAfterMs: 5 });
    const seen: string[] = [];
    const c = client(s, {
      fetch: (input, init) => {
        seen.push(...new Headers(init?.headers).keys());
        return fetch(input, init);
      },
    });
    const results = await Promise.all([0, 1, 2, 3].map(() => c.complete({ model: 'mock-llm', messages: COUNT_PROMPT })));
    const retried = results.reduce((n, r) => n + (r.retries ?? 0), 0);
    expect(retried).toBe(s.stats().failures);
    expect(retried).toBeGreaterThan(0);
    expect(s.stats().requests).toBe(results.length + retried);
    // The marker that ties an attempt to its call is not sent.
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.some((h) => h.startsWith('x-rlm-studio'))).toBe(false);
  });

  it('gives up after maxRetries with a message naming the endpoint and status', async () => {
    const s = await serve({ failEvery: 1, failStatus: 503, failRetryAfterMs: 1 });
    const err = await client(s, { maxRetries: 2 })
      .complete({ model: 'mock-llm', messages: COUNT_PROMPT })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LmEndpointError);
    expect((err as LmEndpointError).status).toBe(503);
    expect((err as Error).message).toContain(`LM endpoint ${s.url} returned 503: mock-llm injected failure`);
    expect((err as Error).message).toMatch(/ \(after 3 attempts\)$/);
    expect(s.stats().requests).toBe(3);
  });

  it('does not retry a 401 and says so clearly', async () => {
    const s = await serve({ failEvery: 1, failStatus: 401 });
    const err = await client(s)
      .complete({ model: 'mock-llm', messages: COUNT_PROMPT })
      .catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/^LM endpoint http:\/\/127\.0\.0\.1:\d+\/v1 returned 401: /);
    expect(s.stats().requests).toBe(1);
  });

  it('aborts an in-flight call: rejects before the reply, recognisably, and the server sees the disconnect', async () => {
    const s = await serve({ latencyMs: 30_000 });
    const ac = new AbortController();
    const pending = client(s).complete({ model: 'mock-llm', messages: COUNT_PROMPT, signal: ac.signal });
    await waitFor(() => s.stats().inFlight === 1);
    ac.abort();
    const err = await pending.catch((e: unknown) => e);
    expect(isAbortError(err)).toBe(true);
    expect((err as Error).name).toBe('AbortError');
    await waitFor(() => s.stats().aborted === 1);
    expect(s.stats().completions).toBe(0);
  });

  it('rejects at once when the signal is already aborted', async () => {
    const s = await serve();
    const err = await client(s)
      .complete({ model: 'mock-llm', messages: COUNT_PROMPT, signal: AbortSignal.abort() })
      .catch((e: unknown) => e);
    expect(isAbortError(err)).toBe(true);
    expect(s.stats().requests).toBe(0);
  });

  it('explains a wrong base URL (404) without retrying', async () => {
    const s = await serve();
    const base = s.url.replace(/\/v1$/, '');
    const err = await new OpenAiCompatibleClient({ baseUrl: base })
      .complete({ model: 'mock-llm', messages: COUNT_PROMPT })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LmEndpointError);
    expect((err as Error).message).toContain(`LM endpoint ${base} returned 404`);
    expect((err as Error).message).toContain('/v1');
    expect(isAbortError(err)).toBe(false);
  });

  it('explains an unreachable endpoint', async () => {
    const port = await closedPort();
    const base = `http://127.0.0.1:${port}/v1`;
    const err = await new OpenAiCompatibleClient({ baseUrl: base, maxRetries: 1 })
      .complete({ model: 'mock-llm', messages: COUNT_PROMPT })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LmEndpointError);
    expect((err as Error).message).toContain(`LM endpoint ${base} is unreachable`);
    expect((err as Error).message).toMatch(/ECONNREFUSED|refused/i);
  });

  it('names a port that fetch refuses, before the SDK tries it', async () => {
    const base = 'http://127.0.0.1:6666/v1';
    const err = await new OpenAiCompatibleClient({ baseUrl: base, maxRetries: 4 })
      .complete({ model: 'mock-llm', messages: COUNT_PROMPT })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LmEndpointError);
    expect((err as Error).message).toContain(`LM endpoint ${base} is unreachable: fetch refuses to connect to port 6666`);
  });

  it("knows the ports Node's fetch refuses, and only those (each listed port and its neighbours)", async () => {
    const ports = [...new Set([1, 7, 9, 10, 80, 443, 3000, 5999, 6000, 6001, 6665, 6670, 8000, 10079, 10080, 10081, 11434, 65535])];
    for (let p = 1; p <= 10_081; p++) if (fetchBlockedPort(new URL(`http://h:${p}`)) !== null) ports.push(p - 1, p, p + 1);
    const refused = async (port: number): Promise<boolean> => {
      const err = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2000) }).then(
        () => null,
        (e: unknown) => e,
      );
      return err instanceof TypeError && err.cause instanceof Error && err.cause.message === 'bad port';
    };
    const mismatched: number[] = [];
    for (const port of new Set(ports)) {
      if (port < 1 || port > 65535) continue;
      if ((await refused(port)) !== (fetchBlockedPort(new URL(`http://h:${port}`)) !== null)) mismatched.push(port);
    }
    expect(mismatched).toEqual([]);
  });

  it('reports a per-attempt timeout clearly, after retrying it', async () => {
    const s = await serve({ latencyMs: 10_000 });
    const err = await client(s, { timeoutMs: 100, maxRetries: 1 })
      .complete({ model: 'mock-llm', messages: COUNT_PROMPT })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LmEndpointError);
    expect((err as Error).message).toContain(`LM endpoint ${s.url} timed out`);
    expect(isAbortError(err)).toBe(false);
    expect(s.stats().requests).toBe(2);
  });

  it('serves 200 parallel calls, all correct', async () => {
    const s = await serve({ latencyMs: 20 });
    const c = client(s);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        c.complete({
          model: 'mock-llm',
          messages: [{ role: 'user', content: `TASK: count-labels\nITEMS:\n${'x || label: a\n'.repeat(i + 1)}` }],
        }),
      ),
    );
    results.forEach((r, i) => expect(r.text).toBe(`{"a":${i + 1}}`));
    expect(s.stats()).toMatchObject({ requests: 200, completions: 200 });
    expect(s.stats().maxInFlight).toBeGreaterThan(1);
  });
});

async function waitFor(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
}

/** A port nothing listens on: bind one, then release it. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}
