// Child runs (`rlm_query`) where they go wrong or overlap: the strings the parent's code gets,
// the spawn refused for want of budget or time, a model named for the child, one failing child
// of a batch, and children printing at the same time.
import { describe, expect, it } from 'vitest';
import { classify, type Policy } from '../../../src-main/mock-llm/policy.ts';
import { OUR_PACKS } from '../../../src-main/lm/our-prompt-packs.ts';
import { SLOT_VARIABLES } from '../../../src-main/lm/prompt-pack.ts';
import { createIsolatedRepl } from '../../../src-main/sandbox/isolated-repl.ts';
import { checkInvariants, harness, ofType, repl } from './harness.ts';

/** Root code by `root`; a child (no query) by `child`, given the child's metadata message. */
function tree(root: string, child: (metadata: string) => string): Policy {
  return (req) => {
    const c = classify(req);
    if (c.kind === 'sub') return `leaf(${c.lastUser})`;
    if (c.kind === 'final') return 'final';
    if (c.query === null) return child(req.messages[1]?.content ?? '');
    return repl(root);
  };
}

/** The context a child was given, read back from its metadata message ("… string of N total characters"). */
const childSays =
  (answers: Record<string, string>, fallback: string): ((metadata: string) => string) =>
  (metadata) => {
    for (const [len, code] of Object.entries(answers)) if (metadata.includes(`string of ${len} total characters`)) return repl(code);
    return repl(fallback);
  };

describe('child runs', () => {
  it('a child stopped by a limit gives its parent an error string with the reason', async () => {
    const h = await harness(
      tree('answer.content = rlm_query("bad"); answer.ready = true;', () => repl('null.boom();')),
      { maxDepth: 2, maxErrors: 2 },
    );
    const out = await h.complete('c');
    expect(out.stopReason).toBe('answered');
    // The partial answer: the reply of the turn before the one that tripped the limit.
    expect(out.answer).toMatch(
      /^Error: child RLM stopped \(max_errors\): 2 consecutive iterations with errors .*TypeError.*\. Partial answer: /s,
    );
    const end = ofType(h.events, 'subcall.end')[0]!;
    expect(end.error).toMatch(/^max_errors: /);
    checkInvariants(h.events);
  });

  it("a child whose REPL cannot be set up gives its parent 'Error: child RLM failed'", async () => {
    let made = 0;
    const h = await harness(
      tree('answer.content = rlm_query("p"); answer.ready = true;', () => repl('answer.content = "never"; answer.ready = true;')),
      { maxDepth: 2 },
      {
        replFactory: async (options) => {
          if (made++ > 0) throw new Error('no room for a child isolate');
          return createIsolatedRepl(options);
        },
      },
    );
    const out = await h.complete('c');
    expect(out.answer).toBe('Error: child RLM failed - no room for a child isolate');
    expect(ofType(h.events, 'run.start')).toHaveLength(1);
    expect(ofType(h.events, 'subcall.end')[0]!.error).toBe('no room for a child isolate');
  });

  it('no child is spawned once the budget is spent', async () => {
    const h = await harness(
      tree('answer.content = rlm_query("p"); answer.ready = true;', () => repl('answer.content = "child"; answer.ready = true;')),
      {
        maxDepth: 2,
        maxBudgetUsd: 1e-9,
      },
    );
    const out = await h.complete('c');
    expect(out.answer).toMatch(/^Error: budget exhausted \(spent \$[\d.e-]+ of \$1e-9\)$/);
    expect(ofType(h.events, 'run.start')).toHaveLength(1);
    expect(ofType(h.events, 'subcall.end')[0]!.error).toBe('budget exhausted');
  });

  it('no child is spawned once the time is up', async () => {
    let t0 = 0;
    const h = await harness(
      tree('answer.content = rlm_query("p"); answer.ready = true;', () => repl('answer.content = "child"; answer.ready = true;')),
      {
        maxDepth: 2,
        maxTimeoutMs: 1_000,
        gates: {
          // Holds the thread past the deadline, so the run's timer cannot fire before the spawn checks the time.
          onSubcallStart: async () => {
            while (performance.now() < t0 + 1_200) {
              // busy: no timer may run meanwhile
            }
          },
        },
      },
    );
    t0 = performance.now();
    // Whether the block's answer or the run's timer comes first is a race: only the spawn is checked.
    await h.complete('c');
    const end = ofType(h.events, 'subcall.end')[0]!;
    expect(end.response).toBe('Error: time exhausted before the child run could start');
    expect(end.error).toBe('time exhausted');
    expect(ofType(h.events, 'run.start')).toHaveLength(1);
  });

  it('rlm_query(prompt, model) runs the child on that model', async () => {
    const models: string[] = [];
    const policy: Policy = (req) => {
      const c = classify(req);
      if (c.kind === 'rlm' && c.query === null) {
        models.push(req.model);
        return repl('answer.content = "child on its model"; answer.ready = true;');
      }
      return tree('answer.content = rlm_query("p", "mock-llm"); answer.ready = true;', () => '')(req);
    };
    const h = await harness(policy, { maxDepth: 2, subModel: 'mock-sub', extraModels: ['mock-llm'] });
    expect((await h.complete('c')).answer).toBe('child on its model');
    expect(models).toEqual(['mock-llm']);
    const child = ofType(h.events, 'run.start').find((s) => s.depth === 1)!;
    expect(child.model).toBe('mock-llm');
    expect(ofType(h.events, 'subcall.start')[0]).toMatchObject({ kind: 'rlm', model: 'mock-llm', leaf: false });
  });

  it('rlm_query_batched: one failing child fails only its own slot', async () => {
    // Children told apart by their contexts' lengths: "ok-1" (4), "FAILS" (5), "ok-three" (8).
    const h = await harness(
      tree(
        'const rs = rlm_query_batched(["ok-1", "FAILS", "ok-three"]); answer.content = JSON.stringify(rs); answer.ready = true;',
        childSays(
          { 4: 'answer.content = "one:" + context; answer.ready = true;', 5: 'null.boom();' },
          'answer.content = "three:" + context; answer.ready = true;',
        ),
      ),
      { maxDepth: 2, maxErrors: 1 },
    );
    const out = await h.complete('c');
    const slots = JSON.parse(out.answer!) as string[];
    expect(slots[0]).toBe('one:ok-1');
    expect(slots[1]).toMatch(/^Error: child RLM stopped \(max_errors\)/);
    expect(slots[2]).toBe('three:ok-three');
    const ends = ofType(h.events, 'subcall.end');
    expect(ends.filter((e) => e.error !== null)).toHaveLength(1);
    expect(ofType(h.events, 'subcall.start').map((s) => s.batch?.index)).toEqual([0, 1, 2]);
    checkInvariants(h.events);
  });

  it('children running at once each record only their own output', async () => {
    const child =
      'print("start " + context); llm_query("a " + context); print("middle " + context); llm_query("b " + context); print("end " + context); answer.content = context; answer.ready = true;';
    const h = await harness(
      tree('const rs = rlm_query_batched(["c1", "c2", "c3", "c4"]); answer.content = rs.join(","); answer.ready = true;', () =>
        repl(child),
      ),
      { maxDepth: 2 },
      { latencyMs: 40 },
    );
    expect((await h.complete('c')).answer).toBe('c1,c2,c3,c4');
    const children = ofType(h.events, 'run.start').filter((s) => s.depth === 1);
    expect(children).toHaveLength(4);
    // They overlapped: every child started before any child ended.
    const firstChildEnd = Math.min(
      ...ofType(h.events, 'run.end')
        .filter((e) => e.depth === 1)
        .map((e) => e.seq),
    );
    expect(Math.max(...children.map((c) => c.seq))).toBeLessThan(firstChildEnd);
    for (const start of children) {
      const name = ofType(h.events, 'subcall.start').find((s) => s.childRunId === start.runId)!.prompt;
      const block = ofType(h.events, 'block.end').find((b) => b.runId === start.runId)!;
      expect(block.stdout).toBe(`start ${name}\nmiddle ${name}\nend ${name}\n`);
    }
    checkInvariants(h.events);
  });

  it("the strings a child's failure gives its parent are the prompt pack's", async () => {
    // Our pack with only these slots as markers, so the mock still reads the requests by our texts.
    const slots = ['childStopped', 'childStoppedPartial', 'childFailed', 'childBudgetExhausted'] as const;
    const texts = { ...OUR_PACKS.javascript.texts };
    for (const slot of slots) texts[slot] = `«${slot}»${SLOT_VARIABLES[slot].map((v) => `{${v}}«${v}»`).join('')}`;
    const prompts = { ...OUR_PACKS.javascript, name: 'child-markers', texts };
    const stopped = await harness(
      tree('answer.content = rlm_query("bad"); answer.ready = true;', () => repl('null.boom();')),
      { maxDepth: 2, maxErrors: 2, prompts },
    );
    expect((await stopped.complete('c')).answer).toMatch(
      /^«childStoppedPartial»max_errors«reason»2 consecutive iterations with errors [^«]*«message»[^«]+«answer»$/s,
    );
    let made = 0;
    const failed = await harness(
      tree('answer.content = rlm_query("p"); answer.ready = true;', () => repl('answer.content = "never"; answer.ready = true;')),
      { maxDepth: 2, prompts },
      {
        replFactory: async (options) => {
          if (made++ > 0) throw new Error('no room for a child isolate');
          return createIsolatedRepl(options);
        },
      },
    );
    expect((await failed.complete('c')).answer).toBe('«childFailed»no room for a child isolate«error»');
    const spent = await harness(
      tree('answer.content = rlm_query("p"); answer.ready = true;', () => repl('answer.content = "child"; answer.ready = true;')),
      { maxDepth: 2, maxBudgetUsd: 1e-9, prompts },
    );
    expect((await spent.complete('c')).answer).toMatch(/^«childBudgetExhausted»[\d.e-]+«spent»1e-9«budget»$/);
  });
});
