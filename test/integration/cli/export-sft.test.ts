// `rlm-studio export-sft` on a real evaluation's output folder (eval against mock-llm), as a
// researcher runs it: selection by scores, formats, the report, and refusals.
import { copyFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startMockProcess, type MockProcess } from '../support/cli.ts';

type Json = Record<string, unknown>;
const readJsonl = (path: string): Json[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Json);

describe('rlm-studio export-sft', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'rlm-export-sft-'));
  const out = join(tmp, 'eval-out');
  let mock: MockProcess;
  let scored: string;

  beforeAll(async () => {
    mock = await startMockProcess();
    const ds = join(tmp, 'ds.jsonl');
    expect((await runCli(['eval-gen', '--kind', 'sniah', '--sizes', '2^13', '--count', '3', '-o', ds])).code).toBe(0);
    const ev = await runCli(['eval', ds, '--base-url', mock.url, '--model', 'mock-root', '--out', out, '--parallel', '1']);
    expect(ev.code, ev.stderr).toBe(0);
    // The first task scored wrong, as a grader might have: only the other two are kept.
    const results = readJsonl(join(out, 'results.jsonl'));
    expect(results).toHaveLength(3);
    results[0]!['correct'] = false;
    scored = join(tmp, 'scored.jsonl');
    writeFileSync(scored, results.map((r) => JSON.stringify(r)).join('\n') + '\n');
  }, 120_000);
  afterAll(async () => {
    await mock.close();
  });

  it('--only-correct finds the results itself, as stats and coverage do: of the folder, or of a log in it', async () => {
    // A copy of the evaluation whose first task a grader marked wrong.
    const graded = join(tmp, 'graded');
    cpSync(out, graded, { recursive: true });
    writeFileSync(join(graded, 'results.jsonl'), readFileSync(scored, 'utf8'));
    const all = await runCli(['export-sft', out, '--only-correct', '-o', join(tmp, 'all.jsonl')]);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr).toMatch(/from 3 of 3 trajectories in 3 log\(s\)/);
    const some = await runCli(['export-sft', graded, '--only-correct', '-o', join(tmp, 'graded.jsonl')]);
    expect(some.code, some.stderr).toBe(0);
    expect(some.stderr).toMatch(/from 2 of 3 trajectories in 3 log\(s\)/);
    expect(some.stderr).toMatch(/incorrect in its evaluation/);
    // The same task logs named alike in both: each judged by its own evaluation.
    const both = await runCli(['export-sft', out, graded, '--only-correct', '-o', join(tmp, 'both.jsonl')]);
    expect(both.code, both.stderr).toBe(0);
    expect(both.stderr).toMatch(/from 5 of 6 trajectories in 6 log\(s\)/);
  });

  it("keeps the correct tasks' calls, as sent, and says what it dropped and why", async () => {
    const o = join(tmp, 'train.jsonl');
    const r = await runCli(['export-sft', out, '--results', scored, '--only-correct', '-o', o]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/from 2 of 3 trajectories in 3 log\(s\)/);
    expect(r.stderr).toMatch(/incorrect in --results/);
    expect(r.stderr).toMatch(/estimated tokens per example/);
    const lines = readJsonl(o);
    expect(lines.length).toBeGreaterThan(2);
    for (const l of lines) {
      expect(Object.keys(l)).toEqual(['messages']);
      const msgs = l['messages'] as { role: string; content: string }[];
      expect(msgs.at(-1)!.role).toBe('assistant');
      expect(msgs.slice(0, -1).some((m) => m.role === 'user')).toBe(true);
    }

    const again = await runCli(['export-sft', out, '--results', scored, '--only-correct', '-o', o]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already exists/);
    expect(readJsonl(o)).toEqual(lines);
  });

  it('writes sharegpt with alternating turns and the system prompt apart, and a JSON report', async () => {
    const o = join(tmp, 'share.jsonl');
    const r = await runCli(['export-sft', out, '--format', 'sharegpt', '--depth', '0', '--json', '-o', o]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as {
      examples: { kept: number };
      trajectories: { seen: number; kept: number };
      keptByPurpose: Record<string, number>;
    };
    expect(report.trajectories).toEqual({ seen: 3, kept: 3 });
    expect(Object.keys(report.keptByPurpose)).toEqual(['turn']);
    const lines = readJsonl(o);
    expect(lines).toHaveLength(report.examples.kept);
    for (const l of lines) {
      expect(typeof l['system']).toBe('string');
      const conv = l['conversations'] as { from: string }[];
      conv.forEach((c, i) => expect(c.from).toBe(i % 2 === 0 ? 'human' : 'gpt'));
      expect(conv.at(-1)!.from).toBe('gpt');
    }
  });

  it('writes to stdout without -o (the report on stderr), the same examples as to a file', async () => {
    const o = join(tmp, 'to-file.jsonl');
    expect((await runCli(['export-sft', out, '--depth', '0', '-o', o])).code).toBe(0);
    const r = await runCli(['export-sft', out, '--depth', '0']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(readFileSync(o, 'utf8'));
    expect(r.stderr).toMatch(/example\(s\) to stdout from/);
    const both = await runCli(['export-sft', out, '--json']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/give -o FILE/);
  });

  it('refuses what it cannot use, naming it', async () => {
    const o = join(tmp, 'never.jsonl');
    const notLog = join(tmp, 'notes.txt');
    writeFileSync(notLog, 'hello\n');
    const bad = await runCli(['export-sft', notLog, '-o', o]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(notLog);
    // A log outside any evaluation has no results to find.
    const lone = join(tmp, 'lone.rlm.jsonl');
    copyFileSync(join(out, 'logs', readdirSync(join(out, 'logs'))[0]!), lone);
    const noResults = await runCli(['export-sft', lone, '--only-correct', '-o', o]);
    expect(noResults.code).toBe(2);
    expect(noResults.stderr).toMatch(/--only-correct: none of these logs is in an evaluation's folder/);
    const missing = await runCli(['export-sft', join(tmp, 'nope'), '-o', o]);
    expect(missing.stderr).toMatch(/no such file or folder/);
    expect(() => readFileSync(o)).toThrow();
  });
});
