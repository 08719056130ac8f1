import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_DEPTH, nestsDeeperThan } from '../../../src-main/transport/message-guard.ts';

const bytes = (s: string) => Buffer.from(s);

describe('nestsDeeperThan: nesting counted before parsing', () => {
  it('counts arrays and objects inside one another', () => {
    expect(nestsDeeperThan(bytes('{"a":[{"b":[1]}]}'), 4)).toBe(false);
    expect(nestsDeeperThan(bytes('{"a":[{"b":[1]}]}'), 3)).toBe(true);
    expect(nestsDeeperThan(bytes('[[],[],[],[]]'), 2)).toBe(false);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(nestsDeeperThan(bytes(JSON.stringify({ t: '[[[[[[{{{{', u: 'say \\"[[[[\\"' })), 1)).toBe(false);
    expect(nestsDeeperThan(bytes(JSON.stringify(['a"[[[', ['b']])), 2)).toBe(false);
  });

  it('refuses 20 MB of brackets at the first level past the limit', () => {
    const half = 10 * 1024 * 1024;
    expect(nestsDeeperThan(bytes(`${'['.repeat(half)}${']'.repeat(half)}`), MAX_MESSAGE_DEPTH)).toBe(true);
  });

  it('passes every command shape the page sends (a run with breakpoints and a JSON context)', () => {
    const command = {
      id: 7,
      command: {
        type: 'session.start',
        params: { context: { kind: 'json', json: '[[[[1]]]]' }, breakpoints: [{ kind: 'before_model_call', depths: [1] }], limits: {} },
      },
    };
    expect(nestsDeeperThan(bytes(JSON.stringify(command)), MAX_MESSAGE_DEPTH)).toBe(false);
  });
});
