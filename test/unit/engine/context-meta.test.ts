import { describe, expect, it } from 'vitest';
import { describeContext } from '../../../src-main/engine/context-meta.ts';
import { buildMetadataMessage } from '../../../src-main/engine/prompts.ts';

describe('describeContext', () => {
  it('describes a string', () => {
    expect(describeContext('hello world!!')).toEqual({ type: 'string', totalChars: 13, chunkLengths: [13] });
  });

  it('describes an array of strings and values', () => {
    expect(describeContext(['ab', 'cde', { k: 1 }])).toEqual({ type: 'array', totalChars: 12, chunkLengths: [2, 3, 7] });
  });

  it('describes an object by its values', () => {
    expect(describeContext({ a: 'xyz', b: [1, 2] })).toEqual({ type: 'object', totalChars: 8, chunkLengths: [3, 5] });
  });
});

describe('buildMetadataMessage', () => {
  it('puts the query first and lists at most 100 chunk lengths', () => {
    const meta = describeContext(Array.from({ length: 150 }, () => 'x'));
    const msg = buildMetadataMessage(meta, 'How many?');
    expect(msg.startsWith('Query: How many?\n\n')).toBe(true);
    expect(msg).toContain('an array of 150 total characters');
    expect(msg).toContain('and 50 more');
    expect(msg.match(/\b1\b/g)?.length).toBe(100);
  });

  it('has no query line for a child run', () => {
    expect(buildMetadataMessage(describeContext('abc'), null)).toMatch(/^Your context is a string of 3 total characters\./);
  });
});
