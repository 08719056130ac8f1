// `rlm-studio rerun` as scripts call it: the --json contract, exit codes, and bad input named.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';

const HERE = join(import.meta.dirname, 'fixtures');
const CONTEXTS = join(REFERENCE_FIXTURES, 'contexts');
const tmp = mkdtempSync(join(tmpdir(), 'rlm-rerun-cli-'));

describe('rlm-studio rerun', () => {
  it('--json prints blocks, same, different and the log of the re-execution (custom tools from --tools)', async () => {
    const r = await runCli([
      'rerun',
      join(REFERENCE_FIXTURES, 'e_code_errors.jsonl'),
      '--context',
      join(CONTEXTS, 'e_code_errors.json'),
      '--tools',
      join(HERE, 'e-code-errors-tools.mjs'),
      '--log-dir',
      tmp,
      '--json',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { blocks: number; same: number; different: unknown[]; logFile: string; repl: string };
    expect(out).toMatchObject({ blocks: 4, same: 4, different: [], repl: 'python' });
    expect(existsSync(out.logFile)).toBe(true);
    const header = JSON.parse(readFileSync(out.logFile, 'utf8').split('\n')[0]!) as { repl?: string; rerunOf?: unknown };
    expect(header.repl).toBe('python');
    expect(header.rerunOf).toMatchObject({ format: 'rlm-python' });
  });

  it('exits 1 and lists what differs when a recorded output was changed', async () => {
    const lines = readFileSync(join(REFERENCE_FIXTURES, 'd_max_iterations.jsonl'), 'utf8').split('\n');
    const changed = lines.map((l) =>
      l.replaceAll('a ginger cat called Marmalade ruled the grain stores', 'a ginger cat called Pickles ruled the grain stores'),
    );
    const log = join(tmp, 'changed.jsonl');
    writeFileSync(log, changed.join('\n'));
    const r = await runCli(['rerun', log, '--context', join(CONTEXTS, 'd_max_iterations.txt'), '--log-dir', tmp, '--json']);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as {
      blocks: number;
      same: number;
      different: { run: string; iteration: number; block: number; recorded: { stdout: string }; new: { stdout: string } }[];
    };
    expect(out.blocks).toBe(2);
    expect(out.different.map((d) => [d.run, d.iteration, d.block])).toEqual([
      ['r0', 1, 0],
      ['r0', 3, 0],
    ]);
    expect(out.different[0]!.recorded.stdout).toContain('Pickles');
    expect(out.different[0]!.new.stdout).toContain('Marmalade');

    const text = await runCli(['rerun', log, '--context', join(CONTEXTS, 'd_max_iterations.txt'), '--log-dir', tmp]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('r0 iteration 1 block 1: different');
    expect(text.stdout).toContain('2 block(s) re-executed in python: 0 same, 2 different');
  });

  it('re-executes a native JavaScript log', async () => {
    const r = await runCli([
      'rerun',
      join(HERE, 'js-recover.rlm.jsonl'),
      '--context',
      join(HERE, 'report.txt'),
      '--log-dir',
      tmp,
      '--json',
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ blocks: 3, same: 3, different: [], repl: 'javascript' });
  });

  /** a_needle twice in one file: a persistent session of two turns (iteration numbers restart). */
  const twoTurns = (): string => {
    const [meta, ...iterations] = readFileSync(join(REFERENCE_FIXTURES, 'a_needle.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
    const log = join(tmp, 'two-turns.jsonl');
    writeFileSync(log, `${[meta, ...iterations, ...iterations].join('\n')}\n`);
    return log;
  };

  it('re-executes a multi-turn log with one context for all turns or one per turn (repeated --context)', async () => {
    const log = twoTurns();
    const ctx = join(CONTEXTS, 'a_needle.txt');
    for (const contexts of [
      ['--context', ctx],
      ['--context', ctx, '--context', ctx],
    ]) {
      const r = await runCli(['rerun', log, ...contexts, '--log-dir', tmp, '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ blocks: 8, same: 8, different: [] });
    }
  });

  const bad: [string, () => string[], RegExp][] = [
    ['no context', () => [join(REFERENCE_FIXTURES, 'a_needle.jsonl')], /required option '--context <file>' not specified/],
    [
      'as many contexts as neither one nor the turns',
      () => [twoTurns(), ...['a', 'b', 'c'].flatMap(() => ['--context', join(CONTEXTS, 'a_needle.txt')])],
      /the log holds 2 turns of a multi-turn session; give one context for all of them or one per turn, not 3/,
    ],
    [
      'the context of another log for one turn',
      () => [twoTurns(), '--context', join(CONTEXTS, 'a_needle.txt'), '--context', join(CONTEXTS, 'c_recursive.txt')],
      /c_recursive\.txt is not the context turn 2 of .*two-turns\.jsonl was made from/,
    ],
    ['a missing log', () => [join(tmp, 'nope.jsonl'), '--context', join(CONTEXTS, 'a_needle.txt')], /nope\.jsonl: no such file/],
    [
      'a missing context',
      () => [join(REFERENCE_FIXTURES, 'a_needle.jsonl'), '--context', join(tmp, 'nope.txt')],
      /cannot read context file .*nope\.txt: no such file/,
    ],
    [
      'the context of another log',
      () => [join(REFERENCE_FIXTURES, 'a_needle.jsonl'), '--context', join(CONTEXTS, 'c_recursive.txt')],
      /c_recursive\.txt is not the context .*a_needle\.jsonl was made from: the log's context is a str of 200,120 characters, this file gives 3,796/,
    ],
    [
      'a context of the wrong type',
      () => [join(REFERENCE_FIXTURES, 'b_aggregate.jsonl'), '--context', join(CONTEXTS, 'c_recursive.txt')],
      /the log's context is a list, this file gives a str/,
    ],
    [
      'a file that is not a log',
      () => [join(CONTEXTS, 'index.json'), '--context', join(CONTEXTS, 'a_needle.txt')],
      /index\.json: line 1: not a log this reader knows/,
    ],
    [
      'JavaScript for a reference log',
      () => [join(REFERENCE_FIXTURES, 'a_needle.jsonl'), '--context', join(CONTEXTS, 'a_needle.txt'), '--repl', 'javascript'],
      /written by the reference library, whose code is Python/,
    ],
    [
      'a missing tools module',
      () => [
        join(REFERENCE_FIXTURES, 'e_code_errors.jsonl'),
        '--context',
        join(CONTEXTS, 'e_code_errors.json'),
        '--tools',
        join(tmp, 'nope.mjs'),
      ],
      /--tools .*nope\.mjs/,
    ],
  ];
  for (const [what, args, message] of bad) {
    it(`refuses ${what} with a message naming it`, async () => {
      const r = await runCli(['rerun', ...args(), '--log-dir', tmp]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });
  }
});
