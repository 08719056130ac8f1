// Real-endpoint behaviours through the command line (issue 38), against `rlm-studio mock-llm`
// with the flags that produce them: a thinking model's log, its stats and its exports; the
// progress line while a slow reply streams; a length refusal's stop; an endpoint refusing
// stream_options.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runArgs, runCli, startCli, startMockProcess, type MockProcess } from '../support/cli.ts';

type Json = Record<string, unknown>;
const tmp = mkdtempSync(join(tmpdir(), 'rlm-real-endpoints-'));
const context = join(tmp, 'ctx.txt');
writeFileSync(context, 'Notes.\nThe magic number is 4242.\nMore notes.\n');
const QUERY = 'What is the magic number in the context?';
const jsonl = (text: string): Json[] =>
  text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Json);
const logIn = (dir: string): string =>
  join(
    dir,
    readdirSync(dir).find((f) => f.endsWith('.rlm.jsonl'))!,
  );

describe('a thinking model through the command line', () => {
  let mock: MockProcess;
  const dir = join(tmp, 'thinking');
  let log = '';
  beforeAll(async () => {
    mock = await startMockProcess(['--reasoning', 'think', '--cached-tokens', '--stream-chunk-ms', '15']);
    const r = await runCli(runArgs({ context, query: QUERY, baseUrl: mock.url, logDir: dir }));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('4242');
    // The progress line says how far the reply being written has come, before the reply's own line.
    const lines = r.stderr.split('\n');
    const firstLive = lines.findIndex((l) => /writing reply: \d+ tokens so far/.test(l));
    const firstReply = lines.findIndex((l) => /^\s+reply: \d+\+\d+ tokens/.test(l));
    expect(firstLive, r.stderr).toBeGreaterThanOrEqual(0);
    expect(firstLive).toBeLessThan(firstReply);
    log = logIn(dir);
  }, 120_000);
  afterAll(async () => {
    await mock.close();
  });

  it('logs the thinking apart from the reply, runs none of its code, and counts cached input', async () => {
    const events = jsonl(readFileSync(log, 'utf8')).slice(1);
    const replies = events.filter((e) => e['type'] === 'model.reply');
    for (const r of replies) {
      expect(r['reasoning']).toMatchObject({ source: 'think' });
      expect(r['text']).not.toContain('<think>');
    }
    expect(JSON.stringify(events.filter((e) => e['type'] === 'block.start'))).not.toContain('THOUGHT-ONLY');
    const stats = await runCli(['stats', log, '--json']);
    expect(stats.code, stats.stderr).toBe(0);
    const s = JSON.parse(stats.stdout) as Json;
    expect(s['cachedInputTokens']).toBeGreaterThan(0);
    expect(s['cutReplies']).toBe(0);
    const table = await runCli(['stats', log]);
    expect(table.stdout).toMatch(/cached input tokens\s+[\d,]+/);
  });

  it("chat shows the same tokens-so-far line while each turn's reply streams", async () => {
    const cli = startCli(
      ['chat', '--context', context, '--base-url', mock.url, '--model', 'mock-root', '--runs-dir', join(tmp, 'chat')],
      {},
      { stdin: 'pipe' },
    );
    cli.child.stdin!.end(`${QUERY}\n`);
    const r = await cli.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('4242');
    const lines = r.stderr.split('\n');
    const firstLive = lines.findIndex((l) => /writing reply: \d+ tokens so far/.test(l));
    const firstReply = lines.findIndex((l) => /^\s+reply: \d+\+\d+ tokens/.test(l));
    expect(firstLive, r.stderr).toBeGreaterThanOrEqual(0);
    expect(firstLive).toBeLessThan(firstReply);
  });

  it('export-sft keeps or drops the thinking as asked', async () => {
    const last = async (how: string): Promise<{ role: string; content: string; reasoning_content?: string }> => {
      const r = await runCli(['export-sft', log, '--reasoning', how]);
      expect(r.code, r.stderr).toBe(0);
      const first = jsonl(r.stdout)[0]!['messages'] as { role: string; content: string; reasoning_content?: string }[];
      return first.at(-1)!;
    };
    const dropped = await last('drop');
    expect(dropped.content).not.toContain('let me plan');
    expect(dropped.reasoning_content).toBeUndefined();
    const field = await last('field');
    expect(field.reasoning_content).toContain('let me plan');
    expect(field.content).toBe(dropped.content);
    const think = await last('think');
    expect(think.content).toBe(`<think>\n${field.reasoning_content}\n</think>\n\n${dropped.content}`);
  });

  it('export-otlp carries the thinking; the reference format keeps each response as the endpoint sent it', async () => {
    const otlp = join(tmp, 'trace.json');
    const o = await runCli(['export-otlp', log, '-o', otlp]);
    expect(o.code, o.stderr).toBe(0);
    expect(readFileSync(otlp, 'utf8')).toContain('\\"type\\":\\"reasoning\\"');
    const ref = await runCli(['convert', log, '--to', 'rlm-python']);
    expect(ref.code, ref.stderr).toBe(0);
    const iterations = jsonl(ref.stdout).filter((l) => l['type'] === 'iteration');
    expect(iterations.length).toBeGreaterThan(0);
    for (const it of iterations) expect(String(it['response'])).toMatch(/^<think>\nTurn \d+: let me plan/);
  });
});

describe('limits and refusals of real endpoints through the command line', () => {
  it('a request refused for its length stops the run with context_overflow, exit 0, naming the setting', async () => {
    const mock = await startMockProcess(['--context-window', '300', '--overflow-style', 'vllm']);
    try {
      const r = await runCli([...runArgs({ context, query: QUERY, baseUrl: mock.url, logDir: join(tmp, 'overflow') }), '--json']);
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as Json;
      expect(out['stopReason']).toBe('context_overflow');
      expect(String(out['message'])).toMatch(/context window of 300 tokens \(reported by the endpoint\).*--context-window 300/);
    } finally {
      await mock.close();
    }
  });

  it('requests carry no stream fields with --no-stream, nor by default under a reference prompt pack (as the reference sends them)', async () => {
    const exported = await runCli(['prompts', 'export', 'rlm-studio-python']);
    expect(exported.code, exported.stderr).toBe(0);
    const pack = join(tmp, 'reference-semantics.json');
    writeFileSync(pack, JSON.stringify({ ...(JSON.parse(exported.stdout) as Json), name: 'reference-semantics', semantics: 'reference' }));
    const paramsOf = async (extra: string[], mockArgs: string[]): Promise<Json[]> => {
      const record = join(tmp, `record-${extra.join('_').replace(/\W+/g, '')}.jsonl`);
      const mock = await startMockProcess(['--record', record, ...mockArgs]);
      try {
        const r = await runCli([...runArgs({ context, query: QUERY, baseUrl: mock.url, logDir: join(tmp, 'no-stream') }), ...extra]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout.trim()).toBe('4242');
      } finally {
        await mock.close();
      }
      return jsonl(readFileSync(record, 'utf8')).map((l) => l['params'] as Json);
    };
    for (const params of await paramsOf(['--no-stream'], [])) expect(params).toEqual({});
    const streamed = await paramsOf([], []);
    expect(streamed.every((p) => p['stream'] === true)).toBe(true);
    for (const params of await paramsOf(['--repl', 'python', '--prompts', pack], ['--prompts', pack])) expect(params).toEqual({});
  });

  it('an endpoint refusing stream_options still answers the run', async () => {
    const mock = await startMockProcess(['--refuse', 'stream_options']);
    try {
      const r = await runCli([...runArgs({ context, query: QUERY, baseUrl: mock.url, logDir: join(tmp, 'no-options') }), '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ stopReason: 'answered', answer: '4242' });
    } finally {
      await mock.close();
    }
  });
});
