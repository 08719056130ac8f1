// `export-calls --where`: JSONata, the language of `query`, over a sub-call's fields and labels;
// the old filtrex spelling is refused with the JSONata one to write instead.
import { describe, expect, it } from 'vitest';
import { type CallLine, compileWhere, jsonataSpelling, WhereError } from '../../../src-main/export/calls.ts';

const line = (o: Partial<CallLine> = {}): CallLine => ({
  file: 'a.rlm.jsonl',
  sessionId: 's',
  runId: 'run-1' as CallLine['runId'],
  rootRunId: 'run-0' as CallLine['rootRunId'],
  depth: 1,
  turn: 0,
  iteration: 2,
  block: 0,
  callId: 'c1' as CallLine['callId'],
  kind: 'llm',
  leaf: false,
  childRunId: null,
  batch: null,
  model: 'm',
  prompt: 'find the needle here',
  response: 'r',
  error: null,
  usage: { inputTokens: 10, outputTokens: 2, costUsd: null },
  latencyMs: 1500,
  ...o,
});

describe('--where', () => {
  it('holds or not on a call: comparisons, regex, labels; unknown cost is not 0', async () => {
    const cases: [string, boolean][] = [
      ['kind = "llm" and latencyMs > 1000', true],
      ['kind = "rlm"', false],
      ['$contains(prompt, /ne+dle/)', true],
      ['"missed" in runLabels', true],
      ['"missed" in labels', false],
      ['costUsd < 0.01', false],
      ['$exists(costUsd)', false],
      ['$not(failed)', true],
    ];
    for (const [expr, holds] of cases) {
      const where = await compileWhere(expr);
      expect(await where(line(), { labels: [], runLabels: ['missed'], sessionLabels: [] }), expr).toBe(holds);
    }
  });

  it('refuses filtrex with the JSONata spelling, and names unknown fields, before any log is read', async () => {
    await expect(compileWhere('kind == "llm" and prompt ~= "x|y" and not child')).rejects.toThrow(
      `--where 'kind = "llm" and $contains(prompt, /x|y/) and $not(child)'`,
    );
    await expect(compileWhere('latency > 3')).rejects.toThrow(/unknown field "latency"/);
    await expect(compileWhere('kind = ')).rejects.toBeInstanceOf(WhereError);
  });

  it('spells filtrex in JSONata, leaving strings and JSONata alone', () => {
    expect(jsonataSpelling('kind = "llm"')).toBeNull();
    expect(jsonataSpelling('model == "a==b"')).toBe('model = "a==b"');
    expect(jsonataSpelling("prompt ~= 'a/b'")).toBe('$contains(prompt, /a\\/b/)');
  });
});
