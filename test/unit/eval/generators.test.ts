// Generators are deterministic per seed, hit their size, and their expected answers agree
// with the data (recomputed here independently of the generator's bookkeeping).
import { describe, expect, it } from 'vitest';
import { generateTask, parseSizes, TASK_KINDS } from '../../../src-main/eval/tasks/index.ts';
import { labelQuestion, LABELS } from '../../../src-main/eval/tasks/questions.ts';
import { qualifyingPairs } from '../../../src-main/eval/tasks/oolong.ts';
import { FACTS, type BrowseDoc } from '../../../src-main/eval/tasks/browsecomp.ts';

const text = (c: unknown): string => (typeof c === 'string' ? c : JSON.stringify(c));

describe('task generators', () => {
  it.each(TASK_KINDS)('%s: same seed → same task, other seed → other task', (kind) => {
    const a = generateTask(kind, 8192, 5);
    const b = generateTask(kind, 8192, 5);
    const c = generateTask(kind, 8192, 6);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(text(c.context)).not.toBe(text(a.context));
  });

  it.each(TASK_KINDS)('%s: about 4 characters per token, at 2^13 and 2^16', (kind) => {
    for (const size of [2 ** 13, 2 ** 16]) {
      const chars = text(generateTask(kind, size, 1).context).length;
      expect(chars).toBeGreaterThan(size * 4 * 0.9);
      expect(chars).toBeLessThan(size * 4 * 1.15);
    }
  });

  it('sniah: exactly one needle for the asked key, decoys for others', () => {
    const t = generateTask('sniah', 8192, 3);
    const key = /for the (\S+) vault\?/.exec(t.query)![1]!;
    const all = [...(t.context as string).matchAll(/special passcode for the (\S+) vault is (\d+)\./g)];
    expect(all.filter((m) => m[1] === key).map((m) => m[2])).toEqual([t.expected]);
    expect(all.length).toBe(4);
  });

  it('oolong: every record has a readable label and the count matches', () => {
    const t = generateTask('oolong', 8192, 2);
    const label = /classified as "([^"]+)"/.exec(t.query)![1];
    const labels = (t.context as string).split('\n').map((l) => labelQuestion(l.split('Instance: ')[1] ?? ''));
    expect(labels.every((l) => l !== null && (LABELS as readonly string[]).includes(l))).toBe(true);
    expect(labels.filter((l) => l === label).length).toBe(t.expected);
    expect(t.context).not.toMatch(/label/i);
  });

  it('oolong-pairs: the expected pairs follow from the records', () => {
    const t = generateTask('oolong-pairs', 8192, 4);
    const [a, b] = [...t.query.matchAll(/labelled "([^"]+)"/g)].map((m) => m[1]);
    const withA = new Set<number>();
    const withB = new Set<number>();
    for (const line of (t.context as string).split('\n')) {
      const user = Number(/User: (\d+)/.exec(line)![1]);
      const label = labelQuestion(line.split('Instance: ')[1]!);
      if (label === a) withA.add(user);
      if (label === b) withB.add(user);
    }
    expect(t.expected).toEqual(qualifyingPairs(withA, withB));
    expect((t.expected as string[]).length).toBeGreaterThan(0);
    expect(qualifyingPairs(new Set([1, 2]), new Set([2, 3]))).toEqual(['1,2', '1,3', '2,3']);
  });

  it('browsecomp: the three hops are each in one document and lead to the expected city', () => {
    const t = generateTask('browsecomp', 8192, 7);
    const docs = t.context as unknown as BrowseDoc[];
    const product = /product "([^"]+)"/.exec(t.query)![1]!;
    const find = (re: RegExp): string[] => docs.flatMap((d) => [...d.text.matchAll(re)].map((m) => m[1]!));
    const makers = find(new RegExp(`${product} is an? [^.]*? manufactured by ([^.]+)\\.`, 'g'));
    expect(makers).toHaveLength(1);
    const acquirers = find(new RegExp(`${makers[0]} was acquired by ([^.]+)\\.`, 'g'));
    expect(acquirers).toHaveLength(1);
    expect(find(new RegExp(`${acquirers[0]} is headquartered in ([^.]+)\\.`, 'g'))).toEqual([t.expected]);
    expect(docs.filter((d) => d.text.includes(product)).length).toBeGreaterThan(1);
    expect(FACTS.hq('X', 'Y')).toBe('X is headquartered in Y.');
  });

  it('parses sizes', () => {
    expect(parseSizes('2^13..2^15')).toEqual([8192, 16384, 32768]);
    expect(parseSizes('8192, 64k,1m')).toEqual([8192, 65536, 1048576]);
    expect(() => parseSizes('lots')).toThrow(/lots/);
    expect(() => parseSizes('2^16..2^13')).toThrow(/empty/);
    // Bounded (issue 40): 2^40 ran for minutes, then died out of memory.
    expect(parseSizes('2^24')).toEqual([2 ** 24]);
    expect(() => parseSizes('2^25')).toThrow(/"2\^25" is larger than the largest eval-gen makes, 2\^24 tokens/);
    expect(() => parseSizes('16777217')).toThrow(/larger than the largest/);
    expect(() => parseSizes('2^100')).toThrow(/larger than the largest/);
    expect(() => parseSizes('2^13..2^1000000')).toThrow(/"2\^1000000" is larger/);
  });
});
