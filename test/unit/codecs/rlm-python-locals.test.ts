// The reference log's long `locals` values cut in the raw bytes before parsing: the events
// must be exactly those of the whole lines.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AnyLogReader } from '../../../src-shared/codecs/detect.ts';
import { LocalsShortener } from '../../../src-shared/codecs/rlm-python-locals.ts';
import { README_COUNTS, REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';
import { rng } from './fuzz.ts';

const enc = new TextEncoder();

/** Everything the reader yields for `bytes`, fed in whole-line chunks of about `chunk` bytes. */
function readAll(bytes: Uint8Array, shorten: boolean, chunk = 64 * 1024): { items: unknown[]; saved: number } {
  // Every line looked at (by default only long ones are).
  const sh = new LocalsShortener(0);
  const dec = new TextDecoder();
  const reader = new AnyLogReader();
  const items: unknown[] = [];
  let at = 0;
  while (at < bytes.length) {
    let end = bytes.lastIndexOf(10, Math.min(bytes.length, at + chunk) - 1) + 1;
    if (end <= at) end = bytes.indexOf(10, at) + 1 || bytes.length;
    const part = bytes.subarray(at, end);
    items.push(...reader.push(dec.decode(shorten ? sh.shorten(part) : part, { stream: true })));
    at = end;
  }
  items.push(...reader.end());
  return { items, saved: sh.saved };
}

const meta = JSON.stringify({ type: 'metadata', root_model: 'm', max_depth: 1, max_iterations: 5, backend: 'openai' });

/** A reference iteration line whose block logged `locals`. */
function iterationLine(locals: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: 'iteration',
    iteration: 1,
    timestamp: '2025-01-01T00:00:00.000000',
    prompt: [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'go' },
    ],
    response: '```repl\nx = 1\n```',
    code_blocks: [{ code: 'x = 1', result: { stdout: '', stderr: '', locals, execution_time: 0.1, rlm_calls: [] } }],
    final_answer: null,
    iteration_time: 0.5,
    ...extra,
  });
}

function logOf(...lines: string[]): Uint8Array {
  return enc.encode([meta, ...lines].join('\n') + '\n');
}

function expectSame(bytes: Uint8Array): number {
  const whole = readAll(bytes, false);
  const short = readAll(bytes, true);
  expect(short.items).toEqual(whole.items);
  return short.saved;
}

describe('LocalsShortener', () => {
  it('looks only at long lines by default', () => {
    const small = logOf(iterationLine({ context: 'x'.repeat(5000) }));
    expect(new LocalsShortener().shorten(small)).toBe(small);
    const big = logOf(iterationLine({ context: 'x'.repeat(200_000) }));
    expect(new LocalsShortener().shorten(big).length).toBeLessThan(1000);
  });

  it.each(Object.keys(README_COUNTS))('gives the same events as the whole lines for the reference fixture %s', (name) => {
    const bytes = readFileSync(join(REFERENCE_FIXTURES, `${name}.jsonl`));
    expectSame(bytes);
  });

  it('cuts long values inside locals, nested ones included, and nothing outside', () => {
    const long = 'x'.repeat(5000);
    const bytes = logOf(
      iterationLine(
        { context: long, parts: [long, 'short', long], nested: { deep: { text: long } }, answer: { content: long, ready: false } },
        { response: `${long}\n\`\`\`repl\nprint(1)\n\`\`\`` },
      ),
    );
    const saved = expectSame(bytes);
    // Five long values in locals cut; the response (outside locals) kept whole.
    expect(saved).toBeGreaterThan(5 * 4500);
    expect(saved).toBeLessThan(5 * 5000);
    const text = new TextDecoder().decode(new LocalsShortener(0).shorten(bytes));
    expect(text).toContain(`"response":"${long}`);
  });

  it('counts escapes, multi-byte characters and surrogate pairs as the import does', () => {
    const r = rng(7);
    const alphabet = ['a', '\n', '"', '\\', 'é', '中', '😀', '\u0001', '\u2028', ' ', '<', '>'];
    for (let n = 0; n < 40; n++) {
      const pick = (len: number): string => Array.from({ length: len }, () => alphabet[Math.floor(r() * alphabet.length)]).join('');
      // Lengths around the kept prefix (202 units) and the cut threshold (512 bytes).
      const locals = { a: pick(150 + Math.floor(r() * 400)), b: pick(600 + Math.floor(r() * 900)), c: [pick(700), { d: pick(205) }] };
      expectSame(logOf(iterationLine(locals)));
    }
  });

  it('leaves values starting with "<" whole (the import drops object reprs by their last character)', () => {
    const repr = `<module 'big' from '${'p'.repeat(3000)}'>`;
    const html = `<html lang="en">${'y'.repeat(3000)}</html>`;
    const bytes = logOf(iterationLine({ m: repr, page: html, plain: 'z'.repeat(3000) }));
    const saved = expectSame(bytes);
    expect(saved).toBeGreaterThan(2000);
    expect(saved).toBeLessThan(3000);
  });

  it('is not fooled by "locals" inside strings, a null locals, or keys named locals inside locals', () => {
    const long = 'q'.repeat(4000);
    const lines = [
      iterationLine(null, { response: `"locals": {"x": "${long}"}`, note: long }),
      iterationLine({ locals: { inner: long }, after: long }),
      iterationLine({ a: 1 }, { code_blocks_extra: [{ locals: null }, { other: long }] }),
    ];
    expectSame(logOf(...lines));
  });

  it('passes malformed and cut-off lines through, so the reader reports the same problems', () => {
    const long = 'w'.repeat(3000);
    const good = iterationLine({ context: long });
    const cut = good.slice(0, good.length - 900);
    const bytes = enc.encode([meta, good, '{"type": "iteration", "code_blocks": [{"result": {"locals": {"x": "' + long, cut].join('\n'));
    expectSame(bytes);
  });
});
