// How bin/rlm-studio starts `run` and `chat`: on Node's startup snapshot, their REPLs (Python's
// too) in a sandbox process, unless the context file is large (RLM_STUDIO_SNAPSHOT_MAX_CONTEXT,
// 128 MiB by default, lowered here; their REPLs are in the sandbox process then too, since they
// hold the API key in their environment);
// and with no V8 flag (one would make V8 refuse the code cache Node's built-ins load from). A tools module, imported by the command's own process, writes down its
// process id, the flags it was started with and the glibc tunables it was given (malloc's huge
// pages, asked for by the launcher). The commands that never run a REPL in their own process
// (the log tools, the mock model) start on the snapshot too, and must never load isolated-vm.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathToFileURL } from 'node:url';
import { runCli, startCli, startMockProcess, type MockProcess } from '../support/cli.ts';
import { REFERENCE_FIXTURES as FIXTURES } from '../../support/reference-fixtures.ts';

let mock: MockProcess;
const dir = mkdtempSync(join(tmpdir(), 'rlm-snapshot-launch-'));
const tools = join(dir, 'tools.mjs');
const probeFile = join(dir, 'probe.json');
const MAX_CONTEXT = { RLM_STUDIO_SNAPSHOT_MAX_CONTEXT: '2000' };

interface Probe {
  pid: number;
  execArgv: string[];
  tunables: string | null;
}

beforeAll(async () => {
  mock = await startMockProcess();
  writeFileSync(
    tools,
    [
      "import { writeFileSync } from 'node:fs';",
      `writeFileSync(${JSON.stringify(probeFile)}, JSON.stringify({ pid: process.pid, execArgv: process.execArgv, tunables: process.env.GLIBC_TUNABLES ?? null }));`,
      'export const unit = "km";',
    ].join('\n'),
  );
});

afterAll(async () => {
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
});

function contextFile(bytes: number): string {
  const context = join(dir, `context-${bytes}.txt`);
  writeFileSync(context, 'The secret is 42.\n'.repeat(Math.ceil(bytes / 18)).slice(0, bytes));
  return context;
}

function readProbe(): Probe {
  return JSON.parse(readFileSync(probeFile, 'utf8')) as Probe;
}

const common = (): string[] => ['--base-url', mock.url, '--model', 'mock-root', '--tools', tools, '--json'];

async function probeRun(
  contextBytes: number,
  contextArg: (path: string) => string[],
  extra: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<Probe> {
  const context = contextFile(contextBytes);
  rmSync(probeFile, { force: true });
  const r = await runCli(['run', ...contextArg(context), '--query', 'What is the secret?', ...common(), ...extra], {
    ...MAX_CONTEXT,
    ...env,
  });
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ stopReason: 'answered' });
  return readProbe();
}

const flagsOfRun = async (contextBytes: number, contextArg: (path: string) => string[], extra: string[] = []): Promise<string[]> =>
  (await probeRun(contextBytes, contextArg, extra)).execArgv;

describe('bin/rlm-studio run', () => {
  it('starts on the snapshot with a small context, its REPLs in the sandbox process', async () => {
    expect(await flagsOfRun(500, (p) => ['--context', p])).not.toContain('--no-node-snapshot');
    expect(await flagsOfRun(500, (p) => [`--context=${p}`])).not.toContain('--no-node-snapshot');
    expect(await flagsOfRun(500, (p) => ['--context', p])).toEqual([]);
  });

  it('starts on the snapshot with the Python REPL too, its REPL in the sandbox process', async () => {
    for (const repl of [['--repl', 'python'], ['--repl=python'], ['--repl', 'javascript']]) {
      const flags = await flagsOfRun(500, (p) => ['--context', p], repl);
      expect(flags, repl.join(' ')).not.toContain('--no-node-snapshot');
      expect(flags, repl.join(' ')).toEqual([]);
    }
  }, 120_000);

  it('gives V8 no flag of its own beside the snapshot switch, with either REPL', async () => {
    expect(await flagsOfRun(2000, (p) => ['--context', p], ['--repl', 'python'])).toEqual(['--no-node-snapshot']);
    expect(await flagsOfRun(2000, (p) => [`--context=${p}`], ['--repl=python'])).toEqual(['--no-node-snapshot']);
    expect(await flagsOfRun(2000, (p) => ['--context', p])).toEqual(['--no-node-snapshot']);
  }, 120_000);

  it('starts without the snapshot with a context at or over the limit', async () => {
    expect(await flagsOfRun(2000, (p) => ['--context', p])).toContain('--no-node-snapshot');
    expect(await flagsOfRun(5000, (p) => [`--context=${p}`])).toContain('--no-node-snapshot');
  });

  it.runIf(process.platform === 'linux')("asks malloc for huge pages, keeping the caller's tunables", async () => {
    const tunablesOf = async (own: string | undefined): Promise<string | null> =>
      (await probeRun(500, (p) => ['--context', p], [], { GLIBC_TUNABLES: own })).tunables;
    expect(await tunablesOf(undefined)).toBe('glibc.malloc.hugetlb=1');
    expect(await tunablesOf('glibc.malloc.arena_max=4')).toBe('glibc.malloc.arena_max=4:glibc.malloc.hugetlb=1');
    expect(await tunablesOf('glibc.malloc.hugetlb=0')).toBe('glibc.malloc.hugetlb=0');
  });
});

/**
 * Runs `rlm-studio ARGS` with a module preloaded that writes down, as the process exits, the
 * flags Node was started with and whether isolated-vm's native addon was ever loaded into it.
 */
async function launchOf(args: string[]): Promise<{ execArgv: string[]; isolatedVm: boolean }> {
  const exitProbe = join(dir, 'exit-probe.mjs');
  const out = join(dir, 'exit-probe.json');
  writeFileSync(
    exitProbe,
    [
      "import { readFileSync, writeFileSync } from 'node:fs';",
      "process.on('exit', () => {",
      "  const isolatedVm = readFileSync('/proc/self/maps', 'utf8').includes('isolated-vm');",
      `  writeFileSync(${JSON.stringify(out)}, JSON.stringify({ execArgv: process.execArgv, isolatedVm }));`,
      '});',
    ].join('\n'),
  );
  rmSync(out, { force: true });
  const own = process.env.NODE_OPTIONS;
  const r = await runCli(args, { NODE_OPTIONS: `${own ? `${own} ` : ''}--import=${pathToFileURL(exitProbe).href}` });
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return JSON.parse(readFileSync(out, 'utf8')) as { execArgv: string[]; isolatedVm: boolean };
}

describe.skipIf(!existsSync('/proc/self/maps'))('bin/rlm-studio log tools', () => {
  it('start on the snapshot, and doing their work never load isolated-vm', async () => {
    const log = join(FIXTURES, 'c_recursive.jsonl');
    const out = (name: string): string => join(dir, `tools-${name}`);
    const commands = [
      ['--version'],
      ['--help'],
      ['stats', log, '--json'],
      ['convert', log, '--to', 'native', '-o', out('native.jsonl')],
      ['coverage', log, '--context', join(FIXTURES, 'contexts', 'c_recursive.txt')],
      ['export-calls', log, '-o', out('calls.jsonl')],
      ['export-otlp', log, '-o', out('otlp.json')],
      ['export-sft', log, '-o', out('sft.jsonl')],
      ['label', log],
      ['query', 'runs[depth = 1]', log],
      ['bundle', log, '-o', out('bundle.html')],
      ['eval-gen', '--kind', 'sniah', '--sizes', '8192', '--out', out('dataset.jsonl')],
      ['eval-status', '--help'],
      ['mock-llm', '--help'],
    ];
    for (const args of commands) {
      const launch = await launchOf(args);
      expect(launch.execArgv, args[0]).not.toContain('--no-node-snapshot');
      expect(launch.isolatedVm, args[0]).toBe(false);
    }
  }, 120_000);

  it('the commands that may run REPLs in their own process start without it', async () => {
    for (const name of ['rerun', 'counterfactual', 'eval', 'worker', 'serve', 'view', 'start', 'demo']) {
      expect((await launchOf([name, '--help'])).execArgv, name).toContain('--no-node-snapshot');
    }
  }, 120_000);
});

// The mock's `variables` scenario submits the context_N / history_N names the REPL holds.
const Q = 'Which variables does the REPL hold?';

/** A process's parent and command line, from /proc; null once it is gone (or only a zombie). */
function procInfo(pid: number): { ppid: number; args: string[] } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const [state = '', ppid = ''] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state === 'Z' || state === 'X') return null;
    return { ppid: Number(ppid), args: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean) };
  } catch {
    return null;
  }
}

function childrenOf(pid: number): { pid: number; args: string[] }[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      const info = procInfo(Number(name));
      return info?.ppid === pid ? [{ pid: Number(name), args: info.args }] : [];
    });
}

/** Waits (polling) until `pid` has exited; false if it is still there after `limitMs`. */
async function exits(pid: number, limitMs = 10_000): Promise<boolean> {
  for (let waited = 0; waited < limitMs; waited += 25) {
    if (procInfo(pid) === null) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return procInfo(pid) === null;
}

interface ChatSession {
  execArgv: string[];
  answers: string[];
  /** The command's own child processes, seen after its first turn was answered. */
  children: { pid: number; args: string[] }[];
  code: number | null;
  stderr: string;
}

/** `chat` answering two questions written one at a time to its stdin, then end of input. */
async function chatTwoTurns(args: string[]): Promise<ChatSession> {
  rmSync(probeFile, { force: true });
  const cli = startCli(['chat', ...args, ...common()], MAX_CONTEXT, { stdin: 'pipe' });
  const lines = createInterface({ input: cli.child.stdout! })[Symbol.asyncIterator]();
  const nextAnswer = async (): Promise<string> => {
    const line = await lines.next();
    if (line.done) throw new Error(`chat ended early: ${(await cli.done).stderr}`);
    const turn = JSON.parse(line.value) as { answer: string; stopReason: string };
    expect(turn.stopReason).toBe('answered');
    return turn.answer;
  };
  cli.child.stdin!.write(`${Q}\n`);
  const first = await nextAnswer();
  const probe = readProbe();
  expect(probe.pid).toBe(cli.child.pid);
  const children = childrenOf(probe.pid);
  cli.child.stdin!.end(`${Q}\n`);
  const second = await nextAnswer();
  const res = await cli.done;
  return { execArgv: probe.execArgv, answers: [first, second], children, code: res.code, stderr: res.stderr };
}

const sandboxChildren = (s: ChatSession): { pid: number; args: string[] }[] =>
  s.children.filter((c) => c.args.some((a) => /sandbox-child\.(mjs|ts)$/.test(a)));

describe.skipIf(!existsSync('/proc/self/stat'))('bin/rlm-studio chat', () => {
  it('starts on the snapshot, its REPL in a sandbox process that keeps state across turns and exits with it', async () => {
    const session = await chatTwoTurns(['--context', contextFile(500)]);
    expect(session.code, session.stderr).toBe(0);
    expect(session.execArgv).not.toContain('--no-node-snapshot');
    // The second turn's REPL still holds the first turn's context and messages.
    expect(session.answers).toEqual([
      `context_0 | context_0 starts: ${'The secret is 42.\n'.repeat(3).slice(0, 40)}`,
      `context_0, context_1, history_0 | context_1 starts: ${Q.slice(0, 40)}`,
    ]);
    // One sandbox process, started without the snapshot (isolated-vm needs that), gone once
    // the session ended at the end of its input.
    const sandboxes = sandboxChildren(session);
    expect(sandboxes).toHaveLength(1);
    expect(sandboxes[0]!.args).toContain('--no-node-snapshot');
    expect(await exits(sandboxes[0]!.pid)).toBe(true);
  });

  it('starts on the snapshot with no context file or the Python REPL, and without it with a context at the limit, its REPL in the sandbox process either way', async () => {
    for (const args of [[], ['--repl=python']]) {
      const session = await chatTwoTurns(args);
      expect(session.code, session.stderr).toBe(0);
      expect(session.execArgv, args.join(' ')).not.toContain('--no-node-snapshot');
      expect(session.answers[1]).toMatch(/^context_0, context_1, history_0 \| /);
      expect(sandboxChildren(session), args.join(' ')).toHaveLength(1);
    }

    for (const args of [
      ['--context', contextFile(2000)],
      ['--repl=python', '--context', contextFile(2000)],
    ]) {
      const session = await chatTwoTurns(args);
      expect(session.code, session.stderr).toBe(0);
      expect(session.execArgv, args.join(' ')).toContain('--no-node-snapshot');
      expect(session.execArgv, args.join(' ')).toEqual(['--no-node-snapshot']);
      expect(session.answers[1]).toMatch(/^context_0, context_1, history_0 \| /);
      // The command holds the API key in its environment: its REPL is in the sandbox process
      // all the same (engine/conversation.ts keepReplsOutOfProcess).
      expect(sandboxChildren(session), args.join(' ')).toHaveLength(1);
    }
  }, 180_000);
});
