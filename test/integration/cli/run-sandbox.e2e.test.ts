// `run` says which layers protect its REPL (stderr, --json, and run.start in its log), and the
// process that runs the model's code has none of the user's environment: with the API key in
// `run`'s own environment, the sandbox process's /proc/PID/environ is read while the run is
// under way (a slow mock keeps it going), in both REPLs.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunStartEvent, TrajectoryEvent } from '../../../src-shared/events.ts';
import { osSandboxSupport } from '../../../src-main/sandbox/os-sandbox/bwrap.ts';
import { runArgs, startCli, startMockProcess, type MockProcess } from '../support/cli.ts';

// Where bwrap works the sandbox process runs inside it (os-sandbox/node-sandbox.ts).
const OS = osSandboxSupport().ok;
const LAYERS = ['isolate', 'memory-limit', ...(OS ? ['rlimits', 'seccomp', 'bwrap'] : []), 'scrubbed-env'];
const LAYERS_TEXT = `sandbox: isolate + memory limit${OS ? ' + resource limits + seccomp (no new processes) + OS sandbox (bubblewrap)' : ''} + scrubbed environment\n`;

/** The Node that runs the REPLs, not bwrap around it (whose command line names the child too). */
function isSandboxChild(pid: number): boolean {
  const argv = read(`/proc/${pid}/cmdline`)?.split('\0') ?? [];
  return argv.some((a) => a.includes('sandbox-child')) && !argv[0]!.endsWith('bwrap');
}
const secret = `sk-canary-${process.pid}-${Date.now()}`;
let mock: MockProcess;
let dir: string;
let contextFile: string;

beforeAll(async () => {
  mock = await startMockProcess(['--latency-ms', '400']);
  dir = mkdtempSync(join(tmpdir(), 'rlm-run-sandbox-'));
  contextFile = join(dir, 'context.txt');
  writeFileSync(contextFile, 'The secret code is 4711. '.repeat(50));
});
afterAll(async () => {
  await mock.close();
});

/** Every descendant of `pid` (from /proc's children lists). */
function descendants(pid: number): number[] {
  const out: number[] = [];
  for (const t of readdirSync(`/proc/${pid}/task`, { withFileTypes: false }).map(String)) {
    const text = read(`/proc/${pid}/task/${t}/children`) ?? '';
    for (const c of text.trim().split(/\s+/).filter(Boolean).map(Number)) out.push(c, ...descendants(c));
  }
  return out;
}

function read(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

describe.each(['javascript', 'python'] as const)('run --repl %s', (repl) => {
  it('runs the code in a process without the API key, and says what protects it', async () => {
    const logDir = mkdtempSync(join(dir, 'logs-'));
    const args = [...runArgs({ context: contextFile, query: 'What is the secret code?', baseUrl: mock.url, logDir }), '--repl', repl];
    const cli = startCli(args, { OPENAI_API_KEY: secret });
    const pid = cli.child.pid!;
    // While the run goes on, find the sandbox process and read its environment.
    const environs = new Map<number, string>();
    let finished = false;
    void cli.done.then(() => (finished = true));
    while (!finished) {
      let children: number[] = [];
      try {
        children = descendants(pid);
      } catch {
        // the process ended meanwhile
      }
      for (const child of children) {
        if (environs.has(child) || !isSandboxChild(child)) continue;
        const env = read(`/proc/${child}/environ`);
        if (env !== null) environs.set(child, env);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const res = await cli.done;
    expect(res.code, res.stderr).toBe(0);
    // The key was in the command's environment, and only there.
    expect(environs.size).toBe(1);
    const [env] = [...environs.values()];
    expect(env).not.toContain(secret);
    expect(env).toContain('RLM_STUDIO_SCRUBBED_ENV=1');
    expect(res.stderr).toContain(LAYERS_TEXT);
    const [logName] = readdirSync(logDir);
    const events = readFileSync(join(logDir, logName!), 'utf8')
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l) as TrajectoryEvent);
    const starts = events.filter((e): e is RunStartEvent => e.type === 'run.start');
    expect(starts.length).toBeGreaterThan(0);
    for (const s of starts) expect(s.sandbox).toEqual({ layers: LAYERS });
  });
});

it('run --json says the layers', async () => {
  const logDir = mkdtempSync(join(dir, 'logs-'));
  const cli = startCli([...runArgs({ context: contextFile, query: 'What is the secret code?', baseUrl: mock.url, logDir }), '--json']);
  const res = await cli.done;
  expect(res.code, res.stderr).toBe(0);
  expect((JSON.parse(res.stdout) as { sandbox?: unknown }).sandbox).toEqual({ layers: LAYERS });
});

describe.each(['javascript', 'python'] as const)('eval --repl %s', (repl) => {
  it("runs its sessions' code in the sandbox process, not in its own (which holds the key)", { timeout: 120_000 }, async () => {
    const ds = join(dir, `eval-${repl}.jsonl`);
    const gen = await startCli(['eval-gen', '--kind', 'sniah', '--sizes', '2^13', '--count', '3', '-o', ds]).done;
    expect(gen.code, gen.stderr).toBe(0);
    const out = join(dir, `eval-out-${repl}`);
    const cli = startCli(['eval', ds, '--base-url', mock.url, '--model', 'mock-root', '--out', out, '--parallel', '3', '--repl', repl], {
      OPENAI_API_KEY: secret,
    });
    const pid = cli.child.pid!;
    const environs = new Map<number, string>();
    let finished = false;
    void cli.done.then(() => (finished = true));
    while (!finished) {
      let children: number[] = [];
      try {
        children = descendants(pid);
      } catch {
        // the process ended meanwhile
      }
      for (const child of children) {
        if (environs.has(child) || !isSandboxChild(child)) continue;
        const env = read(`/proc/${child}/environ`);
        if (env !== null) environs.set(child, env);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const res = await cli.done;
    expect(res.code, res.stderr).toBe(0);
    expect(environs.size).toBe(1);
    expect([...environs.values()][0]).not.toContain(secret);
    const logs = readdirSync(join(out, 'logs')).filter((f) => f.endsWith('.rlm.jsonl'));
    expect(logs).toHaveLength(3);
    for (const log of logs) {
      const start = readFileSync(join(out, 'logs', log), 'utf8')
        .split('\n')
        .slice(1)
        .filter(Boolean)
        .map((l) => JSON.parse(l) as TrajectoryEvent)
        .find((e): e is RunStartEvent => e.type === 'run.start');
      expect(start?.sandbox).toEqual({ layers: LAYERS });
    }
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { finished: number; accuracy: number };
    expect(summary).toMatchObject({ finished: 3, accuracy: 1 });
  });
});
