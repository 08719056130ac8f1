// End-to-end in Python: the real CLI with `--repl python`, the real mock-llm process (which
// writes Python once it sees a Python session), real HTTP, the real Pyodide sandbox.
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlockStartEvent, LogHeader, RunStartEvent, TrajectoryEvent } from '../../../src-shared/events.ts';
import { needleContext, reportContext, ticketsContext } from '../../../src-main/demo/contexts.ts';
import { runCli, startMockProcess, type MockProcess } from '../support/cli.ts';

let mock: MockProcess;
let dir: string;

beforeAll(async () => {
  mock = await startMockProcess(['--cost-per-mtok', '1']);
  dir = mkdtempSync(join(tmpdir(), 'rlm-e2e-py-'));
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
  usage: { inputTokens: number; outputTokens: number; calls: number; costUsd: number | null };
}

async function run(
  contextFile: string,
  query: string,
  extra: string[] = [],
  url = mock.url,
): Promise<{ out: RunJson; header: LogHeader; events: TrajectoryEvent[] }> {
  const logDir = mkdtempSync(join(dir, 'logs-'));
  const res = await runCli([
    'run',
    '--repl',
    'python',
    '--context',
    contextFile,
    '--query',
    query,
    '--base-url',
    url,
    '--model',
    'mock-root',
    '--log-dir',
    logDir,
    '--json',
    ...extra,
  ]);
  expect(res.stderr).not.toMatch(/at .*\.ts:\d+/);
  expect(res.code, res.stderr).toBe(0);
  const out = JSON.parse(res.stdout) as RunJson;
  expect(readdirSync(logDir)).toHaveLength(1);
  const lines = readFileSync(out.logFile!, 'utf8').trimEnd().split('\n');
  const header = JSON.parse(lines[0]!) as LogHeader;
  expect(header).toMatchObject({ format: 'rlm-studio', version: 1, repl: 'python' });
  const events = lines.slice(1).map((l) => JSON.parse(l) as TrajectoryEvent);
  // Every run of the session, children included, ran Python.
  const starts = events.filter((e): e is RunStartEvent => e.type === 'run.start');
  expect(starts.length).toBeGreaterThan(0);
  for (const s of starts) expect(s.repl).toBe('python');
  return { out, header, events };
}

function writeContext(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const codeOf = (events: TrajectoryEvent[]): string[] =>
  events.filter((e): e is BlockStartEvent => e.type === 'block.start').map((e) => e.code);

describe('rlm-studio run --repl python against mock-llm', () => {
  it('finds a needle in a 4 MB context', async () => {
    const { text, answer } = needleContext(4_000_000, 7);
    const { out, events } = await run(writeContext('needle.txt', text), 'What is the magic number in the context?');
    expect(out).toMatchObject({ stopReason: 'answered', answer });
    expect(out.iterations).toBeGreaterThanOrEqual(2);
    const start = events.find((e) => e.type === 'run.start');
    expect(start).toMatchObject({ context: { type: 'string', totalChars: text.length } });
    // The model was taught Python and wrote Python; the context never travelled to it.
    expect(start?.type === 'run.start' && start.messages[1]!.content).toContain(
      `Your context is a str of ${text.length.toLocaleString('en-US')} total characters`,
    );
    expect(codeOf(events).join('\n')).toMatch(/re\.finditer/);
    expect(codeOf(events).at(-1)).toContain(`answer["ready"] = True`);
    const sent = events.flatMap((e) => (e.type === 'iteration.start' || e.type === 'iteration.end' ? e.appended : []));
    expect(Math.max(...sent.map((m) => m.content.length))).toBeLessThan(50_000);
    expect(events.filter((e) => e.type === 'block.end').every((e) => e.type === 'block.end' && e.error === null)).toBe(true);
  });

  it('aggregates a JSON list with llm_query_batched', async () => {
    const { items, counts } = ticketsContext(3000, 5);
    const { out, events } = await run(writeContext('tickets.json', JSON.stringify(items)), 'How many tickets have the label bug?');
    expect(out).toMatchObject({ stopReason: 'answered', answer: String(counts['bug']) });
    expect(events.find((e) => e.type === 'run.start')).toMatchObject({
      context: { type: 'array', chunkLengths: items.map((i) => i.length) },
    });
    expect(codeOf(events).join('\n')).toContain('llm_query_batched(prompts)');
    const batched = events.filter((e) => e.type === 'subcall.start' && e.batch !== null);
    expect(batched.length).toBeGreaterThanOrEqual(8);
    expect(new Set(batched.map((e) => (e.type === 'subcall.start' ? e.batch?.batchId : ''))).size).toBe(1);
  });

  it('runs a depth-2 recursion whose children run Python of their own', async () => {
    const { text } = reportContext(3, 3000, 11);
    const { out, events } = await run(writeContext('report.txt', text), 'Summarise each section of the report (recursive, per section).', [
      '--max-depth',
      '2',
    ]);
    expect(out.stopReason).toBe('answered');
    expect(out.answer).toMatch(/Section 1/);
    const children = events.filter((e) => e.type === 'run.start' && e.depth === 1);
    expect(children.length).toBeGreaterThanOrEqual(3);
    for (const child of children) {
      expect(child.parentRunId).toBe('run-0');
      const own = events.filter((e) => e.runId === child.runId);
      const blocks = own.filter((e) => e.type === 'block.end');
      expect(blocks.length).toBeGreaterThan(0);
      expect(blocks.every((e) => e.type === 'block.end' && e.error === null)).toBe(true);
      expect(own.some((e) => e.type === 'block.start' && e.code.includes('json.dumps(report)'))).toBe(true);
      expect(own.some((e) => e.type === 'run.end' && e.stopReason === 'answered')).toBe(true);
    }
  });

  it('recovers from a block that raises', async () => {
    const { out, events } = await run(
      writeContext('recover.txt', needleContext(20_000, 3).text),
      'Please recover from a mistake and report the word count.',
    );
    expect(out.stopReason).toBe('answered');
    expect(out.answer).toMatch(/^After recovering from an error/);
    const failed = events.filter((e) => e.type === 'block.end' && e.error !== null);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ error: { name: 'AttributeError' } });
    // The model saw the Python error and said so in its next reply.
    const replies = events.filter((e) => e.type === 'model.reply').map((e) => (e.type === 'model.reply' ? e.text : ''));
    expect(replies.some((r) => /failed with "AttributeError: 'NoneType' object has no attribute 'strip'"/.test(r))).toBe(true);
    const later = events.filter((e) => e.type === 'block.end' && e.error === null && e.seq > failed[0]!.seq);
    expect(later.length).toBeGreaterThan(0);
  });

  it('stops at the iteration limit and asks once for a final answer', async () => {
    const { out, events } = await run(writeContext('never.txt', 'some text '.repeat(100)), 'Explore but never finish.', [
      '--max-iterations',
      '3',
    ]);
    expect(out).toMatchObject({ stopReason: 'max_iterations', iterations: 3 });
    expect(out.answer).toMatch(/a str of 1000 characters/);
    expect(events.filter((e) => e.type === 'model.reply' && e.purpose === 'final_answer')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'iteration.start')).toHaveLength(3);
    expect(events.filter((e) => e.type === 'block.end').every((e) => e.type === 'block.end' && e.error === null)).toBe(true);
  });
});

describe('custom tools and a custom system prompt', () => {
  const toolsFile = (): string =>
    writeContext(
      'tools.mjs',
      `export const convert_currency = {
  fn: (amount, to = 'USD') => { if (to !== 'USD') throw new Error('only USD'); return Math.round(amount * 108) / 100; },
  description: 'converts an amount in EUR to USD',
};
export const EXCHANGE_NOTE = 'EUR->USD at 1.08';
`,
    );

  async function scriptedMock(reply: string): Promise<MockProcess> {
    const script = writeContext(
      `script-${Math.random().toString(36).slice(2)}.json`,
      JSON.stringify({
        rules: [
          // Matches only if the custom prompt arrived with {tools} filled in.
          // (A module's exports come in alphabetical order.)
          {
            match: {
              kind: 'rlm',
              system:
                '^My own prompt\\. Tools:\\n- `EXCHANGE_NOTE`: a custom (str|string) value\\n- `convert_currency`: converts an amount in EUR to USD$',
            },
            reply,
          },
        ],
      }),
    );
    return startMockProcess(['--script', script]);
  }

  it('calls a tool from Python, with a keyword argument, under a prompt of the user’s own', async () => {
    // The keyword reaches the tool in the parent through the sandbox process by its parameter's name.
    const scripted = await scriptedMock(
      '```repl\nanswer["content"] = str(convert_currency(100.5, to="USD")) + " " + EXCHANGE_NOTE\nanswer["ready"] = True\n```',
    );
    try {
      const prompt = writeContext('prompt.txt', 'My own prompt. Tools:\n{tools}');
      const { out, events } = await run(
        writeContext('t.txt', 'x'),
        'Convert.',
        ['--tools', toolsFile(), '--system-prompt', prompt],
        scripted.url,
      );
      expect(out).toMatchObject({ stopReason: 'answered', answer: '108.54 EUR->USD at 1.08' });
      expect(events.find((e) => e.type === 'run.start')).toMatchObject({ tools: ['EXCHANGE_NOTE', 'convert_currency'] });
    } finally {
      await scripted.close();
    }
  });

  it('gives the same tools to a JavaScript REPL', async () => {
    const scripted = await scriptedMock(
      '```repl\nanswer.content = String(convert_currency(100.5)) + " " + EXCHANGE_NOTE;\nanswer.ready = true;\n```',
    );
    try {
      const logDir = mkdtempSync(join(dir, 'logs-'));
      const prompt = writeContext('prompt-js.txt', 'My own prompt. Tools:\n{tools}');
      const res = await runCli([
        'run',
        '--context',
        writeContext('t2.txt', 'x'),
        '--query',
        'Convert.',
        '--base-url',
        scripted.url,
        '--model',
        'mock-root',
        '--log-dir',
        logDir,
        '--json',
        '--tools',
        toolsFile(),
        '--system-prompt',
        prompt,
      ]);
      expect(res.code, res.stderr).toBe(0);
      expect(JSON.parse(res.stdout)).toMatchObject({ stopReason: 'answered', answer: '108.54 EUR->USD at 1.08' });
    } finally {
      await scripted.close();
    }
  });
});

describe('a JSON context file in Python', () => {
  it('has the numbers Python’s json reads from the file: 2.0 a float, big integers exact', async () => {
    const code = 'answer["content"] = repr([context["x"], context["big"], [type(v).__name__ for v in context["list"]]])';
    const script = writeContext(
      'script-json-numbers.json',
      JSON.stringify({ rules: [{ match: { kind: 'rlm', turn: 1 }, reply: `\`\`\`repl\n${code}\nanswer["ready"] = True\n\`\`\`` }] }),
    );
    const scripted = await startMockProcess(['--script', script]);
    try {
      const context = writeContext('numbers.json', '{"x": 2.0, "big": 12345678901234567890, "list": [1.0, 2]}');
      const { out } = await run(context, 'Which numbers?', [], scripted.url);
      expect(out).toMatchObject({ stopReason: 'answered', answer: "[2.0, 12345678901234567890, ['float', 'int']]" });
    } finally {
      await scripted.close();
    }
  });
});

describe('bad --repl, --tools and --system-prompt values', () => {
  const base = (): string[] => [
    'run',
    '--context',
    writeContext('ok.txt', 'x'),
    '--query',
    'q',
    '--base-url',
    'http://127.0.0.1:2/v1',
    '--model',
    'm',
  ];

  it('lists the REPL languages for an unknown one', async () => {
    const res = await runCli([...base(), '--repl', 'ruby']);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/--repl.*'ruby' is invalid.*javascript, python/s);
  });

  it('names a tools module that does not load and one with a bad export', async () => {
    const broken = await runCli([...base(), '--tools', writeContext('broken.mjs', 'export const = 1;')]);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/--tools .*broken\.mjs could not be loaded: SyntaxError/);
    const bad = await runCli([...base(), '--tools', writeContext('bad.mjs', `export const t = { fn: 1, description: 'x' };`)]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/export `t`: `fn` must be a function/);
    const reserved = await runCli([...base(), '--tools', writeContext('reserved.mjs', 'export const context = 1;')]);
    expect(reserved.code).toBe(2);
    expect(reserved.stderr).toMatch(/reserved names: context/);
  });

  it('names a missing system prompt file', async () => {
    const res = await runCli([...base(), '--system-prompt', join(dir, 'no-prompt.txt')]);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/cannot read --system-prompt .*no-prompt\.txt: no such file/);
  });
});
