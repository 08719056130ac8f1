// Python's json.dump writes NaN, Infinity and -Infinity bare; the reference library's logs
// carry them wherever a variable held such a float.
import { describe, expect, it } from 'vitest';
import { parsePythonJson } from '../../../src-shared/codecs/python-json.ts';

describe('parsePythonJson', () => {
  it('reads the bare words as the floats’ repr, and leaves the same words inside strings alone', () => {
    expect(parsePythonJson('{"a": NaN, "b": [Infinity, -Infinity, 1.5], "c": "NaN and -Infinity \\" NaN", "Infinity": -1}')).toEqual({
      a: 'nan',
      b: ['inf', '-inf', 1.5],
      c: 'NaN and -Infinity " NaN',
      Infinity: -1,
    });
  });

  it('is JSON.parse for JSON, and gives the line’s own error for text that is not JSON either way', () => {
    expect(parsePythonJson('{"x": [1, "y"]}')).toEqual({ x: [1, 'y'] });
    let own = '';
    try {
      JSON.parse('{"a": NaN,}');
    } catch (err) {
      own = (err as Error).message;
    }
    expect(() => parsePythonJson('{"a": NaN,}')).toThrow(own);
    expect(() => parsePythonJson('{"a": Nope}')).toThrow(SyntaxError);
  });
});
