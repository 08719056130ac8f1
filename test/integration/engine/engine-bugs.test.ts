// Answers that used to be lost or mangled, REPL state that went missing, and timers and set-up
// that went wrong; each test failed before its fix.
import { describe, expect, it } from 'vitest';
import { classify, type Policy } from '../../../src-main/mock-llm/policy.ts';
import { createIsolatedRepl } from '../../../src-main/sandbox/isolated-repl.ts';
import type { SandboxValue } from '../../../src-main/sandbox/types.ts';
import { checkInvariants, harness, ofType, repl, turns } from './harness.ts';

describe('persistent sessions', () => {
  it('after a cancelled completion the next one still has context_0, context and history_k', async () => {
    const policy: Policy = (req) => {
      const c = classify(req);
      if (c.lastUser.includes('context_0 … context_2')) {
        return repl(
          'answer.content = [context, context_0, context_1, context_2, history_0.length > 0, typeof history_1].join("|"); answer.ready = true;',
        );
      }
      return repl('answer.content = "first"; answer.ready = true;');
    };
    const h = await harness(policy, {}, { persistent: true });
    expect((await h.complete('A')).answer).toBe('first');
    const cancelled = new AbortController();
    cancelled.abort();
    expect((await h.complete('B', 'q', cancelled.signal)).stopReason).toBe('cancelled');
    const third = await h.complete('C');
    // The cancelled turn kept its context slot; it left no history.
    expect(third.answer).toBe('A|A|B|C|true|undefined');
    h.session.close();
  });
});

describe('answers', () => {
  it('an answer submitted before the deadline wins over a later block the deadline cuts short', async () => {
    const h = await harness(
      turns(() => `${repl('answer.content = "early"; answer.ready = true;')}\n${repl('while (true) {}')}`),
      { maxTimeoutMs: 1_500, sandbox: { blockCpuMs: 60_000, blockWallMs: 60_000 } },
    );
    const out = await h.complete('c');
    expect(out).toMatchObject({ stopReason: 'answered', answer: 'early' });
    const ends = ofType(h.events, 'block.end');
    expect(ends).toHaveLength(2);
    expect(ends[1]!.error).toMatchObject({ name: 'TimeoutError' });
    expect(ofType(h.events, 'iteration.end')[0]!.finalAnswer).toBe('early');
    checkInvariants(h.events);
  });

  it('an object or array in answer.content is submitted as JSON, not through String()', async () => {
    const h = await harness(
      turns((t) =>
        t === 1
          ? repl('answer.content = {a: 1, b: [2, "x"]}; answer.ready = true;')
          : repl('answer.content = ["a", "b", "c", "d"]; answer.ready = true;'),
      ),
    );
    expect((await h.complete('c')).answer).toBe('{"a":1,"b":[2,"x"]}');
    const arrays = await harness(turns(() => repl('answer = {content: ["a", "b", "c", "d"], ready: true};')));
    expect((await arrays.complete('c')).answer).toBe('["a","b","c","d"]');
    const other = await harness(turns(() => repl('answer.content = 42; answer.ready = true;')));
    expect((await other.complete('c')).answer).toBe('42');
  });
});

describe('limits', () => {
  it('a time limit above 2^31 ms does not fire at once', async () => {
    const h = await harness(
      turns((t) => (t === 1 ? repl('print("looking");') : repl('answer.content = "in time"; answer.ready = true;'))),
      {
        maxTimeoutMs: 2 ** 31 + 60_000,
      },
    );
    expect(await h.complete('c')).toMatchObject({ stopReason: 'answered', answer: 'in time', iterations: 2 });
  });
});

describe('compaction', () => {
  it("the REPL's history holds the run's history from the first turn on and grows every turn", async () => {
    const h = await harness(
      turns((t) =>
        t === 1
          ? repl('var first = history.length; print(first);')
          : t === 2
            ? repl('var second = history.length;')
            : repl('answer.content = [first, second, history.length, history[0].role].join(","); answer.ready = true;'),
      ),
      // A window so large that nothing is compacted: `history` must be current without it.
      { compaction: true, contextWindow: 10_000_000 },
    );
    const out = await h.complete('c');
    const [first, second, third, role] = out.answer!.split(',');
    // system, metadata, turn prompt; then + reply, REPL output, turn prompt each turn.
    expect(Number(first)).toBe(3);
    expect(Number(second)).toBe(6);
    expect(Number(third)).toBe(9);
    expect(role).toBe('system');
    expect(ofType(h.events, 'compaction')).toHaveLength(0);
  });

  it('after a compaction history keeps growing rather than staying a snapshot', async () => {
    const long = 'word '.repeat(400);
    const h = await harness(
      turns((t, req) => {
        const compacted = req.messages.some((m) => m.content.includes('SUMMARY of the work'));
        if (!compacted) return `${long}\n${repl(`print(${t});`)}`;
        if (!req.messages.some((m) => m.content.includes('after-1'))) return repl('var after1 = history.length; print("after-1");');
        return repl('answer.content = String(history.length - after1); answer.ready = true;');
      }),
      { compaction: true, contextWindow: 3000, compactionThreshold: 0.5 },
    );
    const out = await h.complete('c');
    expect(ofType(h.events, 'compaction').length).toBeGreaterThanOrEqual(1);
    // One more turn: the reply, its REPL output and the next turn prompt.
    expect(Number(out.answer)).toBe(3);
  });

  it('each block sends the REPL only the messages that are new, and history is their sum', async () => {
    const sent: SandboxValue[][] = [];
    const h = await harness(
      turns((t) =>
        t < 3 ? repl(`print(${t});`) : repl('answer.content = JSON.stringify(history.map((m) => m.content)); answer.ready = true;'),
      ),
      { compaction: true, contextWindow: 10_000_000 },
      {
        replFactory: async (options) => {
          const inner = await createIsolatedRepl(options);
          return {
            addContext: (i, v) => inner.addContext(i, v),
            addHistory: (i, m) => inner.addHistory(i, m),
            appendHistory: (m) => {
              sent.push(m);
              return inner.appendHistory(m);
            },
            execute: (c, site) => inner.execute(c, site),
            listVariables: () => inner.listVariables(),
            dispose: () => inner.dispose(),
          };
        },
      },
    );
    const out = await h.complete('c');
    // system, metadata, turn prompt; then the reply, its REPL output and the next turn prompt.
    expect(sent.map((m) => m.length)).toEqual([3, 3, 3]);
    const contents = sent.flat().map((m) => (m as { content: string }).content);
    expect(JSON.parse(out.answer!)).toEqual(contents);
    expect(contents[3]).toContain('print(1);');
  });

  it('the first model call goes out before the REPL is set up', async () => {
    let requests = 0;
    let sentFirst: boolean | null = null;
    const h = await harness(
      turns(() => {
        requests++;
        return repl('answer.content = String(history.length); answer.ready = true;');
      }),
      { compaction: true },
      {
        replFactory: async (options) => {
          // Waits for the first request (or gives up after 3 s, as the set-up did when it came first).
          for (let i = 0; i < 300 && requests === 0; i++) await new Promise((r) => setTimeout(r, 10));
          sentFirst = requests > 0;
          return createIsolatedRepl(options);
        },
      },
    );
    const out = await h.complete('c');
    expect(sentFirst).toBe(true);
    expect(out.answer).toBe('3');
  });
});
