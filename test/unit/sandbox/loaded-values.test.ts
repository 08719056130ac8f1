// What both Python REPLs keep to load into every interpreter they start: the values, the order a
// fresh interpreter loads them in, and the memory they are given room for.
import { describe, expect, it } from 'vitest';
import { parseJsonContext } from '../../../src-main/sandbox/json-source.ts';
import { LoadedValues } from '../../../src-main/sandbox/python/loaded-values.ts';

describe('LoadedValues', () => {
  it('gives a fresh interpreter contexts and histories by index, then the appended histories in turn, a re-added index replaced', () => {
    const values = new LoadedValues();
    values.addHistory(1, ['h1']);
    values.appendHistory(['a1']);
    values.addContext(2, 'two');
    values.addContext(0, { k: [1, 2] });
    values.addHistory(0, ['h0']);
    values.appendHistory(['a2']);
    values.addContext(2, 'two again');
    expect(values.all()).toEqual([
      { kind: 'context', name: 'context_0', index: 0, json: true, text: '{"k":[1,2]}' },
      { kind: 'context', name: 'context_2', index: 2, json: false, text: 'two again' },
      { kind: 'history', name: 'history_0', index: 0, json: '["h0"]' },
      { kind: 'history', name: 'history_1', index: 1, json: '["h1"]' },
      { kind: 'append', name: 'history', json: '["a1"]' },
      { kind: 'append', name: 'history', json: '["a2"]' },
    ]);
  });

  it('returns the value to load now, as the interpreter loads it', () => {
    const values = new LoadedValues();
    // A context parsed from a file keeps the file's own text (2.0 stays a float in Python).
    expect(values.addContext(3, parseJsonContext('{"x": 2.0}'))).toEqual({
      kind: 'context',
      name: 'context_3',
      index: 3,
      json: true,
      text: '{"x": 2.0}',
    });
    expect(values.addHistory(4, [{ role: 'user', content: 'hi' }])).toEqual({
      kind: 'history',
      name: 'history_4',
      index: 4,
      json: '[{"role":"user","content":"hi"}]',
    });
    expect(values.appendHistory(['m'])).toEqual({ kind: 'append', name: 'history', json: '["m"]' });
  });

  it('makes room for 4 × a text context’s UTF-8 bytes, 8 × JSON text and 8 × each history’s JSON, a replaced value no longer counted', () => {
    const values = new LoadedValues();
    values.addContext(0, 'abcd');
    expect(values.roomBytes()).toBe(16);
    values.addContext(1, { a: 1 });
    expect(values.roomBytes()).toBe(16 + 7 * 8);
    values.addHistory(0, ['x']);
    values.appendHistory(['yy']);
    expect(values.roomBytes()).toBe(16 + 56 + 5 * 8 + 6 * 8);
    values.addContext(0, 'ab');
    expect(values.roomBytes()).toBe(8 + 56 + 40 + 48);
    values.clear();
    expect(values.roomBytes()).toBe(0);
    expect(values.all()).toEqual([]);
  });

  // The Pyodide REPL once counted a text context's UTF-16 length, so its memory limit had too
  // little room for non-ASCII text (a CJK character is 3 UTF-8 bytes the interpreter reads).
  it('counts a non-ASCII context by its UTF-8 bytes, not its characters', () => {
    const values = new LoadedValues();
    values.addContext(0, '中文'); // 2 characters, 6 UTF-8 bytes
    expect(values.roomBytes()).toBe(24);
    values.addContext(0, '😀'); // 2 UTF-16 units, 4 UTF-8 bytes
    expect(values.roomBytes()).toBe(16);
    values.addContext(0, ['é']);
    expect(values.roomBytes()).toBe(Buffer.byteLength('["é"]') * 8);
  });
});
