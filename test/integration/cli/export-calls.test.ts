// `rlm-studio export-calls` on logs of both formats: every sub-call, filtered by --where.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';
import { runCli, startMockProcess, type MockProcess } from '../support/cli.ts';

type Line = {
  file: string;
  sessionId: string | null;
  kind: string;
  model: string;
  prompt: string;
  response: string;
  depth: number;
  iteration: number;
  childRunId: string | null;
  usage: { inputTokens: number };
};
const readJsonl = (path: string): Line[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Line);

describe('rlm-studio export-calls', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'rlm-export-calls-'));
  const out = join(tmp, 'eval-out');
  let mock: MockProcess;

  beforeAll(async () => {
    mock = await startMockProcess();
    const ds = join(tmp, 'ds.jsonl');
    expect((await runCli(['eval-gen', '--kind', 'oolong', '--sizes', '2^13', '--count', '2', '-o', ds])).code).toBe(0);
    const ev = await runCli(['eval', ds, '--base-url', mock.url, '--model', 'mock-root', '--out', out, '--parallel', '1']);
    expect(ev.code, ev.stderr).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await mock.close();
  });

  it('writes every sub-call with where it came from, and filters', async () => {
    const all = join(tmp, 'all.jsonl');
    const r = await runCli(['export-calls', out, '-o', all, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const lines = readJsonl(all);
    expect(JSON.parse(r.stdout)).toEqual({ logs: 2, calls: lines.length, kept: lines.length });
    expect(lines.length).toBeGreaterThan(2);
    for (const l of lines) {
      expect(l.sessionId).toMatch(/.+/);
      expect(l.file).toContain('logs');
      expect(l.iteration).toBeGreaterThanOrEqual(1);
      expect(l.prompt.length).toBeGreaterThan(0);
    }
    const long = Math.max(...lines.map((l) => l.prompt.length));
    const some = join(tmp, 'some.jsonl');
    const f = await runCli(['export-calls', out, '-o', some, '--where', `kind = "llm" and promptChars >= ${long}`]);
    expect(f.code, f.stderr).toBe(0);
    const kept = readJsonl(some);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(lines.length);
    expect(kept.every((l) => l.prompt.length === long)).toBe(true);
    expect(f.stderr).toMatch(new RegExp(`wrote ${kept.length} of ${lines.length} sub-call`));
  });

  it('reads reference logs: child runs carry their whole usage', async () => {
    const o = join(tmp, 'ref.jsonl');
    const r = await runCli(['export-calls', join(REFERENCE_FIXTURES, 'c_recursive.jsonl'), '-o', o, '--where', 'child']);
    expect(r.code, r.stderr).toBe(0);
    const lines = readJsonl(o);
    expect(lines).toHaveLength(3);
    expect(lines.every((l) => l.childRunId !== null && l.usage.inputTokens > 0)).toBe(true);
  });

  it('writes to stdout without -o (the count on stderr), the same lines as to a file', async () => {
    const o = join(tmp, 'to-file.jsonl');
    expect((await runCli(['export-calls', out, '-o', o])).code).toBe(0);
    const r = await runCli(['export-calls', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(readFileSync(o, 'utf8'));
    expect(r.stderr).toMatch(/sub-call\(s\) from 2 log\(s\) to stdout/);
    const both = await runCli(['export-calls', out, '--json']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--json prints its report on stdout, where the output goes without -o; give -o FILE/);
    expect(both.stdout).toBe('');
  });

  it('names a bad filter before reading anything', async () => {
    const o = join(tmp, 'never.jsonl');
    const unknown = await runCli(['export-calls', out, '-o', o, '--where', 'latency > 3']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown field "latency"/);
    const syntax = await runCli(['export-calls', out, '-o', o, '--where', 'kind = ']);
    expect(syntax.code).toBe(2);
    expect(syntax.stderr).toMatch(/--where/);
    // The old filtrex spelling is named, with the JSONata one to write instead.
    const old = await runCli(['export-calls', out, '-o', o, '--where', 'kind == "llm" and prompt ~= "ne+dle"']);
    expect(old.code).toBe(2);
    expect(old.stderr).toContain(`--where 'kind = "llm" and $contains(prompt, /ne+dle/)'`);
    expect(() => readFileSync(o)).toThrow();
  });
});
