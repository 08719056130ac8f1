import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { schemaProblems } from '../../../src-shared/schema-problems.ts';

const Line = z.strictObject({
  id: z.string(),
  expected: z.union([z.string(), z.number()]),
  scorer: z.enum(['exact', 'numeric']),
  nested: z.object({ size: z.number().int() }).optional(),
});

describe('schemaProblems', () => {
  it('says which fields are missing, with or without the input reported', () => {
    const reported = Line.safeParse({ nested: { size: 1.5 }, extra: 1 }, { reportInput: true });
    expect(reported.success).toBe(false);
    expect(schemaProblems(reported.error!)).toEqual([
      'id: missing (a string)',
      'expected: missing',
      'scorer: missing',
      'nested.size: Invalid input: expected int, received number',
      'Unrecognized key: "extra"',
    ]);
    // Without the input, a missing plain field is still told from zod's own words.
    const bare = Line.safeParse({ expected: 1, scorer: 'exact' });
    expect(schemaProblems(bare.error!)).toEqual(['id: missing (a string)']);
  });

  it("keeps zod's words for a value of the wrong kind", () => {
    const r = Line.safeParse({ id: 3, expected: 'x', scorer: 'fuzzy' }, { reportInput: true });
    expect(schemaProblems(r.error!)).toEqual([
      'id: Invalid input: expected string, received number',
      'scorer: Invalid option: expected one of "exact"|"numeric"',
    ]);
  });
});
