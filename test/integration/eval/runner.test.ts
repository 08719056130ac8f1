// The eval runner in-process (dataset → results, summary, logs), and the CLI resuming
// after a SIGKILL: finished tasks are not re-run, results are complete and not duplicated.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTaskContext, readDataset } from '../../../src-main/eval/dataset.ts';
import { writeDataset } from '../../../src-main/cli/dataset-file.ts';
import type { EvalTask } from '../../../src-main/eval/tasks/types.ts';
import { runEval } from '../../../src-main/eval/runner.ts';
import type { TaskResult } from '../../../src-main/eval/results.ts';
import { OpenAiCompatibleClient } from '../../../src-main/lm/openai-client.ts';
import { readLogFile } from '../../../src-main/logs/read-log.ts';
import { parseScript, scriptPolicy } from '../../../src-main/mock-llm/policies/script.ts';
import { startMockLlm, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';
import { runCli, startCli, startMockProcess, type MockProcess } from '../support/cli.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlm-eval-'));
const readLines = (path: string): TaskResult[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as TaskResult);

describe('eval runner in-process', () => {
  let server: MockLlmServer;
  beforeAll(async () => {
    server = await startMockLlm({ latencyMs: 5, costPerMTok: 1 });
  });
  afterAll(async () => {
    await server.close();
  });

  it('runs a generated dataset: results, summary, one readable log per task', async () => {
    const ds = join(tmp, 'small.jsonl');
    // A low inline limit puts the bigger contexts in files, so both paths run.
    const tasks = await writeDataset({
      kinds: ['sniah', 'oolong', 'oolong-pairs', 'browsecomp'],
      sizes: [8192],
      seed: 1,
      count: 1,
      out: ds,
      inlineMaxChars: 33_000,
    });
    expect(tasks.some((t) => t.contextFile) && tasks.some((t) => t.context !== undefined)).toBe(true);
    expect((await readDataset(ds)).tasks.map((t) => t.id)).toEqual(tasks.map((t) => t.id));
    const out = join(tmp, 'out-inproc');
    const lines: string[] = [];
    const client = new OpenAiCompatibleClient({ baseUrl: server.url, apiKey: 'x', maxRetries: 0 });
    const res = await runEval({
      dataset: ds,
      outDir: out,
      client,
      baseUrl: server.url,
      model: 'mock-root',
      parallel: 2,
      onProgress: (l) => lines.push(l),
    });
    expect(res.ran).toBe(4);
    expect(res.summary).toMatchObject({ tasks: 4, finished: 4, accuracy: 1, correct: 4 });
    expect(Object.keys(res.summary.byKind).sort()).toEqual(['browsecomp', 'oolong', 'oolong-pairs', 'sniah']);
    expect(res.summary.durationMs.n).toBe(4);
    expect(lines.filter((l) => /^\[\d\/4\] ✓/.test(l))).toHaveLength(4);
    const results = readLines(join(out, 'results.jsonl'));
    expect(results.map((r) => r.id).sort()).toEqual(tasks.map((t) => t.id).sort());
    for (const r of results) {
      const log = await readLogFile(r.logFile!);
      expect(log.problems).toEqual([]);
      expect(log.events.at(-1)?.type).toBe('run.end');
    }
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toMatch(/Accuracy \(mean score\) 1\.000/);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
      correct: number;
      totalCalls: number;
      byModel: Record<string, { calls: number; inputTokens: number }>;
    };
    expect(summary.correct).toBe(4);
    // Usage per model beside the totals: every task's calls, split by model name.
    expect(Object.keys(summary.byModel).length).toBeGreaterThan(0);
    expect(Object.values(summary.byModel).reduce((n, m) => n + m.calls, 0)).toBe(summary.totalCalls);
    expect(summary.byModel['mock-root']?.inputTokens).toBeGreaterThan(0);
    for (const r of results) expect(Object.values(r.usage.byModel ?? {}).reduce((n, m) => n + m.calls, 0)).toBe(r.usage.calls);
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toMatch(/\| mock-root \| \d+ \|/);
  });

  it('runs the same dataset in Python sessions: every log says python, every task correct', { timeout: 60_000 }, async () => {
    const ds = join(tmp, 'small-py.jsonl');
    await writeDataset({
      kinds: ['sniah', 'oolong', 'oolong-pairs', 'browsecomp'],
      sizes: [8192],
      seed: 2,
      count: 1,
      out: ds,
      inlineMaxChars: 1_000_000,
    });
    const out = join(tmp, 'out-inproc-py');
    const client = new OpenAiCompatibleClient({ baseUrl: server.url, apiKey: 'x', maxRetries: 0 });
    const res = await runEval({ dataset: ds, outDir: out, client, baseUrl: server.url, model: 'mock-root', parallel: 2, repl: 'python' });
    expect(res.summary).toMatchObject({ tasks: 4, finished: 4, accuracy: 1, correct: 4 });
    for (const r of readLines(join(out, 'results.jsonl'))) {
      const log = await readLogFile(r.logFile!);
      expect(log.header?.repl).toBe('python');
      expect(log.events.filter((e) => e.type === 'block.end' && e.error)).toEqual([]);
    }
  });

  it('gives a Python session an inline JSON context with the numbers of its text', { timeout: 60_000 }, async () => {
    const reply = '```repl\nanswer["content"] = repr([context["x"], context["big"], context["n"]])\nanswer["ready"] = True\n```';
    const scripted = await startMockLlm({ policy: scriptPolicy(parseScript({ rules: [{ match: { kind: 'rlm', turn: 1 }, reply }] })) });
    try {
      const expected = '[2.0, 12345678901234567890, 3]';
      // Written by hand: JavaScript's JSON.stringify would write 2 and round the big integer.
      const ds = join(tmp, 'inline-numbers.jsonl');
      const context = '{"x": 2.0, "big": 12345678901234567890, "n": 3}';
      writeFileSync(
        ds,
        `{"id": "n", "kind": "custom", "query": "Which?", "expected": "${expected}", "scorer": "exact", "context": ${context}}\n`,
      );
      const out = join(tmp, 'out-inline-numbers');
      const client = new OpenAiCompatibleClient({ baseUrl: scripted.url, apiKey: 'x', maxRetries: 0 });
      await runEval({ dataset: ds, outDir: out, client, baseUrl: scripted.url, model: 'mock-root', parallel: 1, repl: 'python' });
      expect(readLines(join(out, 'results.jsonl')).map((r) => [r.answer, r.correct])).toEqual([[expected, true]]);
    } finally {
      await scripted.close();
    }
  });

  it('gives every task the custom system prompt and tools, and a resumed run must keep them', { timeout: 60_000 }, async () => {
    const ds = join(tmp, 'small-custom.jsonl');
    await writeDataset({ kinds: ['sniah'], sizes: [8192], seed: 3, count: 2, out: ds, inlineMaxChars: 1_000_000 });
    const out = join(tmp, 'out-custom');
    const client = new OpenAiCompatibleClient({ baseUrl: server.url, apiKey: 'x', maxRetries: 0 });
    // The mock knows an RLM request by the built-in prompt's first words; the rest is ours.
    const systemPrompt = 'You are a Recursive Language Model (RLM), briefed by this evaluation. Tools:\n{tools}';
    const tools = { RATE_NOTE: { value: 'fixed at 1.08', description: 'the exchange rate note' } };
    const common = { dataset: ds, outDir: out, client, baseUrl: server.url, model: 'mock-root', parallel: 1 } as const;
    const res = await runEval({ ...common, systemPrompt, tools });
    expect(res.summary).toMatchObject({ tasks: 2, correct: 2 });
    for (const r of readLines(join(out, 'results.jsonl'))) {
      const text = readFileSync(r.logFile!, 'utf8');
      expect(text).toContain('briefed by this evaluation. Tools:\\n- `RATE_NOTE`: the exchange rate note');
    }
    await expect(runEval({ ...common, systemPrompt: `${systemPrompt} Changed.`, tools })).rejects.toThrow(
      /systemPrompt: "[0-9a-f]+" there/,
    );
    await expect(runEval({ ...common, systemPrompt })).rejects.toThrow(/tools: \["RATE_NOTE"\] there, null now/);
  });

  it('rejects bad datasets with the line and field named', async () => {
    const bad = join(tmp, 'bad.jsonl');
    writeFileSync(
      bad,
      '{"id":"a","kind":"x","query":"q","expected":"1","scorer":"exact","context":"c"}\n{"id":"b","kind":"x","query":"q","expected":"1","scorer":"fuzzy","context":"c"}\n',
    );
    await expect(readDataset(bad)).rejects.toThrow(/line 2: scorer/);
    writeFileSync(bad, '{"id":"a","kind":"x","query":"q","expected":"1","scorer":"exact"}\n');
    await expect(readDataset(bad)).rejects.toThrow(/line 1: exactly one of "context" and "contextFile"/);
  });

  it('reads a task’s context file as run reads one, naming the task when it does not parse', async () => {
    const dir = mkdtempSync(join(tmp, 'task-ctx-'));
    const text = '\ufeffcafé €\r\n𝄞 end';
    writeFileSync(join(dir, 'ctx.txt'), text);
    writeFileSync(join(dir, 'bad.json'), '{"a": ');
    const task = (id: string, contextFile: string): EvalTask => ({
      id,
      kind: 'x',
      query: 'q',
      expected: '1',
      scorer: 'exact',
      contextFile,
    });
    for (const flat of [false, true]) expect(await loadTaskContext(task('t', 'ctx.txt'), dir, { flat })).toBe(text);
    await expect(loadTaskContext(task('broken', 'bad.json'), dir, { flat: false })).rejects.toThrow(
      `task broken: context file ${join(dir, 'bad.json')} (6 bytes) is not valid JSON`,
    );
  });

  it('refuses a dataset whose context files are not all there, naming each task, before any session', async () => {
    const dir = mkdtempSync(join(tmp, 'missing-ctx-'));
    writeFileSync(join(dir, 'here.txt'), 'a context');
    const line = (id: string, contextFile: string): string =>
      JSON.stringify({ id, kind: 'x', query: 'q', expected: '1', scorer: 'exact', contextFile });
    const ds = join(dir, 'ds.jsonl');
    writeFileSync(ds, [line('ok', 'here.txt'), line('typo', 'hree.txt'), line('folder', '.')].join('\n'));
    await expect(readDataset(ds)).rejects.toThrow(
      `${ds}: the context files of 2 task(s) cannot be read: task typo: ${join(dir, 'hree.txt')}: no such file; task folder: ${dir}: it is not a file`,
    );
    const out = join(dir, 'out');
    const client = new OpenAiCompatibleClient({ baseUrl: server.url, apiKey: 'x', maxRetries: 0 });
    const before = server.stats().requests;
    await expect(runEval({ dataset: ds, outDir: out, client, baseUrl: server.url, model: 'mock-root', parallel: 1 })).rejects.toThrow(
      /task typo/,
    );
    expect(server.stats().requests).toBe(before);
    expect(existsSync(join(out, 'results.jsonl'))).toBe(false);
  });
});

describe('rlm-studio eval resumes after SIGKILL', () => {
  let mock: MockProcess;
  beforeAll(async () => {
    mock = await startMockProcess(['--latency-ms', '150']);
  });
  afterAll(async () => {
    await mock.close();
  });

  it('keeps finished tasks, re-runs only the rest, no duplicates', async () => {
    const ds = join(tmp, 'resume.jsonl');
    const gen = await runCli(['eval-gen', '--kind', 'sniah,oolong', '--sizes', '2^13', '--count', '3', '-o', ds]);
    expect(gen.code).toBe(0);
    const out = join(tmp, 'out-resume');
    const args = ['eval', ds, '--base-url', mock.url, '--model', 'mock-root', '--out', out, '--parallel', '1'];
    const results = join(out, 'results.jsonl');

    const first = startCli(args);
    // Each task takes ≥ 3 × 150 ms; kill once two have their line.
    const deadline = Date.now() + 30_000;
    for (;;) {
      let n: number;
      try {
        n = readLines(results).length;
      } catch {
        n = 0;
      }
      if (n >= 2) break;
      if (Date.now() > deadline) throw new Error('no results in time');
      await new Promise((r) => setTimeout(r, 25));
    }
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    const before = readLines(results);
    expect(before.length).toBeGreaterThanOrEqual(2);
    expect(before.length).toBeLessThan(6);

    const second = await runCli(args);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain(`${before.length} already finished`);
    const after = readLines(results);
    const ids = after.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(['oolong-8192-s1', 'oolong-8192-s2', 'oolong-8192-s3', 'sniah-8192-s1', 'sniah-8192-s2', 'sniah-8192-s3']);
    // The lines written before the kill are untouched (same finish times): not re-run.
    for (const b of before) expect(after.find((a) => a.id === b.id)?.finishedAt).toBe(b.finishedAt);
    expect(after.every((r) => r.correct)).toBe(true);
    // The task cut off by the kill left a partial log, kept under another name.
    const logs = readdirSync(join(out, 'logs'));
    expect(logs.filter((f) => /\.rlm\.jsonl$/.test(f) && !f.includes('interrupted'))).toHaveLength(6);
    expect(logs.filter((f) => f.includes('interrupted')).length).toBeLessThanOrEqual(1);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { finished: number; accuracy: number };
    expect(summary).toMatchObject({ finished: 6, accuracy: 1 });
  });
});
