// Re-execution of saved logs: every block of the reference library's own logs, and of native
// JavaScript logs, runs again to the recorded output; a changed recording is caught.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BlockEndEvent } from '../../../src-shared/events.ts';
import { readContextFile } from '../../../src-main/engine/context-file.ts';
import type { ToolSpec } from '../../../src-main/engine/config.ts';
import { loadToolsModule } from '../../../src-main/engine/tools-module.ts';
import { readLogFile } from '../../../src-main/logs/read-log.ts';
import { rerunLog, type RerunReport } from '../../../src-main/rerun/rerun-log.ts';
import { coolPython } from '../../../src-main/sandbox/python/pool.ts';
import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';

const HERE = join(import.meta.dirname, 'fixtures');
const TOOLS = join(HERE, 'e-code-errors-tools.mjs');
const tmp = mkdtempSync(join(tmpdir(), 'rlm-rerun-'));

interface IndexEntry {
  log: string;
  context: string;
}
const INDEX = JSON.parse(readFileSync(join(REFERENCE_FIXTURES, 'contexts/index.json'), 'utf8')) as IndexEntry[];
const contextOf = (log: string): string => {
  const entry = INDEX.find((e) => e.log === log);
  if (!entry) throw new Error(`no context for ${log} in contexts/index.json`);
  return join(REFERENCE_FIXTURES, 'contexts', entry.context);
};

/** g_openai_http's context is not in contexts/: the reference serialises it into every block's locals. */
function contextFromLocals(log: string): string {
  const line = readFileSync(join(REFERENCE_FIXTURES, log), 'utf8').split('\n')[1] ?? '';
  const first = (JSON.parse(line) as { code_blocks: { result: { locals: { context: string } } }[] }).code_blocks[0];
  const path = join(tmp, `${log.replace(/\W/g, '_')}.txt`);
  writeFileSync(path, first?.result.locals.context ?? '');
  return path;
}

async function rerun(log: string, contextPath: string, extra: { tools?: string } = {}): Promise<RerunReport> {
  return rerunLog({
    logPath: log,
    contexts: [await readContextFile(contextPath)],
    contextLabels: [contextPath],
    tools: extra.tools ? await loadToolsModule(extra.tools) : {},
    logDir: tmp,
  });
}

afterAll(async () => {
  await coolPython();
});

describe('rerun of the reference library logs', () => {
  // Paper-era logs are the same scenarios on the same contexts.
  const cases: [string, () => string, { tools?: string }, number][] = [
    ['a_needle.jsonl', () => contextOf('a_needle.jsonl'), {}, 4],
    ['b_aggregate.jsonl', () => contextOf('b_aggregate.jsonl'), {}, 5],
    ['c_recursive.jsonl', () => contextOf('c_recursive.jsonl'), {}, 13],
    ['d_max_iterations.jsonl', () => contextOf('d_max_iterations.jsonl'), {}, 2],
    ['e_code_errors.jsonl', () => contextOf('e_code_errors.jsonl'), { tools: TOOLS }, 4],
    ['g_openai_http.jsonl', () => contextFromLocals('g_openai_http.jsonl'), {}, 3],
    ['paper-8467a58/a_needle.jsonl', () => contextOf('a_needle.jsonl'), {}, 4],
    ['paper-8467a58/c_recursive.jsonl', () => contextOf('c_recursive.jsonl'), {}, 13],
  ];
  for (const [log, context, extra, blocks] of cases) {
    it(`${log}: every block re-executes to the recorded output`, async () => {
      const report = await rerun(join(REFERENCE_FIXTURES, log), context(), extra);
      expect(report.different).toEqual([]);
      expect(report).toMatchObject({ format: 'rlm-python', language: 'python', blocks, same: blocks });
      // The re-execution's own log marks each block.
      const written = await readLogFile(report.logFile!);
      expect(written.header?.rerunOf).toEqual({ logFile: join(REFERENCE_FIXTURES, log), format: 'rlm-python' });
      const ends = written.events.filter((e): e is BlockEndEvent => e.type === 'block.end');
      expect(ends).toHaveLength(blocks);
      expect(ends.every((e) => e.rerun?.same === true && e.rerun.terms === 'rlm-python')).toBe(true);
      expect(written.problems).toEqual([]);
    });
  }

  it('c_recursive: the three child runs re-execute in REPLs of their own', async () => {
    const report = await rerun(join(REFERENCE_FIXTURES, 'c_recursive.jsonl'), contextOf('c_recursive.jsonl'));
    const written = await readLogFile(report.logFile!);
    const childRuns = new Set(written.events.filter((e) => e.type === 'block.end' && e.parentRunId !== null).map((e) => e.runId));
    expect(childRuns.size).toBe(3);
  });

  it('e_code_errors without its tools: the blocks that use them are reported different', async () => {
    const report = await rerun(join(REFERENCE_FIXTURES, 'e_code_errors.jsonl'), contextOf('e_code_errors.jsonl'));
    expect(report.same).toBe(2);
    expect(report.different.map((d) => [d.iteration, d.block])).toEqual([
      [3, 0],
      [4, 0],
    ]);
    expect(report.different[0]?.new?.stderr).toBe("\nNameError: name 'convert_currency' is not defined");
  });
});

/** A copy of a reference log with one iteration line changed. */
function tampered(log: string, iteration: number, change: (entry: Record<string, unknown>) => void): string {
  const lines = readFileSync(join(REFERENCE_FIXTURES, log), 'utf8').split('\n');
  const out = lines.map((line) => {
    if (line.trim() === '') return line;
    const o = JSON.parse(line) as Record<string, unknown>;
    if (o['type'] !== 'iteration' || o['iteration'] !== iteration) return line;
    change(o);
    return JSON.stringify(o);
  });
  const path = join(tmp, `tampered-${Math.random().toString(36).slice(2)}-${log.replace(/\W/g, '_')}`);
  writeFileSync(path, out.join('\n'));
  return path;
}

type Block = { result: { stdout: string; stderr: string; rlm_calls: unknown[] } };
const blocksOf = (o: Record<string, unknown>): Block[] => o['code_blocks'] as Block[];

describe('rerun compares', () => {
  it('reports a block whose recorded stdout was changed, with both outputs', async () => {
    const log = tampered('d_max_iterations.jsonl', 3, (o) => {
      blocksOf(o)[0]!.result.stdout = 'the ship has no cat\n';
    });
    const report = await rerun(log, contextOf('d_max_iterations.jsonl'));
    expect(report.same).toBe(1);
    expect(report.different).toHaveLength(1);
    const d = report.different[0]!;
    expect(d).toMatchObject({ run: 'r0', iteration: 3, block: 0, same: false });
    expect(d.recorded.stdout).toBe('the ship has no cat\n');
    expect(d.new?.stdout).toContain('a ginger cat called Marmalade');
  });

  it("reports a block whose recorded error was changed (the reference's stderr terms)", async () => {
    const log = tampered('e_code_errors.jsonl', 2, (o) => {
      blocksOf(o)[0]!.result.stderr = "\nKeyError: 'orders'";
    });
    const report = await rerun(log, contextOf('e_code_errors.jsonl'), { tools: TOOLS });
    expect(report.different.map((d) => [d.iteration, d.recorded.stderr, d.new?.stderr])).toEqual([
      [2, "\nKeyError: 'orders'", "\nKeyError: 'order'"],
    ]);
  });

  it('matches batched sub-calls by prompt, not by the order they were recorded in', async () => {
    const log = tampered('b_aggregate.jsonl', 2, (o) => {
      blocksOf(o)[0]!.result.rlm_calls.reverse();
    });
    const report = await rerun(log, contextOf('b_aggregate.jsonl'));
    expect(report.different).toEqual([]);
    expect(report.same).toBe(5);
  });
});

describe('rerun of native JavaScript logs', () => {
  // Recorded by `rlm-studio run` against mock-llm on report.txt: children with rlm_query_batched
  // (depth 2), a failing block and its recovery, and llm_query_batched.
  for (const log of ['js-recursive.rlm.jsonl', 'js-recover.rlm.jsonl', 'js-aggregate.rlm.jsonl']) {
    it(`${log}: every block re-executes to the recorded output`, async () => {
      const report = await rerun(join(HERE, log), join(HERE, 'report.txt'));
      expect(report.different).toEqual([]);
      expect(report.format).toBe('native');
      expect(report.language).toBe('javascript');
      expect(report.blocks).toBeGreaterThan(1);
      expect(report.same).toBe(report.blocks);
    });
  }

  it('warns, naming them, when the runs had custom tools that are not given', async () => {
    // The same log, as if run with two tools (native logs record their names in run.start).
    const withTools = join(tmp, 'with-tools.rlm.jsonl');
    writeFileSync(
      withTools,
      readFileSync(join(HERE, 'js-aggregate.rlm.jsonl'), 'utf8').replace('"tools":[]', '"tools":["convert_currency","EXCHANGE_NOTE"]'),
    );
    const warnings: string[] = [];
    const run = async (tools: Record<string, ToolSpec>) =>
      rerunLog({
        logPath: withTools,
        contexts: [await readContextFile(join(HERE, 'report.txt'))],
        contextLabels: ['report.txt'],
        tools,
        logDir: null,
        onWarning: (w) => void warnings.push(w),
      });
    const report = await run({});
    expect(report.different).toEqual([]);
    expect(warnings).toEqual([
      'its runs had custom tools that were not given (--tools): EXCHANGE_NOTE, convert_currency; blocks that call them will differ',
    ]);
    warnings.length = 0;
    await run(await loadToolsModule(TOOLS));
    expect(warnings).toEqual([]);
  });

  it('a re-execution log re-executes to the same output again', async () => {
    const first = await rerun(join(HERE, 'js-recursive.rlm.jsonl'), join(HERE, 'report.txt'));
    const second = await rerun(first.logFile!, join(HERE, 'report.txt'));
    expect(second.different).toEqual([]);
    expect(second.blocks).toBe(first.blocks);
  });
});
