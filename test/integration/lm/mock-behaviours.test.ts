// mock-llm's real-endpoint behaviours (issue 38), spoken to with plain fetch: each form of
// thinking, cached input, cut replies, length refusals, refusals of stream_options and of
// streaming, held and randomly chunked streams.
import { afterEach, describe, expect, it } from 'vitest';
import { startMockLlm, type MockLlmOptions, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';

const servers: MockLlmServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(opts: MockLlmOptions): Promise<MockLlmServer> {
  const s = await startMockLlm(opts);
  servers.push(s);
  return s;
}

const SUB = [{ role: 'user', content: 'TASK: summarise\nTEXT:\nThe quick brown fox.' }];

async function post(url: string, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock-sub', messages: SUB, ...body }),
  });
}

interface Chunk {
  choices: { delta: Record<string, string | undefined>; finish_reason: string | null }[];
  usage?: Record<string, unknown>;
}

async function chunks(res: Response): Promise<Chunk[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((l) => l.startsWith('data: {'))
    .map((l) => JSON.parse(l.slice(6)) as Chunk);
}

describe('mock-llm behaviours', () => {
  it.each(['reasoning_content', 'reasoning'] as const)(
    'sends thinking in %s, as a field and as stream deltas, counted as reasoning tokens',
    async (form) => {
      const s = await serve({ reasoning: form });
      const whole = (await (await post(s.url, {})).json()) as {
        choices: { message: Record<string, string> }[];
        usage: { completion_tokens: number; completion_tokens_details: { reasoning_tokens: number } };
      };
      const msg = whole.choices[0]!.message;
      expect(msg[form]).toContain('answer it directly');
      expect(msg['content']).not.toContain('answer it directly');
      expect(whole.usage.completion_tokens_details.reasoning_tokens).toBe(Math.ceil(msg[form]!.length / 4));
      expect(whole.usage.completion_tokens).toBe(Math.ceil(msg['content']!.length / 4) + Math.ceil(msg[form]!.length / 4));
      const streamed = await chunks(await post(s.url, { stream: true }));
      const field = streamed.map((c) => c.choices[0]?.delta[form] ?? '').join('');
      const content = streamed.map((c) => c.choices[0]?.delta['content'] ?? '').join('');
      expect(field).toBe(msg[form]);
      expect(content).toBe(msg['content']);
    },
  );

  it('puts <think>…</think> at the start of the content', async () => {
    const s = await serve({ reasoning: 'think' });
    const whole = (await (await post(s.url, {})).json()) as { choices: { message: { content: string } }[] };
    expect(whole.choices[0]!.message.content).toMatch(/^<think>\nThe question is plain[^]*\n<\/think>\n\n\S/);
  });

  it('reports the longest message prefix an earlier request sent as cached tokens', async () => {
    const s = await serve({ cachedTokens: true });
    const history = [
      { role: 'system', content: 'x'.repeat(400) },
      { role: 'user', content: 'TASK: summarise\nTEXT:\nabc' },
    ];
    const first = (await (await post(s.url, { messages: history })).json()) as { usage: Record<string, { cached_tokens: number }> };
    expect(first.usage['prompt_tokens_details']!.cached_tokens).toBe(0);
    const again = [...history, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'TASK: summarise\nTEXT:\nmore' }];
    const second = (await (await post(s.url, { messages: again })).json()) as { usage: Record<string, { cached_tokens: number }> };
    expect(second.usage['prompt_tokens_details']!.cached_tokens).toBe(Math.ceil((400 + 26) / 4));
  });

  it('cuts a long reply with finish_reason "length", streamed or not', async () => {
    const s = await serve({ maxReplyTokens: 3 });
    const whole = (await (await post(s.url, {})).json()) as { choices: { message: { content: string }; finish_reason: string }[] };
    expect(whole.choices[0]).toMatchObject({ finish_reason: 'length' });
    expect(whole.choices[0]!.message.content).toHaveLength(12);
    const streamed = await chunks(await post(s.url, { stream: true }));
    expect(streamed.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['length']);
  });

  it("refuses a prompt over the window in OpenAI's shape and in vLLM's", async () => {
    const openai = await serve({ contextWindow: 5 });
    const r1 = await post(openai.url, {});
    expect(r1.status).toBe(400);
    expect(await r1.json()).toMatchObject({
      error: { code: 'context_length_exceeded', message: expect.stringContaining('maximum context length is 5 tokens') },
    });
    const vllm = await serve({ contextWindow: 5, overflowStyle: 'vllm' });
    const r2 = await post(vllm.url, {});
    expect(r2.status).toBe(400);
    expect(await r2.json()).toMatchObject({
      object: 'error',
      type: 'BadRequestError',
      code: 400,
      message: expect.stringMatching(/However, you requested \d+ tokens/),
    });
  });

  it('refuses stream_options, or streaming, when told to', async () => {
    const noOptions = await serve({ refuse: 'stream_options' });
    expect((await post(noOptions.url, { stream: true, stream_options: { include_usage: true } })).status).toBe(400);
    expect((await post(noOptions.url, { stream: true })).status).toBe(200);
    const noStream = await serve({ refuse: 'stream' });
    expect((await post(noStream.url, { stream: true })).status).toBe(400);
    expect((await post(noStream.url, {})).status).toBe(200);
  });

  it('holds a stream after its first content chunk until released, and chunks randomly from a seed', async () => {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let heldAt = 0;
    const s = await serve({
      streamChunkChars: 5,
      streamChunkSeed: 7,
      holdStream: (n) => {
        heldAt = n;
        return released;
      },
    });
    const res = await post(s.url, { stream: true });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let seen = '';
    while (!seen.includes('"content":"') || !/"content":"[^"]/.test(seen)) seen += decoder.decode((await reader.read()).value);
    expect(heldAt).toBe(1);
    expect(seen).not.toContain('[DONE]');
    release();
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      seen += decoder.decode(r.value);
    }
    expect(seen).toContain('[DONE]');
    const sizes = seen
      .split('\n\n')
      .filter((l) => l.startsWith('data: {'))
      .map((l) => (JSON.parse(l.slice(6)) as Chunk).choices[0]?.delta['content'] ?? '')
      .filter((c) => c !== '')
      .map((c) => c.length);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(5);
    expect(new Set(sizes.slice(0, -1)).size).toBeGreaterThan(1);
  });
});

describe('the client against servers that refuse streaming', () => {
  it.each([
    ['stream_options', { stream: true, stream_options: undefined }],
    // A whole reply is asked for with no stream field at all, as the reference library asks.
    ['stream', { stream: undefined, stream_options: undefined }],
  ] as const)('steps down when the server refuses %s, keeps the reply, and remembers', async (refuse, then) => {
    const { OpenAiCompatibleClient } = await import('../../../src-main/lm/openai-client.ts');
    const s = await serve({ refuse, recordRequests: true });
    const client = new OpenAiCompatibleClient({ baseUrl: s.url, maxRetries: 0 });
    const req = { model: 'mock-sub', messages: [{ role: 'user' as const, content: 'TASK: summarise\nTEXT:\nabc' }] };
    const a = await client.complete(req);
    const b = await client.complete(req);
    expect(a.text).toBe(b.text);
    expect(a.text.length).toBeGreaterThan(0);
    expect(a.retries).toBeUndefined();
    const sent = s.requests().map((r) => ({ stream: r.params['stream'], stream_options: r.params['stream_options'] }));
    expect(sent[0]).toEqual({ stream: true, stream_options: { include_usage: true } });
    expect(sent.slice(1)).toEqual([then, then]);
  });
});
