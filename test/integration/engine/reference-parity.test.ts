// The switches that make our runs comparable with the reference library's: depth 0 as one
// direct call, the batched-call concurrency caps, where a child's llm_query goes, and what
// max_errors counts.
import { describe, expect, it } from 'vitest';
import { checkEvent } from '../../../src-shared/codecs/native.ts';
import { reduceEvents } from '../../../src-shared/trajectory/reducer.ts';
import { logStats, StatsAccumulator } from '../../../src-shared/trajectory/log-stats.ts';
import { classify, type Policy } from '../../../src-main/mock-llm/policy.ts';
import { checkInvariants, harness, ofType, repl, turns } from './harness.ts';

describe('maxDepth 0: the reference baseline, one direct call', () => {
  it('sends the whole context and the query in one plain call and answers with the reply, without a REPL', async () => {
    const seen: { model: string; messages: { role: string; content: string }[] }[] = [];
    const h = await harness(
      (req) => {
        seen.push(req);
        return `direct answer (${classify(req).kind})`;
      },
      { maxDepth: 0, subModel: 'mock-sub' },
      {
        replFactory: () => {
          throw new Error('a direct call must not set up a REPL');
        },
      },
    );
    const out = await h.complete('the whole context', 'what is it?');
    expect(out).toMatchObject({ answer: 'direct answer (sub)', stopReason: 'answered', iterations: 0 });
    expect(out.usage.calls).toBe(1);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.model).toBe('mock-root');
    expect(seen[0]!.messages).toEqual([{ role: 'user', content: 'the whole context\n\nwhat is it?' }]);

    expect(h.events.map((e) => e.type)).toEqual(['run.start', 'model.reply', 'run.end']);
    const start = ofType(h.events, 'run.start')[0]!;
    expect(start.limits.maxDepth).toBe(0);
    expect(start.tools).toEqual([]);
    expect(start.messages).toEqual(seen[0]!.messages);
    expect(ofType(h.events, 'model.reply')[0]).toMatchObject({ purpose: 'direct', iteration: 0, text: 'direct answer (sub)' });
    expect(ofType(h.events, 'run.end')[0]).toMatchObject({ iterations: 0, stopReason: 'answered', answer: 'direct answer (sub)' });
    checkInvariants(h.events);

    // Every event is valid in a native log, and the statistics see one model call and no iterations.
    for (const e of h.events) expect(checkEvent(JSON.parse(JSON.stringify(e)))).toMatchObject({ ok: true });
    const acc = new StatsAccumulator();
    for (const e of h.events) acc.push(e);
    const streamed = acc.result();
    expect(streamed).toMatchObject({ sessions: 1, runs: 1, iterations: 0, codeBlocks: 0, llmCalls: 0, rlmCalls: 0 });
    expect(streamed.inputTokens).toBe(out.usage.inputTokens);
    expect(logStats(reduceEvents(h.events))).toEqual(streamed);
  });

  it('an array context goes as JSON; no query means the context alone', async () => {
    const seen: string[] = [];
    const h = await harness(
      (req) => {
        seen.push(req.messages[0]!.content);
        return 'ok';
      },
      { maxDepth: 0 },
    );
    await h.complete(['a', 'b'], null);
    expect(JSON.parse(seen[0]!)).toEqual(['a', 'b']);
  });

  it('a failing call ends the run with an error and a model.error event', async () => {
    const h = await harness(
      () => {
        throw new Error('model down');
      },
      { maxDepth: 0 },
    );
    const out = await h.complete('c');
    expect(out).toMatchObject({ stopReason: 'error', answer: null, iterations: 0 });
    expect(ofType(h.events, 'model.error')[0]).toMatchObject({ purpose: 'direct', iteration: 0 });
    checkInvariants(h.events);
  });
});

describe('batched-call concurrency', () => {
  const batch = (fn: 'llm_query_batched' | 'rlm_query_batched', n: number): string =>
    repl(`const rs = ${fn}(Array.from({ length: ${n} }, (_, i) => "item " + i)); answer.content = String(rs.length); answer.ready = true;`);
  // A child answers at once, so each child run is one request in flight.
  const policy = (fn: 'llm_query_batched' | 'rlm_query_batched', n: number): Policy =>
    turns((_t, req) => (classify(req).query === null ? repl('answer.content = "child"; answer.ready = true;') : batch(fn, n)));

  it('defaults to the reference: 16 llm_query_batched calls and 4 child runs at once', async () => {
    const llm = await harness(policy('llm_query_batched', 40), {}, { latencyMs: 300 });
    expect((await llm.complete('c')).answer).toBe('40');
    expect(llm.server.stats().maxInFlight).toBe(16);
    const rlm = await harness(policy('rlm_query_batched', 10), { maxDepth: 2 }, { latencyMs: 300 });
    expect((await rlm.complete('c')).answer).toBe('10');
    expect(rlm.server.stats().maxInFlight).toBe(4);
    expect(ofType(rlm.events, 'run.start')[0]!.limits).toMatchObject({ maxConcurrencyLlm: 16, maxConcurrencyRlm: 4 });
  });

  it('maxConcurrency sets both caps and each own cap wins over it', async () => {
    const both = await harness(policy('rlm_query_batched', 6), { maxDepth: 2, maxConcurrency: 2 }, { latencyMs: 300 });
    await both.complete('c');
    expect(both.server.stats().maxInFlight).toBe(2);
    const own = await harness(policy('llm_query_batched', 12), { maxConcurrency: 2, maxConcurrencyLlm: 5 }, { latencyMs: 300 });
    await own.complete('c');
    expect(own.server.stats().maxInFlight).toBe(5);
    expect(ofType(own.events, 'run.start')[0]!.limits).toMatchObject({ maxConcurrencyLlm: 5, maxConcurrencyRlm: 2 });
  });
});

describe("where a child run's llm_query goes", () => {
  // The root spawns a child on another model; the child asks a sub-LM once without naming a model.
  const policy: Policy = (req) => {
    const c = classify(req);
    if (c.kind === 'sub') return `${req.model}:${c.lastUser}`;
    if (c.query === null) return repl('answer.content = llm_query("from child"); answer.ready = true;');
    return repl('answer.content = rlm_query("child task", "mock-llm") + " | " + llm_query("from root"); answer.ready = true;');
  };

  it("by default to the session's sub model; with childLlmModel 'own' to the child's own model, as the reference", async () => {
    const byDefault = await harness(policy, { maxDepth: 2, subModel: 'mock-sub', extraModels: ['mock-llm'] });
    expect((await byDefault.complete('c')).answer).toBe('mock-sub:from child | mock-sub:from root');
    const own = await harness(policy, { maxDepth: 2, subModel: 'mock-sub', extraModels: ['mock-llm'], childLlmModel: 'own' });
    expect((await own.complete('c')).answer).toBe('mock-llm:from child | mock-sub:from root');
    const child = ofType(own.events, 'run.start').find((s) => s.depth === 1)!;
    expect(child.limits.childLlmModel).toBe('own');

    // The prompt says which applies where it describes child runs.
    const rootPrompt = (h: typeof own): string => ofType(h.events, 'run.start')[0]!.messages[0]!.content;
    expect(rootPrompt(byDefault)).toContain("A child RLM's `llm_query` calls go to the same sub-LM as yours.");
    expect(rootPrompt(own)).toContain("A child RLM's `llm_query` calls go to the child's own model");
  });

  it('an invalid routing name is refused before anything runs', async () => {
    await expect(harness(policy, { childLlmModel: 'nearest' as never })).rejects.toThrow(/childLlmModel must be one of sub, own/);
  });
});

describe('what max_errors counts', () => {
  // Every turn writes to stderr without raising, until turn 3 answers.
  const policy = turns((t) => (t < 3 ? repl('console.error("careful: " + 1);') : repl('answer.content = "done"; answer.ready = true;')));

  it("by default only blocks that raised; with 'stderr' any stderr output, as the reference", async () => {
    const thrown = await harness(policy, { maxErrors: 2 });
    expect(await thrown.complete('c')).toMatchObject({ stopReason: 'answered', answer: 'done' });
    const stderr = await harness(policy, { maxErrors: 2, maxErrorsMode: 'stderr' });
    const out = await stderr.complete('c');
    expect(out.stopReason).toBe('max_errors');
    expect(out.message).toMatch(/2 consecutive iterations with errors \(limit 2\); last: careful: 1/);
    expect(ofType(stderr.events, 'run.start')[0]!.limits.maxErrorsMode).toBe('stderr');
  });
});
