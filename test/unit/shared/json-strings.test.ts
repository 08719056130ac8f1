// Where a JSON string ends: the scanners of JSON text (bare NaN, an object member's text) skip
// strings with it, so an escaped quote or a run of backslashes must not end one early or late.
import { describe, expect, it } from 'vitest';
import { jsonStringEnd } from '../../../src-shared/json-strings.ts';

/** The string JSON.stringify writes for `s`, followed by `rest`: where it ends is known. */
const ends = (s: string, rest = ', 1]'): void => {
  const text = `[${JSON.stringify(s)}${rest}`;
  expect(jsonStringEnd(text, 1)).toBe(1 + JSON.stringify(s).length);
};

describe('jsonStringEnd', () => {
  it('ends at the first quote that no odd run of backslashes escapes', () => {
    ends('');
    ends('plain');
    ends('a "quoted" word');
    ends('ends in a backslash \\');
    ends('two \\\\ and a quote \\"');
    ends('\\\\\\"');
    ends('{"not": ["a", "value"]}');
    ends('NaN, Infinity');
  });

  it('gives the text’s length for a string that never closes', () => {
    expect(jsonStringEnd('"open \\"', 0)).toBe(8);
    expect(jsonStringEnd('"', 0)).toBe(1);
  });
});
