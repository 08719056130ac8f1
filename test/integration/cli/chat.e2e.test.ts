// `rlm-studio chat` end to end: the real CLI as a child process with questions piped to its
// stdin, the real mock-llm process, real HTTP. The mock's `variables` scenario ("which
// variables …") submits the context_N / history_N names the REPL holds and the start of the
// newest context, so each turn shows what the persistent REPL carried over.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogHeader, RunEndEvent, RunStartEvent, TrajectoryEvent } from '../../../src-shared/events.ts';
import { type CliResult, startCli, startMockProcess, type MockProcess } from '../support/cli.ts';

let mock: MockProcess;
let dir: string;

beforeAll(async () => {
  mock = await startMockProcess();
  dir = mkdtempSync(join(tmpdir(), 'rlm-chat-'));
});

afterAll(async () => {
  await mock.close();
});

interface TurnJson {
  turn: number;
  query: string;
  contextFile: string | null;
  answer: string | null;
  stopReason: string;
  logFile: string | null;
  iterations: number;
}

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** Runs `chat` with `lines` piped to stdin (then end of input). */
async function chat(args: string[], lines: string[], url = mock.url): Promise<CliResult & { logDir: string }> {
  const logDir = mkdtempSync(join(dir, 'logs-'));
  const cli = startCli(['chat', '--base-url', url, '--model', 'mock-root', '--log-dir', logDir, ...args], {}, { stdin: 'pipe' });
  cli.child.stdin!.end(lines.map((l) => `${l}\n`).join(''));
  const res = await cli.done;
  expect(res.stderr).not.toMatch(/at .*\.ts:\d+/);
  return { ...res, logDir };
}

function readLog(path: string): { header: LogHeader; events: TrajectoryEvent[] } {
  const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
  return { header: JSON.parse(lines[0]!) as LogHeader, events: lines.slice(1).map((l) => JSON.parse(l) as TrajectoryEvent) };
}

const rootStarts = (events: TrajectoryEvent[]): RunStartEvent[] =>
  events.filter((e): e is RunStartEvent => e.type === 'run.start' && e.parentRunId === null);

const Q = 'Which variables does the REPL hold?';

describe('rlm-studio chat', () => {
  it('keeps one REPL across turns: context_N per turn, history_N after each, one log', async () => {
    const first = file('otters.txt', 'Otters hold hands while they sleep.');
    const second = file('numbers.json', '{"numbers": [1, 2, 3]}');
    const res = await chat(['--context', first, '--json'], [Q, `:context ${second}`, Q, '', Q]);
    expect(res.code, res.stderr).toBe(0);
    const turns = res.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as TurnJson);
    expect(turns.map((t) => [t.turn, t.contextFile, t.stopReason])).toEqual([
      [0, first, 'answered'],
      [1, second, 'answered'],
      [2, null, 'answered'],
    ]);
    expect(turns[0]!.answer).toBe('context_0 | context_0 starts: Otters hold hands while they sleep.');
    // The second turn's REPL still has the first context and the first turn's messages.
    expect(turns[1]!.answer).toBe('context_0, context_1, history_0 | context_1 starts: {"numbers":[1,2,3]}');
    // A question without a new context file is its own context, as the reference's completion(prompt).
    expect(turns[2]!.answer).toBe(`context_0, context_1, context_2, history_0, history_1 | context_2 starts: ${Q.slice(0, 40)}`);
    // One log for the whole session, every turn in it, in order.
    expect(readdirSync(res.logDir)).toHaveLength(1);
    expect(new Set(turns.map((t) => t.logFile))).toEqual(new Set([join(res.logDir, readdirSync(res.logDir)[0]!)]));
    const { header, events } = readLog(turns[0]!.logFile!);
    expect(header).toMatchObject({ format: 'rlm-studio', repl: 'javascript' });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i));
    expect(rootStarts(events).map((e) => [e.turn, e.query, e.context.type])).toEqual([
      [0, Q, 'string'],
      [1, Q, 'object'],
      [2, Q, 'string'],
    ]);
    expect(events.filter((e) => e.type === 'run.end' && e.depth === 0)).toHaveLength(3);
  });

  it('prints answers as text, :help to stderr, and keeps going after a bad command or a bad :context file', async () => {
    const res = await chat(
      [],
      [':help', ':frobnicate', `:context ${join(dir, 'missing.txt')}`, Q, ':context', `:context ${file('late.txt', 'late')}`],
    );
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe(`context_0 | context_0 starts: ${Q.slice(0, 40)}\n`);
    expect(res.stderr).toContain(':context FILE   the next question');
    expect(res.stderr).toContain('unknown command :frobnicate');
    expect(res.stderr).toMatch(/:context .*missing\.txt: cannot read context file .*no such file/);
    expect(res.stderr).toContain(':context needs a file');
    expect(res.stderr).toMatch(/:context .*late\.txt was given but no question followed/);
    expect(res.stderr).toMatch(/log: .*\.rlm\.jsonl/);
  });

  it('ends at :quit without reading further, and refuses a missing --context file before starting', async () => {
    const res = await chat(['--json'], [Q, ':quit', Q]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trimEnd().split('\n')).toHaveLength(1);
    const bad = await chat(['--context', join(dir, 'nope.txt')], [Q]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/rlm-studio: cannot read context file .*nope\.txt: no such file/);
    expect(readdirSync(bad.logDir)).toEqual([]);
  });

  it('works with --repl python', async () => {
    const res = await chat(['--repl', 'python', '--context', file('py.txt', 'Python otters.'), '--json'], [Q, Q]);
    expect(res.code, res.stderr).toBe(0);
    const turns = res.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as TurnJson);
    expect(turns.map((t) => t.answer)).toEqual([
      'context_0 | context_0 starts: Python otters.',
      `context_0, context_1, history_0 | context_1 starts: ${Q.slice(0, 40)}`,
    ]);
    const { header, events } = readLog(turns[0]!.logFile!);
    expect(header.repl).toBe('python');
    expect(rootStarts(events).every((e) => e.repl === 'python')).toBe(true);
  }, 120_000);

  it("works with --repl cpython: one sandboxed interpreter keeps the turns' variables", async () => {
    const args = ['--repl', 'cpython', '--python', '/usr/bin/python3', '--context', file('cpy.txt', 'CPython otters.'), '--json'];
    const res = await chat(args, [Q, Q]);
    expect(res.code, res.stderr).toBe(0);
    const turns = res.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as TurnJson);
    expect(turns.map((t) => t.answer)).toEqual([
      'context_0 | context_0 starts: CPython otters.',
      `context_0, context_1, history_0 | context_1 starts: ${Q.slice(0, 40)}`,
    ]);
    expect(readLog(turns[0]!.logFile!).header.repl).toBe('python');
  }, 120_000);
});

describe('rlm-studio chat: Ctrl-C during a turn', () => {
  let slow: MockProcess;
  let ends: RunEndEvent[] = [];
  let res: CliResult;

  beforeAll(async () => {
    slow = await startMockProcess(['--latency-ms', '150']);
    const logDir = mkdtempSync(join(dir, 'logs-'));
    const cli = startCli(
      [
        'chat',
        '--base-url',
        slow.url,
        '--model',
        'mock-root',
        '--log-dir',
        logDir,
        '--context',
        file('sigint.txt', 'Otters again.'),
        '--max-iterations',
        '40',
      ],
      {},
      { stdin: 'pipe' },
    );
    cli.child.stdin!.write(`Please never finish this one.\n${Q}\n`);
    // Interrupt once the first turn is under way (its second iteration has begun).
    let stderr = '';
    await new Promise<void>((resolve) => {
      cli.child.stderr!.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (stderr.includes('iteration 2')) resolve();
      });
    });
    cli.child.kill('SIGINT');
    cli.child.stdin!.end();
    res = await cli.done;
    const logs = readdirSync(logDir);
    expect(logs).toHaveLength(1);
    const { events } = readLog(join(logDir, logs[0]!));
    ends = events.filter((e): e is RunEndEvent => e.type === 'run.end' && e.depth === 0);
  }, 120_000);

  afterAll(async () => {
    await slow?.close();
  });

  it('cancels that turn only: the session goes on to the next question', () => {
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('cancelling turn 0');
    expect(res.stderr).toContain('stopped: cancelled');
    expect(ends.map((e) => e.stopReason)).toEqual(['cancelled', 'answered']);
    expect(res.stdout.trimEnd().split('\n').at(-1)).toMatch(/^context_\d.* \| context_1 starts: Which variables/);
  });

  // Issue 12, engine bug 1: after a cancelled completion the persistent session's new REPL
  // is loaded with the earlier contexts and histories.
  it('the turn after a cancelled one still sees context_0', () => {
    expect(ends[1]?.answer).toMatch(/^context_0, context_1 \| context_1 starts: Which variables/);
  });
});
