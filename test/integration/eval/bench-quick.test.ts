// `bench/run.ts --quick` produces a well-formed report. Structure only: timings are never
// asserted (2-core CI machines vary too much).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../support/cli.ts';

const run = promisify(execFile);

describe('npm run bench -- --quick', () => {
  it('writes a markdown report and a JSON report with every section', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rlm-bench-test-'));
    const md = join(dir, 'quick.md');
    const json = join(dir, 'quick.json');
    await run(process.execPath, ['--no-node-snapshot', 'bench/run.ts', '--quick', '--out', md, '--json', json], {
      cwd: repoRoot,
      // ~55 s alone on a quiet 2-core machine; beside the suite's other files it took over 110 s
      // once (killed mid-run): the limit only stops a hung bench.
      timeout: 300_000,
    });
    const report = JSON.parse(readFileSync(json, 'utf8')) as Record<string, unknown> & {
      machine: { nproc: number; node: string };
      engineOverhead: { rows: { kind: string; ratio: number; correct: boolean }[] };
      concurrency: { concurrency: number; ratio: number }[];
      contextScale: { ok: boolean }[];
      sandbox: Record<string, number>;
      logIo: Record<string, number>;
      numbersToBeat: { name: string; vsReference: number; vsFloor: number; answerOk: boolean }[];
      policyMetrics: { sessions: number; totalMs: number; ratioToStatsOnly: number };
    };
    expect(report['mode']).toBe('quick');
    expect(report.machine.nproc).toBeGreaterThan(0);
    expect(report.machine.node).toMatch(/^v24\./);
    expect(report.engineOverhead.rows.map((r) => r.kind).sort()).toEqual(['browsecomp', 'oolong', 'oolong-pairs', 'sniah']);
    for (const r of report.engineOverhead.rows) {
      expect(Number.isFinite(r.ratio)).toBe(true);
      expect(r.correct).toBe(true);
    }
    expect(report.concurrency.map((r) => r.concurrency)).toEqual([8, 32, 128]);
    expect(report.contextScale.every((r) => r.ok)).toBe(true);
    expect(Object.keys(report.sandbox).sort()).toEqual(['emptyBlockMs', 'print10KbMs', 'regex10MbMs']);
    expect(report.logIo['eventsPerSecWritten']).toBeGreaterThan(0);
    expect(report.logIo['readMbPerSec']).toBeGreaterThan(0);
    expect(report.numbersToBeat.map((r) => r.name)).toEqual(['21-call batched aggregation', '4 MB needle search', '40 MB needle search']);
    expect(report.numbersToBeat.every((r) => r.answerOk && Number.isFinite(r.vsReference) && Number.isFinite(r.vsFloor))).toBe(true);
    expect(report.policyMetrics.sessions).toBe(200);
    expect(Number.isFinite(report.policyMetrics.ratioToStatsOnly)).toBe(true);
    const text = readFileSync(md, 'utf8');
    for (const h of [
      'Numbers to beat',
      'Engine overhead',
      'Concurrency',
      'Context scale',
      'Sandbox',
      'Log I/O',
      'Policy metrics across sessions',
    ])
      expect(text).toContain(h);
  }, 320_000);
});
