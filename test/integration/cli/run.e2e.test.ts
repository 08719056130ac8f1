// End-to-end: the real CLI, the real mock-llm process, real HTTP, the real sandbox.
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrajectoryEvent } from '../../../src-shared/events.ts';
import { needleContext, reportContext, ticketsContext } from '../../../src-main/demo/contexts.ts';
import { runArgs, runCli, startCli, startMockProcess, type MockProcess } from '../support/cli.ts';

let mock: MockProcess;
let dir: string;

beforeAll(async () => {
  mock = await startMockProcess(['--cost-per-mtok', '1']);
  dir = mkdtempSync(join(tmpdir(), 'rlm-e2e-'));
});

afterAll(async () => {
  await mock.close();
});

interface RunJson {
  answer: string | null;
  stopReason: string;
  message: string | null;
  logFile: string | null;
  iterations: number;
  durationMs: number;
  usage: { inputTokens: number; outputTokens: number; calls: number; costUsd: number | null };
}

async function run(contextFile: string, query: string, extra: string[] = []): Promise<{ out: RunJson; events: TrajectoryEvent[] }> {
  const logDir = mkdtempSync(join(dir, 'logs-'));
  const res = await runCli([...runArgs({ context: contextFile, query, baseUrl: mock.url, logDir }), '--json', ...extra]);
  expect(res.stderr).not.toMatch(/at .*\.ts:\d+/);
  expect(res.code, res.stderr).toBe(0);
  const out = JSON.parse(res.stdout) as RunJson;
  expect(out.logFile).not.toBeNull();
  expect(readdirSync(logDir)).toHaveLength(1);
  const lines = readFileSync(out.logFile!, 'utf8').trimEnd().split('\n');
  const header = JSON.parse(lines[0]!) as { format: string; version: number };
  expect(header).toMatchObject({ format: 'rlm-studio', version: 1 });
  const events = lines.slice(1).map((l) => JSON.parse(l) as TrajectoryEvent);
  events.forEach((e, i) => expect(e.seq).toBe(i));
  return { out, events };
}

function writeContext(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('rlm-studio run against mock-llm', () => {
  it('finds a needle in a multi-megabyte context', async () => {
    const { text, answer } = needleContext(4_000_000, 7);
    const { out, events } = await run(writeContext('needle.txt', text), 'What is the magic number in the context?');
    expect(out.stopReason).toBe('answered');
    expect(out.answer).toBe(answer);
    expect(out.iterations).toBeGreaterThanOrEqual(2);
    expect(out.usage.calls).toBeGreaterThan(out.iterations - 1);
    expect(out.usage.inputTokens).toBeGreaterThan(0);
    expect(out.usage.costUsd).toBeGreaterThan(0);
    const start = events.find((e) => e.type === 'run.start');
    expect(start).toMatchObject({ depth: 0, context: { type: 'string', totalChars: text.length } });
    // The context never travels to the model: no message is anywhere near its size.
    const sent = events.flatMap((e) => (e.type === 'iteration.start' || e.type === 'iteration.end' ? e.appended : []));
    expect(Math.max(...sent.map((m) => m.content.length))).toBeLessThan(50_000);
    expect(events.at(-1)).toMatchObject({ type: 'run.end', stopReason: 'answered', answer });
  });

  it('aggregates a JSON list with batched sub-calls', async () => {
    const { items, counts } = ticketsContext(3000, 5);
    const { out, events } = await run(writeContext('tickets.json', JSON.stringify(items)), 'How many tickets have the label bug?');
    expect(out.stopReason).toBe('answered');
    expect(out.answer).toBe(String(counts['bug']));
    expect(events.find((e) => e.type === 'run.start')).toMatchObject({
      context: { type: 'array', chunkLengths: items.map((i) => i.length) },
    });
    const batched = events.filter((e) => e.type === 'subcall.start' && e.batch !== null);
    expect(batched.length).toBeGreaterThanOrEqual(8);
    const batchIds = new Set(batched.map((e) => (e.type === 'subcall.start' ? e.batch?.batchId : '')));
    expect(batchIds.size).toBeGreaterThanOrEqual(1);
    const ends = new Map(events.flatMap((e) => (e.type === 'subcall.end' ? [[e.callId, e] as const] : [])));
    for (const s of batched) expect(ends.get(s.type === 'subcall.start' ? s.callId : ('' as never))).toBeDefined();
  });

  it('runs a depth-2 recursion whose children run their own code', async () => {
    const { text } = reportContext(3, 3000, 11);
    const { out, events } = await run(writeContext('report.txt', text), 'Summarise each section of the report (recursive, per section).', [
      '--max-depth',
      '2',
    ]);
    expect(out.stopReason).toBe('answered');
    const children = events.filter((e) => e.type === 'run.start' && e.depth === 1);
    expect(children.length).toBeGreaterThanOrEqual(2);
    for (const child of children) {
      expect(child.parentRunId).toBe('run-0');
      const childBlocks = events.filter((e) => e.type === 'block.end' && e.runId === child.runId);
      expect(childBlocks.length).toBeGreaterThan(0);
      expect(events.some((e) => e.type === 'run.end' && e.runId === child.runId && e.stopReason === 'answered')).toBe(true);
    }
    // Children's usage is part of the session total exactly once.
    const replies = events.filter((e) => e.type === 'model.reply');
    const leaf = events.filter((e) => e.type === 'subcall.end');
    const input = [...replies, ...leaf].reduce((n, e) => n + e.usage.inputTokens, 0);
    expect(out.usage.inputTokens).toBe(input);
  });

  it('recovers from an error in its own code', async () => {
    const { out, events } = await run(
      writeContext('recover.txt', needleContext(20_000, 3).text),
      'Please recover from a mistake and report the word count.',
    );
    expect(out.stopReason).toBe('answered');
    const failed = events.filter((e) => e.type === 'block.end' && e.error !== null);
    expect(failed.length).toBeGreaterThanOrEqual(1);
    const lastFailure = failed.at(-1)!;
    const later = events.filter((e) => e.type === 'block.end' && e.error === null && e.seq > lastFailure.seq);
    expect(later.length).toBeGreaterThan(0);
  });

  it('stops at the iteration limit and asks once for a final answer', async () => {
    const { out, events } = await run(writeContext('never.txt', 'some text '.repeat(100)), 'Explore but never finish.', [
      '--max-iterations',
      '3',
    ]);
    expect(out.stopReason).toBe('max_iterations');
    expect(out.iterations).toBe(3);
    expect(out.answer).toBeTruthy();
    const finals = events.filter((e) => e.type === 'model.reply' && e.purpose === 'final_answer');
    expect(finals).toHaveLength(1);
    expect(events.filter((e) => e.type === 'iteration.start')).toHaveLength(3);
    expect(events.some((e) => e.type === 'limit' && e.limit === 'max_iterations')).toBe(true);
  });

  it('stops on the token limit with a clear reason', async () => {
    const { out } = await run(writeContext('tokens.txt', 'x '.repeat(1000)), 'Explore but never finish.', ['--max-tokens', '100']);
    expect(out.stopReason).toBe('max_tokens');
    expect(out.message).toMatch(/tokens/);
  });

  it('stops on the budget limit', async () => {
    const { out } = await run(writeContext('budget.txt', 'x '.repeat(1000)), 'Explore but never finish.', ['--max-budget', '0.000001']);
    expect(out.stopReason).toBe('max_budget');
  });

  // Ctrl-C in a terminal signals the whole process group: the sandbox process too.
  it.each([
    ['the command', false],
    ['its process group, as Ctrl-C does', true],
  ])('is cancelled by SIGINT to %s, and still prints its result', async (_, group) => {
    const slow = await startMockProcess(['--latency-ms', '400']);
    try {
      const running = startCli(
        [
          'run',
          '--context',
          writeContext('cancel.txt', 'abc '.repeat(100)),
          '--query',
          'Explore but never finish.',
          '--base-url',
          slow.url,
          '--model',
          'mock-root',
          '--json',
        ],
        {},
        { group },
      );
      await new Promise((r) => setTimeout(r, 1500));
      if (group) process.kill(-running.child.pid!, 'SIGINT');
      else running.child.kill('SIGINT');
      const res = await running.done;
      expect(JSON.parse(res.stdout), res.stderr).toMatchObject({ stopReason: 'cancelled' });
      expect(res.code).toBe(130);
    } finally {
      await slow.close();
    }
  });

  it('stops at the time limit', async () => {
    const slow = await startMockProcess(['--latency-ms', '300']);
    try {
      const res = await runCli([
        'run',
        '--context',
        writeContext('time.txt', 'abc '.repeat(100)),
        '--query',
        'Explore but never finish.',
        '--base-url',
        slow.url,
        '--model',
        'mock-root',
        '--max-timeout',
        '1',
        '--json',
      ]);
      expect(JSON.parse(res.stdout)).toMatchObject({ stopReason: 'max_timeout' });
    } finally {
      await slow.close();
    }
  });

  it('--max-depth 0 is one direct call, which stats counts as one run with no iterations', async () => {
    const { out, events } = await run(writeContext('direct.txt', 'The magic number is 4827193.'), 'What is the magic number?', [
      '--max-depth',
      '0',
    ]);
    expect(out).toMatchObject({ stopReason: 'answered', iterations: 0, usage: { calls: 1 } });
    expect(events.map((e) => e.type)).toEqual(['run.start', 'model.reply', 'run.end']);
    const res = await runCli(['stats', out.logFile!, '--json']);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({
      sessions: 1,
      runs: 1,
      maxDepth: 0,
      iterations: 0,
      codeBlocks: 0,
      inputTokens: out.usage.inputTokens,
    });
  });

  it('records the reference-parity switches in run.start and names a bad choice', async () => {
    const { text } = needleContext(20_000, 3);
    const switches = ['--max-concurrency', '3', '--max-concurrency-rlm', '2', '--max-errors-mode', 'stderr', '--child-llm-model', 'own'];
    const { events } = await run(writeContext('switches.txt', text), 'What is the magic number in the context?', switches);
    expect(events[0]).toMatchObject({
      type: 'run.start',
      limits: { maxConcurrencyLlm: 3, maxConcurrencyRlm: 2, maxErrorsMode: 'stderr', childLlmModel: 'own' },
    });
    const bad = await runCli([
      'run',
      '--context',
      writeContext('ok3.txt', 'x'),
      '--base-url',
      'http://127.0.0.1:2/v1',
      '--model',
      'm',
      '--max-errors-mode',
      'warnings',
    ]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--max-errors-mode.*warnings.*thrown, stderr/);
  });
});

describe('rlm-studio run with bad input', () => {
  it('names a missing context file', async () => {
    const res = await runCli([
      'run',
      '--context',
      join(dir, 'nope.txt'),
      '--query',
      'q',
      '--base-url',
      'http://127.0.0.1:2/v1',
      '--model',
      'm',
      '--json',
    ]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/nope\.txt/);
    expect(res.stdout).toBe('');
  });

  it('names a malformed JSON context', async () => {
    const res = await runCli([
      'run',
      '--context',
      writeContext('bad.json', '{"a": [1, 2'),
      '--base-url',
      'http://127.0.0.1:2/v1',
      '--model',
      'm',
    ]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/bad\.json.*not valid JSON/);
  });

  it('rejects a bad limit value by option name', async () => {
    const res = await runCli([
      'run',
      '--context',
      writeContext('ok.txt', 'x'),
      '--base-url',
      'http://127.0.0.1:2/v1',
      '--model',
      'm',
      '--max-iterations',
      'zero',
    ]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/--max-iterations must be a positive integer/);
  });

  it('reports an unreachable endpoint as an error stop, not a crash', async () => {
    const res = await runCli([
      'run',
      '--context',
      writeContext('ok2.txt', 'x'),
      '--base-url',
      'http://127.0.0.1:2/v1',
      '--model',
      'm',
      '--json',
    ]);
    expect(res.code).toBe(1);
    const out = JSON.parse(res.stdout) as RunJson;
    expect(out.stopReason).toBe('error');
    expect(out.message).toMatch(/127\.0\.0\.1:2/);
  });
});
