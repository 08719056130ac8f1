// The reference log's long `locals` values cut in the raw bytes before parsing: the events
// must be exactly those of the whole lines.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RlmPythonReader } from '../../../src-shared/codecs/rlm-python-import.ts';
import { shortenLocals } from '../../../src-shared/codecs/rlm-python-locals.ts';
import { README_COUNTS, REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';
import { rng } from './fuzz.ts';

const enc = new TextEncoder();

/** Everything the reader yields for `bytes`, with lines parsed whole or lightened (prompt reuse and locals cut). */
function readAll(bytes: Uint8Array, shorten: boolean): { items: unknown[]; saved: number } {
  const text = new TextDecoder().decode(bytes);
  const reader = new RlmPythonReader({ wholeLines: !shorten });
  const items = [...reader.push(text), ...reader.end()];
  let saved = 0;
  if (shorten) for (const line of text.split('\n')) saved += line.length - shortenLocals(line).length;
  return { items, saved };
}

/** JSON as Python's json.dumps writes it (`, ` and `: `), non-ASCII as \\uXXXX escapes when `ascii` (its default). */
function dumps(v: unknown, ascii: boolean): string {
  if (Array.isArray(v)) return `[${v.map((x) => dumps(x, ascii)).join(', ')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${dumps(x, ascii)}`)
      .join(', ')}}`;
  const text = JSON.stringify(v);
  return ascii ? text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : text;
}

const meta = JSON.stringify({ type: 'metadata', root_model: 'm', max_depth: 1, max_iterations: 5, backend: 'openai' });

/** A reference iteration line whose block logged `locals`. */
function iterationLine(locals: unknown, extra: Record<string, unknown> = {}, ascii = false): string {
  return dumps(
    {
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
    },
    ascii,
  );
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

describe('shortenLocals', () => {
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
    const text = shortenLocals(new TextDecoder().decode(bytes));
    expect(text).toContain(`"response": "${long}`);
  });

  it('counts escapes, multi-byte characters and surrogate pairs as the import does', () => {
    const r = rng(7);
    const alphabet = ['a', '\n', '"', '\\', 'é', '中', '😀', '\u0001', '\u2028', ' ', '<', '>'];
    for (let n = 0; n < 40; n++) {
      const pick = (len: number): string => Array.from({ length: len }, () => alphabet[Math.floor(r() * alphabet.length)]).join('');
      // Lengths around the kept prefix (202 units) and the cut threshold (512 bytes).
      const locals = { a: pick(150 + Math.floor(r() * 400)), b: pick(600 + Math.floor(r() * 900)), c: [pick(700), { d: pick(205) }] };
      expectSame(logOf(iterationLine(locals), iterationLine(locals, {}, true)));
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

  it('the one visible difference: a bad character in a cut tail is never seen', () => {
    // A raw tab is not allowed in a JSON string: a whole parse refuses the line, a cut one never sees it.
    const bad = iterationLine({ context: `${'x'.repeat(600)}TAB${'y'.repeat(600)}` }).replace('TAB', '\t');
    const text = [meta, bad].join('\n') + '\n';
    const problems = (r: RlmPythonReader): string => JSON.stringify([...r.push(text), ...r.end()].filter((i) => i.kind === 'problem'));
    expect(problems(new RlmPythonReader())).not.toContain('not valid JSON');
    expect(problems(new RlmPythonReader({ wholeLines: true }))).toContain('not valid JSON');
  });
});
