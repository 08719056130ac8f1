import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { registerStats } from '../../../src-main/cli/commands/stats.ts';
import { registerConvert } from '../../../src-main/cli/commands/convert.ts';
import { UsageError } from '../../../src-main/cli/errors.ts';
import { README_COUNTS, REFERENCE_FIXTURES as FIXTURES } from '../../support/reference-fixtures.ts';
import { type InProcessResult, runInProcess } from '../support/in-process-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlm-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** Runs `rlm-studio <args>` in-process; returns stdout, stderr and the error thrown, if any. */
const cli = (...args: string[]): Promise<InProcessResult> => runInProcess([registerStats, registerConvert], args);

const KEYS = [
  'sessions',
  'runs',
  'maxDepth',
  'iterations',
  'codeBlocks',
  'llmCalls',
  'rlmCalls',
  'errors',
  'inputTokens',
  'outputTokens',
  'cachedInputTokens',
  'reasoningTokens',
  'costUsd',
  'wallMs',
  'retries',
  'cutReplies',
];

describe('rlm-studio stats', () => {
  for (const [name, want] of Object.entries(README_COUNTS)) {
    it(`--json on ${name}`, async () => {
      const r = await cli('stats', join(FIXTURES, `${name}.jsonl`), '--json');
      expect(r.error).toBeNull();
      const o = JSON.parse(r.out) as Record<string, number>;
      // Today's keys first, in order; the policy metrics come after them.
      expect(Object.keys(o).slice(0, KEYS.length + 1)).toEqual([...KEYS, 'byModel']);
      // A cost no call recorded a price for is unknown: null, not 0.
      for (const k of KEYS) expect(k === 'costUsd' ? o[k] === null || typeof o[k] === 'number' : typeof o[k] === 'number').toBe(true);
      expect([o['runs'], o['maxDepth'], o['iterations'], o['codeBlocks'], o['llmCalls'], o['rlmCalls']]).toEqual(want);
      expect(o['sessions']).toBe(1);
    });
  }

  it('--json gives usage per model beside the totals (g_openai_http: a second model for sub-calls)', async () => {
    const r = await cli('stats', join(FIXTURES, 'g_openai_http.jsonl'), '--json');
    const o = JSON.parse(r.out) as {
      inputTokens: number;
      byModel: Record<string, { inputTokens: number; outputTokens: number; calls: number; costUsd: number | null }>;
    };
    // The reference never logs the root's own usage: its turns count as calls with no tokens and no known cost.
    expect(o.byModel).toEqual({
      'mock-root': { inputTokens: 0, outputTokens: 0, calls: 3, costUsd: null },
      'mock-sub': { inputTokens: 38, outputTokens: 5, calls: 1, costUsd: 0.000086 },
    });
    expect(o.inputTokens).toBe(38);
    const table = await cli('stats', join(FIXTURES, 'g_openai_http.jsonl'));
    expect(table.out).toMatch(/per model[^\n]*\n\s+mock-root\s+3\s+0\s+0\s+unknown\n\s+mock-sub\s+1\s+38\s+5\s+0\.000086/);
  });

  it('prints a readable table without --json', async () => {
    const r = await cli('stats', join(FIXTURES, 'e_code_errors.jsonl'));
    expect(r.out).toMatch(/format: rlm-python/);
    expect(r.out).toMatch(/code blocks that raised\s+2/);
  });

  it('malformed input: non-zero (UsageError) naming the line and the problem', async () => {
    const lines = readFileSync(join(FIXTURES, 'a_needle.jsonl'), 'utf8').split('\n');
    lines.splice(2, 0, '{"type": "iteration", "iteration": 2, oops');
    const p = join(dir, 'bad.jsonl');
    writeFileSync(p, lines.join('\n'));
    const r = await cli('stats', p, '--json');
    expect(r.error).toBeInstanceOf(UsageError);
    expect((r.error as Error).message).toMatch(/line 3: not valid JSON/);
    const missing = await cli('stats', join(dir, 'nope.jsonl'));
    expect((missing.error as Error).message).toMatch(/no such file/);
  });

  it('a crashed run (cut last line) still gives stats, with a warning, exit 0', async () => {
    const text = readFileSync(join(FIXTURES, 'c_recursive.jsonl'), 'utf8');
    const p = join(dir, 'cut.jsonl');
    writeFileSync(p, text.slice(0, text.lastIndexOf('\n', text.length - 2) + 500));
    const r = await cli('stats', p, '--json');
    expect(r.error).toBeNull();
    expect(r.err).toMatch(/warning: line 5: the last line is cut off/);
    expect((JSON.parse(r.out) as { iterations: number }).iterations).toBeGreaterThan(0);
  });
});

describe('rlm-studio convert', () => {
  it('rlm-python → native → rlm-python keeps the stats; never overwrites', async () => {
    const native = join(dir, 'c.rlm.jsonl');
    const back = join(dir, 'c.jsonl');
    expect((await cli('convert', join(FIXTURES, 'c_recursive.jsonl'), '--to', 'native', '-o', native)).error).toBeNull();
    expect((await cli('convert', native, '--to', 'rlm-python', '-o', back)).error).toBeNull();
    // The policy metrics name the log each session came from: the one thing that differs.
    const stats = async (p: string) => (await cli('stats', p, '--json')).out.replaceAll(/"logFile":"[^"]*"/g, '');
    const s0 = await stats(join(FIXTURES, 'c_recursive.jsonl'));
    const s1 = await stats(native);
    const s2 = await stats(back);
    expect(s1).toBe(s0);
    expect(s2).toBe(s0);
    const before = readFileSync(native, 'utf8');
    const again = await cli('convert', back, '--to', 'native', '-o', native);
    expect(again.error).toBeInstanceOf(UsageError);
    expect((again.error as Error).message).toMatch(/already exists; refusing to overwrite/);
    expect(readFileSync(native, 'utf8')).toBe(before);
  });

  it('writes to stdout without -o', async () => {
    const r = await cli('convert', join(FIXTURES, 'd_max_iterations.jsonl'), '--to', 'native');
    expect(r.error).toBeNull();
    const lines = r.out.trimEnd().split('\n');
    expect(JSON.parse(lines[0] as string)).toMatchObject({ format: 'rlm-studio', version: 1 });
    expect(lines.length).toBeGreaterThan(10);
  });

  it('damaged input: writes what it could read and exits non-zero naming the line', async () => {
    const p = join(dir, 'bad-native.rlm.jsonl');
    const src = (await cli('convert', join(FIXTURES, 'a_needle.jsonl'), '--to', 'native')).out.split('\n');
    src.splice(4, 1, '{"v":1,"type":"model.reply"}');
    writeFileSync(p, src.join('\n'));
    const out = join(dir, 'partial.jsonl');
    const r = await cli('convert', p, '--to', 'rlm-python', '-o', out);
    expect((r.error as Error).message).toMatch(/line 5: invalid model\.reply event/);
    expect(existsSync(out)).toBe(true);
    const bad = await cli('convert', p, '--to', 'xml');
    expect(bad.error).not.toBeNull();
  });
});
