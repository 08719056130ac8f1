// Conformance per endpoint family (issue 38): a server in this test answers with the family's
// documented response shape (conformance/families.ts), whole and streamed, and a real run goes
// through it. For each: the recorded event (reply, thinking, finish reason), the usage
// (cached and reasoning tokens where the family reports them), the cost (reported, priced or
// unknown) and what the app is given to show (its search finds the thinking, its iteration
// totals the cached input).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import { estimateTextTokens, estimateTokens } from '../../../src-shared/tokens.ts';
import { iterationTotals, reduceEvents } from '../../../src-shared/trajectory/index.ts';
import { EventRecorder, RlmConversation } from '../../../src-main/engine/index.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import { costFromPrice, DEFAULT_PRICES, priceFor } from '../../../src-main/lm/prices.ts';
import { classify, type MockMessage } from '../../../src-main/mock-llm/policy.ts';
import { searchSession } from '../../../src-renderer/lib/session-search.ts';
import { FAMILIES, type Answer, type Family } from './conformance/families.ts';

const THINKING = 'I plan the step: look at the context first, then answer.';

function answerFor(messages: MockMessage[]): Answer {
  const c = classify({ model: 'x', messages });
  const content =
    c.turn === 1
      ? 'Looking first.\n```repl\nprint(context.slice(0, 20))\n```'
      : 'Answering.\n```repl\nanswer.content = "forty-two"; answer.ready = true;\n```';
  const promptTokens = estimateTokens(messages);
  const reasoningTokens = estimateTextTokens(THINKING);
  return {
    content,
    thinking: THINKING,
    promptTokens,
    completionTokens: estimateTextTokens(content) + reasoningTokens,
    cachedTokens: c.turn === 1 ? 0 : Math.floor(promptTokens * 0.75),
    reasoningTokens,
  };
}

/** A server speaking one family's shape. */
async function familyServer(f: Family): Promise<{ url: string; server: Server; answers: Answer[] }> {
  const answers: Answer[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const b = JSON.parse(body) as {
        model: string;
        messages: MockMessage[];
        stream?: boolean;
        stream_options?: { include_usage?: boolean };
      };
      const a = answerFor(b.messages);
      answers.push(a);
      if (b.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(f.stream(a, b.model, b.stream_options?.include_usage === true));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(f.whole(a, b.model)));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server, answers };
}

describe.each(FAMILIES)('conformance: $name', (f) => {
  let s: Awaited<ReturnType<typeof familyServer>>;
  beforeAll(async () => {
    s = await familyServer(f);
  });
  afterAll(async () => {
    await new Promise((r) => s.server.close(r));
  });

  it.each([true, false])('streamed %s: event, usage, cost and what the app shows', async (stream) => {
    s.answers.length = 0;
    const events: TrajectoryEvent[] = [];
    const client = new OpenAiCompatibleClient({ baseUrl: s.url, apiKey: 'k', maxRetries: 0, stream });
    const session = new RlmConversation({ client, model: f.model }, { sink: new EventRecorder((e) => events.push(e)) });
    const out = await session.completion('The answer is forty-two.', 'What is the answer?');
    session.close();
    expect(out).toMatchObject({ stopReason: 'answered', answer: 'forty-two' });

    const replies = events.filter((e) => e.type === 'model.reply');
    expect(replies).toHaveLength(2);
    replies.forEach((r, i) => {
      const a = s.answers[i]!;
      expect(r.text).toBe(a.content);
      expect(r.finishReason).toBe('stop');
      if (f.thinking) expect(r.reasoning).toEqual({ text: THINKING, source: f.thinking });
      else expect(r.reasoning).toBeUndefined();
      // Usage as reported: streamed without usage, a family leaves it to our estimate.
      expect(r.usage.inputTokens).toBe(a.promptTokens);
      expect(r.usage.outputTokens).toBe(a.completionTokens);
      expect(r.usage.cachedInputTokens).toBe(f.cached && a.cachedTokens > 0 ? a.cachedTokens : undefined);
      expect(r.usage.reasoningTokens).toBe(f.reasoningTokens ? a.reasoningTokens : undefined);
      const price = priceFor(f.model, DEFAULT_PRICES);
      const want = f.cost
        ? f.cost(a)
        : price
          ? costFromPrice(price, a.promptTokens, a.completionTokens, f.cached ? a.cachedTokens : 0)
          : null;
      if (want === null) expect(r.usage.costUsd).toBeNull();
      else expect(r.usage.costUsd).toBeCloseTo(want, 12);
    });

    // What the app is given: the thinking is found by its search, the cached input is in the iteration's totals.
    const state = reduceEvents(events);
    const hits = searchSession(state, 'I plan the step').filter((h) => h.field === 'reasoning');
    expect(hits).toHaveLength(f.thinking ? 2 : 0);
    const root = state.runs.get(state.roots[0]!)!;
    const cachedShown = iterationTotals(state, root.iterations[1]!).cachedInputTokens;
    expect(cachedShown).toBe(f.cached ? s.answers[1]!.cachedTokens : 0);
  });
});
