// The engine in-process, with the real sandbox and the real OpenAI SDK over HTTP to a
// mock-llm whose replies each test scripts.
import { describe, expect, it } from 'vitest';
import type { RunStartEvent } from '../../../src-shared/events.ts';
import { classify, type Policy } from '../../../src-main/mock-llm/policy.ts';
import { checkInvariants, harness, ofType, repl, turns } from './harness.ts';

describe('engine: answers and the loop', () => {
  it('runs every block in order and the first submission wins', async () => {
    const h = await harness(
      turns(
        () =>
          `${repl('answer.content = "first"; answer.ready = true;')}\n${repl('print("second block ran"); answer.content = "second"; answer.ready = true;')}`,
      ),
    );
    const out = await h.complete('ctx');
    expect(out).toMatchObject({ answer: 'first', stopReason: 'answered', iterations: 1 });
    const blocks = ofType(h.events, 'block.end');
    expect(blocks.map((b) => b.stdout)).toEqual(['', 'second block ran\n']);
    checkInvariants(h.events);
  });

  it('feeds each block output back and continues until an answer', async () => {
    const h = await harness(
      turns((t) =>
        t === 1 ? repl('const n = context.length; print("length", n);') : repl('answer.content = `n=${n}`; answer.ready = true;'),
      ),
    );
    const out = await h.complete('x'.repeat(1234));
    expect(out.answer).toBe('n=1234');
    const it1 = ofType(h.events, 'iteration.end')[0]!;
    expect(it1.appended[1]!.content).toContain('length 1234');
    expect(it1.appended[1]!.content).toMatch(/REPL variables: .*\bn\b/);
    const sentSecond = ofType(h.events, 'iteration.start')[1]!;
    expect(sentSecond.historyLength).toBe(6);
  });

  it('a reply without code just continues', async () => {
    const h = await harness(turns((t) => (t < 3 ? 'Thinking about it.' : repl('answer.content = "ok"; answer.ready = true;'))));
    const out = await h.complete('abc');
    expect(out).toMatchObject({ answer: 'ok', iterations: 3 });
    expect(ofType(h.events, 'iteration.end')[0]!.appended).toHaveLength(1);
  });

  it('accepts FINAL(...) and FINAL_VAR(name) when the option is on, and ignores them when off', async () => {
    const script = turns((t) => (t === 1 ? repl('const result = "from-var";') : 'Done.\nFINAL_VAR(result)'));
    const on = await harness(script, { finalPatterns: true });
    expect((await on.complete('c')).answer).toBe('from-var');
    const direct = await harness(
      turns(() => 'FINAL(the answer (really))'),
      { finalPatterns: true },
    );
    expect((await direct.complete('c')).answer).toBe('the answer (really)');
    const off = await harness(
      turns(() => 'FINAL(no)'),
      { maxIterations: 2 },
    );
    expect(await off.complete('c')).toMatchObject({ stopReason: 'max_iterations', answer: 'final answer from text' });
  });
});

describe('engine: sub-calls and recursion', () => {
  it('llm_query_batched keeps input order and one failing item fails only its slot', async () => {
    const h = await harness(
      turns(
        () =>
          repl(
            'const r = llm_query_batched(["a", "FAIL", "c", "d"]); print(JSON.stringify(r)); answer.content = r.join("|"); answer.ready = true;',
          ),
        (p) => {
          if (p === 'FAIL') throw new Error('boom');
          return `echo: ${p}`;
        },
      ),
      { maxConcurrency: 2 },
    );
    const out = await h.complete('c');
    const parts = out.answer!.split('|');
    expect(parts[0]).toBe('echo: a');
    expect(parts[1]).toMatch(/^Error: /);
    expect(parts.slice(2)).toEqual(['echo: c', 'echo: d']);
    const starts = ofType(h.events, 'subcall.start');
    expect(starts.map((s) => s.batch?.index)).toEqual([0, 1, 2, 3]);
    const failed = ofType(h.events, 'subcall.end').filter((e) => e.error !== null);
    expect(failed).toHaveLength(1);
    checkInvariants(h.events);
  });

  it('rlm_query at max depth is a plain call, recorded as a leaf', async () => {
    const h = await harness(
      turns(() => repl('answer.content = rlm_query("leaf prompt"); answer.ready = true;')),
      { maxDepth: 1 },
    );
    const out = await h.complete('c');
    expect(out.answer).toBe('echo: leaf prompt');
    expect(ofType(h.events, 'run.start')).toHaveLength(1);
    expect(ofType(h.events, 'subcall.start')[0]).toMatchObject({ kind: 'rlm', leaf: true, childRunId: null });
  });

  it('spawns child RLMs with their own REPL, tools and inherited limits', async () => {
    const policy: Policy = (req) => {
      const c = classify(req);
      if (c.kind === 'sub') return `leaf(${c.lastUser})`;
      if (c.query === null) {
        // A child: its context is the prompt; it must not see the root's variables or tools.
        return repl('answer.content = `${context}:${typeof rootOnly}:${typeof lookup}:${llm_query("x")}`; answer.ready = true;');
      }
      return repl(
        'var rootOnly = 1; const rs = rlm_query_batched(["p0", "p1", "p2"]); answer.content = rs.join(" / ") + " " + lookup("k") + threshold; answer.ready = true;',
      );
    };
    const h = await harness(policy, {
      maxDepth: 2,
      maxBudgetUsd: 5,
      maxTimeoutMs: 60_000,
      tools: { lookup: { value: async (k) => `found-${String(k)}`, description: 'looks a key up' }, threshold: { value: 7 } },
      subTools: {},
    });
    const out = await h.complete('root context', 'Q?');
    expect(out.answer).toBe('p0:undefined:undefined:leaf(x) / p1:undefined:undefined:leaf(x) / p2:undefined:undefined:leaf(x) found-k7');
    const starts = ofType(h.events, 'run.start');
    const root = starts.find((s) => s.depth === 0)!;
    const children = starts.filter((s) => s.depth === 1);
    expect(children).toHaveLength(3);
    expect(root.messages[0]!.content).toContain('`lookup`: looks a key up');
    expect(root.tools).toEqual(['lookup', 'threshold']);
    for (const child of children) {
      expect(child.tools).toEqual([]);
      expect(child.query).toBeNull();
      expect(child.limits.maxBudgetUsd).toBeLessThanOrEqual(5);
      expect(child.limits.maxTimeoutMs).toBeLessThanOrEqual(60_000);
      expect(child.spawnedBy).toMatchObject({ runId: root.runId, iteration: 1, block: 0 });
    }
    // The session total counts every call once: root turn + 3 child turns + 3 leaf calls.
    expect(out.usage.calls).toBe(7);
    const perCall = [...ofType(h.events, 'model.reply'), ...ofType(h.events, 'subcall.end')];
    expect(out.usage.inputTokens).toBe(perCall.reduce((n, e) => n + e.usage.inputTokens, 0));
    checkInvariants(h.events);
  });

  it('an unknown model name is an error string, not a silent fallback', async () => {
    const h = await harness(
      turns(() => repl('answer.content = llm_query("hi", "gpt-nope"); answer.ready = true;')),
      { subModel: 'mock-sub' },
    );
    const out = await h.complete('c');
    expect(out.answer).toMatch(/^Error: unknown model "gpt-nope"; this run can use: mock-root, mock-sub/);
  });

  it('sub-calls name their model and default to the sub-model', async () => {
    const h = await harness(
      turns(() => repl('llm_query("a"); llm_query("b", "mock-root"); answer.ready = true;')),
      { subModel: 'mock-sub' },
    );
    await h.complete('c');
    expect(ofType(h.events, 'subcall.start').map((s) => s.model)).toEqual(['mock-sub', 'mock-root']);
  });
});

describe('engine: limits and errors', () => {
  it('stops after max consecutive errors with the last error and a partial answer', async () => {
    const h = await harness(
      turns(() => repl('null.boom();')),
      { maxErrors: 2 },
    );
    const out = await h.complete('c');
    expect(out.stopReason).toBe('max_errors');
    expect(out.message).toMatch(/2 consecutive.*TypeError/);
    expect(out.answer).toContain('null.boom()');
    expect(ofType(h.events, 'limit')[0]).toMatchObject({ limit: 'max_errors' });
  });

  it('a clean turn resets the consecutive error count', async () => {
    const h = await harness(
      turns((t) =>
        t === 4 ? repl('answer.content = "done"; answer.ready = true;') : t % 2 === 1 ? repl('null.boom();') : repl('print("fine");'),
      ),
      { maxErrors: 2 },
    );
    expect(await h.complete('c')).toMatchObject({ stopReason: 'answered', answer: 'done' });
  });

  it('cancellation aborts the in-flight HTTP call at once', async () => {
    const h = await harness(
      turns(() => 'never'),
      {},
      { latencyMs: 30_000 },
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const out = await h.complete('c', 'q', controller.signal);
    expect(out.stopReason).toBe('cancelled');
    expect(out.durationMs).toBeLessThan(10_000);
    await new Promise((r) => setTimeout(r, 100));
    expect(h.server.stats().aborted).toBeGreaterThanOrEqual(1);
    expect(ofType(h.events, 'run.end')[0]).toMatchObject({ stopReason: 'cancelled' });
  });

  it('a model that keeps failing ends the run with an error stop', async () => {
    const h = await harness(() => {
      throw new Error('model down');
    });
    const out = await h.complete('c');
    expect(out.stopReason).toBe('error');
    expect(out.message).toMatch(/model down|500/);
    expect(ofType(h.events, 'model.error')).toHaveLength(1);
  });

  it('an infinite loop ends its block, the REPL restarts with the context and the model is told', async () => {
    const h = await harness(
      turns((t) =>
        t === 1
          ? repl('var kept = 1; while (true) {}')
          : t === 2
            ? repl('print(typeof kept, context.length);')
            : repl('answer.content = "recovered"; answer.ready = true;'),
      ),
      { sandbox: { blockCpuMs: 300 } },
    );
    const out = await h.complete('y'.repeat(500));
    expect(out.answer).toBe('recovered');
    const first = ofType(h.events, 'block.end')[0]!;
    expect(first.error).not.toBeNull();
    expect(first.replReset).toBe('cpu_limit');
    expect(ofType(h.events, 'repl.reset')).toHaveLength(1);
    expect(ofType(h.events, 'iteration.end')[0]!.appended[1]!.content).toMatch(/variables are gone/);
    expect(ofType(h.events, 'block.end')[1]!.stdout).toBe('undefined 500\n');
  });
});

describe('engine: sessions, compaction, gates', () => {
  it('a persistent session keeps one REPL; contexts and histories accumulate', async () => {
    const policy: Policy = (req) => {
      const c = classify(req);
      if (c.lastUser.includes('context_0 … context_2')) {
        return repl(
          'seen.push(context_2); answer.content = seen.join("+") + "|" + history_1.length + "|" + (history === history_0); answer.ready = true;',
        );
      }
      if (c.lastUser.includes('context_0 … context_1')) {
        return repl('seen.push(context_1); answer.content = seen.join("+") + "|" + history.length; answer.ready = true;');
      }
      return repl('var seen = [context]; answer.content = "first"; answer.ready = true;');
    };
    const h = await harness(policy, {}, { persistent: true });
    expect((await h.complete('A')).answer).toBe('first');
    const second = await h.complete('B');
    expect(second.answer).toMatch(/^A\+B\|\d+$/);
    expect(Number(second.answer!.split('|')[1])).toBeGreaterThanOrEqual(4);
    const third = await h.complete('C');
    expect(third.answer).toMatch(/^A\+B\+C\|\d+\|true$/);
    const roots = ofType(h.events, 'run.start');
    expect(roots.map((r) => r.turn)).toEqual([0, 1, 2]);
    h.session.close();
  });

  it('a non-persistent session starts every completion with a fresh REPL', async () => {
    const h = await harness(turns(() => repl('answer.content = typeof leftover; var leftover = 1; answer.ready = true;')));
    expect((await h.complete('a')).answer).toBe('undefined');
    expect((await h.complete('b')).answer).toBe('undefined');
  });

  it('compacts the root history near the window, keeps the full history in the REPL and goes on', async () => {
    const long = 'word '.repeat(400);
    const h = await harness(
      turns((t, req) => {
        const compacted = req.messages.some((m) => m.content.includes('SUMMARY of the work'));
        if (compacted) return repl('answer.content = "after compaction, history has " + history.length; answer.ready = true;');
        return `${long}\n${repl(`print(${t});`)}`;
      }),
      // Half the window holds the system prompt (~1,100 tokens) and a turn, so the first long reply tips it over.
      { compaction: true, contextWindow: 3000, compactionThreshold: 0.5 },
    );
    const out = await h.complete('c');
    expect(out.stopReason).toBe('answered');
    const compactions = ofType(h.events, 'compaction');
    expect(compactions).toHaveLength(1);
    expect(compactions[0]!.messages).toHaveLength(4);
    expect(compactions[0]!.tokensBefore).toBeGreaterThanOrEqual(1000);
    expect(Number(/has (\d+)/.exec(out.answer!)![1])).toBeGreaterThan(6);
    expect(ofType(h.events, 'model.reply').filter((r) => r.purpose === 'compaction')).toHaveLength(1);
  });

  it('a gate can edit a block before it runs; the log keeps both texts', async () => {
    const h = await harness(
      turns(() => repl('answer.content = "original"; answer.ready = true;')),
      {
        gates: {
          afterReply: async () => ({ blocks: { 0: 'answer.content = "edited"; answer.ready = true;' } }),
        },
      },
    );
    const out = await h.complete('c');
    expect(out.answer).toBe('edited');
    const start = ofType(h.events, 'block.start')[0]!;
    expect(start.code).toContain('"edited"');
    expect(start.edited).toEqual({ original: 'answer.content = "original"; answer.ready = true;', byHand: true });
  });

  it('rejects a tool with a reserved name before anything runs', async () => {
    await expect(
      harness(
        turns(() => ''),
        { tools: { llm_query: { value: 1 } } },
      ),
    ).rejects.toThrow(/reserved names: llm_query/);
  });

  it('records the run configuration in run.start', async () => {
    const h = await harness(
      turns(() => repl('answer.ready = true;')),
      { maxIterations: 7, maxDepth: 3, maxConcurrency: 5 },
    );
    await h.complete(['a', 'bb'], 'what?');
    const start = h.events[0] as RunStartEvent;
    expect(start).toMatchObject({
      type: 'run.start',
      query: 'what?',
      context: { type: 'array', totalChars: 3, chunkLengths: [1, 2] },
      limits: { maxIterations: 7, maxDepth: 3, maxConcurrencyLlm: 5, maxConcurrencyRlm: 5, maxErrorsMode: 'thrown', childLlmModel: 'sub' },
    });
    expect(start.messages[1]!.content.startsWith('Query: what?')).toBe(true);
  });
});
