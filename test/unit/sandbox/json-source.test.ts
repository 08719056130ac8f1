import { describe, expect, it } from 'vitest';
import { jsonSourceOf, memberTextOf, parseJsonContext } from '../../../src-main/sandbox/json-source.ts';

describe('memberTextOf', () => {
  it('gives a member value as written, numbers and spacing kept', () => {
    const line = '{"id": "a", "context": {"x": 2.0, "big": 12345678901234567890, "s": [1e400, -0.0]} , "query": "q"}';
    expect(memberTextOf(line, 'context')).toBe('{"x": 2.0, "big": 12345678901234567890, "s": [1e400, -0.0]}');
    expect(memberTextOf(line, 'id')).toBe('"a"');
    expect(memberTextOf(line, 'query')).toBe('"q"');
    expect(memberTextOf(line, 'missing')).toBeUndefined();
  });

  it('is not misled by brackets, quotes and backslashes inside strings, or an escaped key', () => {
    const context = '["a \\"}]{[ b", "c\\\\", {"k": "]"}, 3.50]';
    const line = `{"note": "\\"context\\": [9]", "\\u0063ontext": ${context}, "n": 1}`;
    expect(JSON.parse(memberTextOf(line, 'context')!)).toEqual(JSON.parse(line).context);
    expect(memberTextOf(line, 'context')).toBe(context);
    expect(memberTextOf(line, 'n')).toBe('1');
  });

  it('takes the last of a repeated key, as JSON.parse does, and nothing from a non-object', () => {
    expect(memberTextOf('{"c": [1.0], "c": [2.0]}', 'c')).toBe('[2.0]');
    expect(memberTextOf('[{"c": 1}]', 'c')).toBeUndefined();
    expect(memberTextOf('\n\t{ }', 'c')).toBeUndefined();
  });

  it('gives parseJsonContext a text to remember', () => {
    const text = memberTextOf('{"context":{"x":2.0}}', 'context')!;
    const value = parseJsonContext(text);
    expect(value).toEqual({ x: 2 });
    expect(jsonSourceOf(value)).toBe('{"x":2.0}');
  });
});
