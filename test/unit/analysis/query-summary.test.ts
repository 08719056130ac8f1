import { describe, expect, it } from 'vitest';
import { querySummary } from '../../../src-shared/analysis/query-summary.ts';
import type { QueryMatch } from '../../../src-shared/analysis/query.ts';

const match = (file: string, target: string): QueryMatch => ({ file, sessionId: null, target, kind: 'run', what: target, at: null });

describe('querySummary (issue 40: the sessions with matches, of those searched)', () => {
  it('counts the sessions that matched apart from the sessions searched', () => {
    expect(
      querySummary({ sessions: 40, matches: [match('a.jsonl', 'run:r1'), match('a.jsonl', 'run:r2'), match('a.jsonl', 'run:r3')] }),
    ).toBe('3 match(es) in 1 of 40 session(s) searched');
    expect(querySummary({ sessions: 2, matches: [match('a.jsonl', 'session'), match('b.jsonl', 'session')] })).toBe(
      '2 match(es) in 2 of 2 session(s) searched',
    );
    expect(querySummary({ sessions: 5, matches: [] })).toBe('0 match(es) in 0 of 5 session(s) searched');
  });
});
