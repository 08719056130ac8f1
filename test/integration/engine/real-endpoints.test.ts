// What real endpoints send, through the engine over HTTP (issue 38): a reasoning model's
// thinking in each of its three places, cached and reasoning tokens and their price, replies
// cut by the token cap, requests refused for their length, and compaction from the endpoint's
// own token count.
import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES, costFromPrice } from '../../../src-main/lm/prices.ts';
import { defaultPack } from '../../../src-main/lm/our-prompt-packs.ts';
import type { MockReasoning } from '../../../src-main/mock-llm/behaviours.ts';
import { checkInvariants, harness, ofType, repl, turns } from './harness.ts';

const TWO_TURNS = turns((t) =>
  t === 1
    ? repl('const x = llm_query("TASK: summarise\\nTEXT:\\nabc"); print("step one");')
    : repl('answer.content = "done"; answer.ready = true;'),
);

describe('engine: a reasoning model', () => {
  it.each([
    ['reasoning_content', true],
    ['reasoning_content', false],
    ['reasoning', true],
    ['reasoning', false],
    ['think', true],
    ['think', false],
  ] as [MockReasoning, boolean][])(
    'keeps thinking sent as %s (streamed: %s) apart from the reply, and runs no code it only thought about',
    async (form, stream) => {
      const h = await harness(TWO_TURNS, {}, { mock: { reasoning: form } });
      if (!stream) (h.session as unknown as { config: { client: { streamMode: string } } }).config.client.streamMode = 'off';
      const out = await h.complete('ctx', 'q');
      checkInvariants(h.events);
      expect(out).toMatchObject({ stopReason: 'answered', answer: 'done' });
      for (const r of h.server.requests()) expect(r.params['stream']).toBe(stream ? true : undefined);
      const replies = ofType(h.events, 'model.reply');
      expect(replies).toHaveLength(2);
      for (const r of replies) {
        expect(r.reasoning).toEqual({ text: expect.stringContaining('let me plan before I write code'), source: form });
        expect(r.text).not.toContain('THOUGHT-ONLY');
        expect(r.text).not.toContain('<think>');
        expect(r.text).toMatch(/^Running code\./);
      }
      expect(
        ofType(h.events, 'block.start')
          .map((b) => b.code)
          .join('\n'),
      ).not.toContain('THOUGHT-ONLY');
      const sub = ofType(h.events, 'subcall.end')[0]!;
      expect(sub.reasoning).toEqual({ text: expect.stringContaining('answer it directly'), source: form });
      expect(sub.response).not.toContain('answer it directly');
      // The history the model is sent back holds the replies without their thinking.
      const assistant = ofType(h.events, 'iteration.end').flatMap((e) => e.appended.filter((m) => m.role === 'assistant'));
      for (const m of assistant) expect(m.content).not.toContain('let me plan');
      if (form !== 'think') expect(replies[0]!.usage.reasoningTokens).toBe(Math.ceil(replies[0]!.reasoning!.text.length / 4));
    },
  );

  it("with thinkInReply 'keep' reads a <think> section as reply, as the reference does, and still records the thinking", async () => {
    const h = await harness(TWO_TURNS, { thinkInReply: 'keep' }, { mock: { reasoning: 'think' } });
    await h.complete('ctx', 'q');
    const first = ofType(h.events, 'model.reply')[0]!;
    expect(first.text).toMatch(/^<think>\n/);
    expect(first.reasoning).toMatchObject({ source: 'think', inText: true });
    expect(ofType(h.events, 'block.start')[0]!.code).toContain('THOUGHT-ONLY BLOCK RAN');
  });
});

describe('engine: cached input and its price', () => {
  it('records cached tokens and prices them at the cached rate: the bill arithmetic to the cent', async () => {
    const script = turns((t) =>
      t < 3 ? repl(`print("turn ${t}: " + "x".repeat(400));`) : repl('answer.content = "ok"; answer.ready = true;'),
    );
    const h = await harness(script, { model: 'gpt-5-mini' }, { mock: { cachedTokens: true, costPerMTok: null } });
    const out = await h.complete('c'.repeat(20_000), 'q');
    const replies = ofType(h.events, 'model.reply');
    expect(replies).toHaveLength(3);
    expect(replies[0]!.usage.cachedInputTokens).toBeUndefined();
    for (const r of replies.slice(1)) expect(r.usage.cachedInputTokens).toBeGreaterThan(r.usage.inputTokens / 2);
    const price = DEFAULT_PRICES['gpt-5-mini']!;
    // The bill: uncached input at $0.25, cached at $0.025, output at $2 per million.
    let bill = 0;
    let naive = 0;
    for (const r of replies) {
      const u = r.usage;
      const cached = u.cachedInputTokens ?? 0;
      bill += ((u.inputTokens - cached) * 0.25 + cached * 0.025 + u.outputTokens * 2) / 1e6;
      naive += (u.inputTokens * 0.25 + u.outputTokens * 2) / 1e6;
      expect(u.costUsd).toBeCloseTo(costFromPrice(price, u.inputTokens, u.outputTokens, cached), 12);
    }
    expect(out.usage.costUsd!.toFixed(2)).toBe(bill.toFixed(2));
    expect(out.usage.costUsd).toBeCloseTo(bill, 9);
    expect(naive - bill).toBeGreaterThan(bill / 2); // what ignoring the cache overstated
    expect(out.usage.byModel['gpt-5-mini']).toMatchObject({
      cachedInputTokens: replies.reduce((n, r) => n + (r.usage.cachedInputTokens ?? 0), 0),
    });
  });

  it('a reported cost (OpenRouter usage.cost) still wins over the price table', async () => {
    const h = await harness(TWO_TURNS, { model: 'gpt-5-mini' }, { mock: { cachedTokens: true, costPerMTok: 7 } });
    await h.complete('ctx', 'q');
    for (const r of ofType(h.events, 'model.reply')) {
      expect(r.usage.costUsd).toBeCloseTo(((r.usage.inputTokens + r.usage.outputTokens) * 7) / 1e6, 12);
    }
  });
});

describe('engine: cut replies', () => {
  it('records finish_reason "length" and tells the model when its last ```repl block never closed', async () => {
    const script = turns((t) =>
      t === 1 ? `Plan.\n\`\`\`repl\nprint("${'y'.repeat(300)}");\n\`\`\`` : repl('answer.content = "ok"; answer.ready = true;'),
    );
    const h = await harness(script, {}, { mock: { maxReplyTokens: 40, recordRequests: true, recordTexts: true } });
    const out = await h.complete('ctx', 'q');
    expect(out.answer).toBe('ok');
    const [first, second] = ofType(h.events, 'model.reply');
    expect(first).toMatchObject({ finishReason: 'length' });
    expect(second).toMatchObject({ finishReason: 'stop' });
    expect(ofType(h.events, 'block.start').filter((b) => b.iteration === 1)).toHaveLength(0);
    const end1 = ofType(h.events, 'iteration.end')[0]!;
    expect(end1.appended.at(-1)).toEqual({ role: 'user', content: defaultPack().texts.replyCut });
    const turn2 = h.server.requests()[1]!;
    expect(turn2.messages.some((m) => m.content === defaultPack().texts.replyCut)).toBe(true);
  });

  it('says nothing when the cut reply has no open block, or when told not to', async () => {
    const script = turns((t) => (t === 1 ? `Thinking aloud: ${'z'.repeat(400)}` : repl('answer.content = "ok"; answer.ready = true;')));
    const h = await harness(script, {}, { mock: { maxReplyTokens: 40 } });
    await h.complete('ctx', 'q');
    expect(ofType(h.events, 'model.reply')[0]).toMatchObject({ finishReason: 'length' });
    expect(ofType(h.events, 'iteration.end')[0]!.appended).toHaveLength(1);
    const cut = turns((t) =>
      t === 1 ? `Plan.\n\`\`\`repl\nprint("${'y'.repeat(300)}");\n\`\`\`` : repl('answer.content = "ok"; answer.ready = true;'),
    );
    const quiet = await harness(cut, { replyCutNotice: false }, { mock: { maxReplyTokens: 40 } });
    await quiet.complete('ctx', 'q');
    expect(ofType(quiet.events, 'iteration.end')[0]!.appended).toHaveLength(1);
  });
});

describe('engine: context overflow', () => {
  it.each(['openai', 'vllm'] as const)(
    'a request refused for its length (%s shape) stops the run with context_overflow, naming the window, the tokens and the setting',
    async (style) => {
      const h = await harness(TWO_TURNS, {}, { mock: { contextWindow: 600, overflowStyle: style } });
      const out = await h.complete('w'.repeat(4000), 'q');
      checkInvariants(h.events);
      expect(out.stopReason).toBe('context_overflow');
      const limit = ofType(h.events, 'limit')[0]!;
      expect(limit.limit).toBe('context_overflow');
      expect(limit.message).toBe(out.message);
      expect(out.message).toContain('context window of 600 tokens (reported by the endpoint)');
      expect(out.message).toMatch(/the request of \d+ tokens \(reported by the endpoint\)/);
      expect(out.message).toContain('--context-window 600');
      expect(ofType(h.events, 'model.error')).toHaveLength(1);
    },
  );
});

describe('engine: compaction from the endpoint’s count', () => {
  it('compacts when the reported prompt_tokens pass the threshold, though the estimate has not', async () => {
    const script = turns((t, req) => {
      const compacted = req.messages.some((m) => m.content.includes('SUMMARY of the work so far'));
      if (compacted) return repl('answer.content = "compacted"; answer.ready = true;');
      return t > 6 ? repl('answer.content = "never compacted"; answer.ready = true;') : repl(`print("${'p'.repeat(200)}");`);
    });
    const config = { compaction: true, contextWindow: 6000, compactionThreshold: 0.5 };
    const estimateOnly = await harness(script, config);
    expect((await estimateOnly.complete('ctx', 'q')).answer).toBe('never compacted');
    const reported = await harness(script, config, { mock: { promptTokensScale: 3 } });
    expect((await reported.complete('ctx', 'q')).answer).toBe('compacted');
    const c = ofType(reported.events, 'compaction')[0]!;
    expect(c.tokensBefore).toBeGreaterThanOrEqual(3000);
  });
});
