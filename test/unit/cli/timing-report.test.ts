// The text of RLM_STUDIO_TIMING's report (cli/timing-report.ts): each mark's time since the
// launch (or Node's start) and since the line before, in the order noted.
import { describe, expect, it } from 'vitest';
import { eventMark, timingReport } from '../../../src-main/cli/timing-report.ts';

describe('the phase timing report', () => {
  it('times each mark from the launch, with the step from the line before', () => {
    const text = timingReport(
      [
        { name: 'command line loaded', at: 100, cpu: 60 },
        { name: 'exit', at: 350.25, cpu: 90.5 },
      ],
      -40,
    );
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/ms since launch/);
    expect(lines.slice(1).map((l) => l.trim().split(/\s+/))).toEqual([
      ['0.0', '+0.0', 'launch', '(bin/rlm-studio)'],
      ['40.0', '+40.0', '0.0', 'node', 'started'],
      ['140.0', '+100.0', '60.0', 'command', 'line', 'loaded'],
      ['390.3', '+250.3', '30.5', 'exit'],
    ]);
  });

  it('without the launch moment, times from Node’s start', () => {
    const lines = timingReport([{ name: 'exit', at: 12, cpu: null }], null)
      .trimEnd()
      .split('\n');
    expect(lines[0]).toMatch(/ms since Node started/);
    expect(lines.slice(1).map((l) => l.trim().split(/\s+/))).toEqual([
      ['0.0', '+0.0', '0.0', 'node', 'started'],
      ['12.0', '+12.0', 'exit'],
    ]);
  });

  it('names an engine event by its place in the run', () => {
    const envelope = { v: 1, seq: 0, t: 0, ts: '', runId: 'run-1', parentRunId: null, depth: 1 } as const;
    expect(eventMark({ ...envelope, type: 'block.start', iteration: 2, block: 0, code: '' } as never)).toBe(
      'block.start (depth 1, iteration 2, block 0)',
    );
  });
});
