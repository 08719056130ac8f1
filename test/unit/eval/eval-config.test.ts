// DIR/eval.json: written whole when an evaluation starts, checked on every resume, never rewritten.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkConfig, EvalConfigError } from '../../../src-main/eval/eval-config.ts';

const KEY = { dataset: 'abc', model: 'm', repl: 'python' };

function dir(): { dir: string; meta: string } {
  const d = mkdtempSync(join(tmpdir(), 'rlm-eval-config-'));
  return { dir: d, meta: join(d, 'eval.json') };
}

describe('checkConfig', () => {
  it('records a new evaluation in one piece, and accepts the same settings on resume', () => {
    const { dir: d, meta } = dir();
    checkConfig(meta, KEY, 'http://127.0.0.1:1/v1');
    expect(readdirSync(d)).toEqual(['eval.json']);
    expect(JSON.parse(readFileSync(meta, 'utf8'))).toMatchObject({ ...KEY, baseUrl: 'http://127.0.0.1:1/v1' });
    expect(() => checkConfig(meta, KEY, 'http://127.0.0.1:1/v1')).not.toThrow();
  });

  it('refuses other settings, naming what differs', () => {
    const { meta } = dir();
    checkConfig(meta, KEY, 'u');
    expect(() => checkConfig(meta, { ...KEY, model: 'other' }, 'u')).toThrow(
      /records a different evaluation \(model: "m" there, "other" now\)/,
    );
  });

  it.each([
    ['cut off', '{"dataset": "abc", "mo', /is not an evaluation record \(not JSON: /],
    ['empty', '', /is not an evaluation record \(not JSON: /],
    ['not an object', '[1, 2]', /is not an evaluation record \(not a JSON object\)/],
    ['null', 'null', /is not an evaluation record \(not a JSON object\)/],
  ])('names the file when its record is %s, and leaves it as it was', (_what, text, message) => {
    const { meta } = dir();
    writeFileSync(meta, text);
    let err: unknown;
    try {
      checkConfig(meta, KEY, 'u');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EvalConfigError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).toContain(meta);
    expect(readFileSync(meta, 'utf8')).toBe(text);
  });
});
