// Sub-calls as the model's Python code sees them, next to what the reference's LocalREPL
// returns (probed with its own handler and a failing client): failures come back as strings,
// never raised; a failed batch item fails only its own slot; results keep prompt order. Where
// our strings or argument handling differ, docs/differences.md says so.
import { describe, expect, it } from 'vitest';
import { harness, ofType, repl, turns } from './harness.ts';

/** The prompts the sub-LM was sent, in the order it got them. */
const sent: string[] = [];

/** Runs one Python block that prints `label repr(value)` per probe; the sub-LM fails on prompts containing "bad". */
async function probe(lines: [string, string][]): Promise<Map<string, string>> {
  const code = [
    'def show(label, f):',
    '    try:',
    '        print(label, repr(f()))',
    '    except Exception as e:',
    '        print(label, "RAISED", type(e).__name__, e)',
    ...lines.map(([label, expr]) => `show(${JSON.stringify(label)}, lambda: ${expr})`),
    'answer["content"] = "done"',
    'answer["ready"] = True',
  ].join('\n');
  const h = await harness(
    turns(
      () => repl(code),
      (p) => {
        sent.push(p);
        if (p.includes('bad')) throw new Error('upstream down');
        return `ok:${p}`;
      },
    ),
    { repl: 'python' },
  );
  expect((await h.complete('ctx')).answer).toBe('done');
  const end = ofType(h.events, 'block.end')[0]!;
  expect(end.error).toBeNull();
  const out = new Map<string, string>();
  for (const line of end.stdout.trimEnd().split('\n')) {
    const at = line.indexOf(' ');
    out.set(line.slice(0, at), line.slice(at + 1));
  }
  return out;
}

describe('Python sub-calls: what the code gets back', () => {
  it('a failing endpoint is an "Error: …" string in the slot of the failed prompt, in prompt order', async () => {
    const out = await probe([
      ['single', 'llm_query("bad one")'],
      ['batch', 'llm_query_batched(["a", "bad b", "c", "d", "e"])'],
      ['rlm', 'rlm_query("bad x")'],
      ['rlm_batch', 'rlm_query_batched(["a", "bad", "c"])'],
      ['type', 'type(llm_query("bad")).__name__'],
    ]);
    const failed = /^Error: LM query failed - .*upstream down$/;
    expect(out.get('single')!.slice(1, -1)).toMatch(failed);
    expect(out.get('rlm')!.slice(1, -1)).toMatch(failed);
    expect(out.get('type')).toBe("'str'");
    const batch = out
      .get('batch')!
      .match(/'[^']*'/g)!
      .map((s) => s.slice(1, -1));
    expect(batch).toHaveLength(5);
    expect([batch[0], batch[2], batch[3], batch[4]]).toEqual(['ok:a', 'ok:c', 'ok:d', 'ok:e']);
    expect(batch[1]).toMatch(failed);
    const rlmBatch = out
      .get('rlm_batch')!
      .match(/'[^']*'/g)!
      .map((s) => s.slice(1, -1));
    expect([rlmBatch[0], rlmBatch[2]]).toEqual(['ok:a', 'ok:c']);
    expect(rlmBatch[1]).toMatch(failed);
  });

  it('arguments: the reference accepts any iterable of prompts and str()s what it sends; we refuse a bare string', async () => {
    sent.length = 0;
    const out = await probe([
      ['tuple', 'llm_query_batched(("a", "b"))'],
      ['ints', 'llm_query_batched([1, 2])'],
      ['empty', 'llm_query_batched([])'],
      ['int', 'llm_query(123)'],
      ['string', 'llm_query_batched("abc")'],
      ['none', 'llm_query_batched(None)'],
      ['missing', 'llm_query()'],
      ['model', 'llm_query("a", model="nope")'],
      ['none_prompt', 'llm_query(None)'],
      ['empty_prompt', 'rlm_query("")'],
    ]);
    expect(out.get('tuple')).toBe("['ok:a', 'ok:b']");
    expect(out.get('ints')).toBe("['ok:1', 'ok:2']");
    expect(out.get('empty')).toBe('[]');
    expect(out.get('int')).toBe("'ok:123'");
    // The reference sends "abc" as three prompts and raises TypeError on None.
    expect(out.get('string')).toBe("'Error: prompts must be a list of strings'");
    expect(out.get('none')).toBe("'Error: prompts must be a list of strings'");
    expect(out.get('missing')).toBe("RAISED TypeError llm_query() missing 1 required positional argument: 'prompt'");
    expect(out.get('model')).toBe('\'Error: unknown model "nope"; this run can use: mock-root\'');
    // As the reference: no prompt is an error string, and no call is made (checked below).
    expect(out.get('none_prompt')).toBe('\'Error: the prompt is empty (None or ""); nothing was sent\'');
    expect(out.get('empty_prompt')).toBe(out.get('none_prompt'));
    expect(sent.sort()).toEqual(['1', '123', '2', 'a', 'b']);
  });
});
