// bench/cli-vs-reference.ts compares us with the reference library only on runs that did the
// same work; checkWork is that check, made on every run from what the mock received.
import { describe, expect, it } from 'vitest';
import { checkWork, modelSeconds, withoutHugePageMalloc, type Arrival } from '../../../bench/cli-vs-reference.ts';

const needle = { name: '4 MB needle', chars: 4_000_030, expect: '6409933', turns: 3, subCalls: 0 };
const side = { name: 'reference', model: 'mock-root-py' };
const turn = (text: string, model = side.model): Arrival => ({ at: 0, kind: 'rlm', model, text });
const sub = (text: string): Arrival => ({ at: 0, kind: 'sub', model: side.model, text });
const good = [turn(''), turn('REPL output:\nstr 4000030\nThe magic...'), turn('REPL output:\nstr 4000030')];

describe('the same-work check of the side-by-side bench', () => {
  it('passes a run with the right requests, context length and answer, and returns its sub-call prompts in order', () => {
    expect(checkWork(needle, side, { answer: '6409933', calls: 3 }, good)).toEqual([]);
    const agg = { ...needle, name: 'aggregation', turns: 1, subCalls: 2, chars: 10 };
    expect(checkWork({ ...agg, turns: 2 }, side, { answer: '6409933', calls: 4 }, [turn(''), sub('b'), sub('a'), turn('10')])).toEqual([
      'a',
      'b',
    ]);
  });

  it('rejects a wrong answer, a call count that differs, a context of another size, or the other side’s turns', () => {
    expect(() => checkWork(needle, side, { answer: '1', calls: 3 }, good)).toThrow(/answer "1", not 6409933/);
    expect(() => checkWork(needle, side, { answer: '6409933', calls: 4 }, [...good, sub('x')])).toThrow(/3 turns and 1 sub-calls/);
    expect(() => checkWork(needle, side, { answer: '6409933', calls: 2 }, good)).toThrow(/counted 2 calls/);
    const shorter = [turn(''), turn('str 400003'), turn('')];
    expect(() => checkWork(needle, side, { answer: '6409933', calls: 3 }, shorter)).toThrow(/did not print a context of 4000030/);
    const mixed = [good[0]!, good[1]!, turn('', 'mock-root')];
    expect(() => checkWork(needle, side, { answer: '6409933', calls: 3 }, mixed)).toThrow(/other side’s model/);
  });
});

describe('the reference as its users run it', () => {
  it('runs without a hugetlb tunable the bench was started with, keeping the others', () => {
    expect(withoutHugePageMalloc({ A: '1', GLIBC_TUNABLES: 'glibc.malloc.hugetlb=1' })).toEqual({ A: '1' });
    expect(withoutHugePageMalloc({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1' })).toEqual({
      GLIBC_TUNABLES: 'glibc.malloc.arena_max=2',
    });
    expect(withoutHugePageMalloc({ A: '1' })).toEqual({ A: '1' });
  });
});

describe('the model time an overhead is measured against', () => {
  it('counts the calls on the critical path at 300 ms, a batch in waves of the side’s cap', () => {
    const aggregation = { turns: 3, subCalls: 18, batch: 17 };
    // 3 turns, the batch of 17 in two waves of at most 16, and the combining call.
    expect(modelSeconds(aggregation, 16)).toBeCloseTo(1.8);
    // The batch at once: the floor.
    expect(modelSeconds(aggregation, 32)).toBeCloseTo(1.5);
    expect(modelSeconds({ turns: 3, subCalls: 0, batch: 0 }, 16)).toBeCloseTo(0.9);
  });
});
