// Context the root printed escaped (JSON.stringify, Python repr) counts as seen; the largest
// unseen lists leave out trivial gaps (line breaks between printed lines, whitespace).
import { describe, expect, it } from 'vitest';
import { MIN_SPAN_CHARS } from '../../../src-shared/analysis/anchor-index.ts';
import { computeCoverage, largestUnseen, unescapedPrintout } from '../../../src-shared/analysis/coverage.ts';
import { reduceEvents } from '../../../src-shared/trajectory/reducer.ts';
import { makeContext, nativeSession, referenceEvents } from './coverage-sessions.ts';

const { context } = makeContext(400, 200);
const chunk = context.slice(0, 6000);

/** Python's repr of a str (single quotes, \n, \t, \\, \' and \xNN for control characters). */
function pyRepr(s: string): string {
  // eslint-disable-next-line no-control-regex -- repr escapes control characters; that is what is built here
  const body = s.replace(/[\\'\n\r\t\u0000-\u001f]/g, (c) =>
    c === '\\'
      ? '\\\\'
      : c === "'"
        ? "\\'"
        : c === '\n'
          ? '\\n'
          : c === '\r'
            ? '\\r'
            : c === '\t'
              ? '\\t'
              : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
  return `'${body}'`;
}

describe('coverage of escaped printouts', () => {
  it('undoes JSON and repr escapes, and leaves text without any alone', () => {
    expect(unescapedPrintout('plain text')).toBeNull();
    expect(unescapedPrintout(JSON.stringify('a\n"b"\t\\c\u0001é'))).toBe('"a\n"b"\t\\c\u0001é"');
    expect(unescapedPrintout(pyRepr("it's\na\\b\x02"))).toBe("'it's\na\\b\x02'");
  });

  it.each([
    ['JSON.stringify', (s: string) => JSON.stringify(s)],
    ['JSON.stringify of an object', (s: string) => JSON.stringify({ text: s })],
    ['Python repr', pyRepr],
  ])('%s of a context chunk counts as seen by the root', (_, escape) => {
    for (const events of [nativeSession([{ stdout: escape(chunk) }]), referenceEvents([{ stdout: escape(chunk) }])]) {
      const r = computeCoverage(context, reduceEvents(events));
      // All of it: the line breaks too, which the escapes hide from a plain match (the lines alone would miss them).
      expect(r.session.seenByRootChars).toBeGreaterThanOrEqual(chunk.length - 1);
      expect(r.session.unseenChars).toBeLessThanOrEqual(context.length - chunk.length + 1);
    }
  });
});

describe('largestUnseen', () => {
  it('leaves out gaps shorter than a countable copy and whitespace-only gaps, longest first', () => {
    const ctx = `${'a'.repeat(100)}\n${'b'.repeat(100)}${' '.repeat(200)}${'c'.repeat(50)}${'d'.repeat(300)}`;
    const gaps = [
      { start: 100, end: 101 },
      { start: 201, end: 401 },
      { start: 401, end: 451 },
      { start: 451, end: 751 },
      { start: 0, end: MIN_SPAN_CHARS - 1 },
    ];
    expect(largestUnseen(gaps, ctx, 10)).toEqual([
      { start: 451, end: 751 },
      { start: 401, end: 451 },
    ]);
    expect(largestUnseen(gaps, ctx, 1)).toEqual([{ start: 451, end: 751 }]);
  });

  it('a session that printed its lines as a JSON array lists only what it did not print', () => {
    const r = computeCoverage(context, reduceEvents(nativeSession([{ stdout: JSON.stringify(chunk.split('\n')) }])));
    // The line breaks between the printed lines are gaps, but not ones to list.
    expect(r.unseen.filter((u) => u.end <= chunk.length).length).toBeGreaterThan(10);
    // One gap: after the chunk (from its last, cut, line, too short to match).
    const gaps = largestUnseen(r.unseen, context, 10);
    expect(gaps).toHaveLength(1);
    expect(gaps[0]!.end).toBe(context.length);
    expect(gaps[0]!.start).toBeGreaterThan(chunk.length - 100);
  });
});
