// Runs the real `./bin/rlm-studio` as a child process, as scripts and users do.
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';

export const repoRoot = resolve(import.meta.dirname, '../../..');
export const cliPath = resolve(repoRoot, 'bin/rlm-studio');

/** `run` over `context` with `query` against a mock at `baseUrl`, logging into `logDir` (more options after these). */
export function runArgs(o: { context: string; query: string; baseUrl: string; logDir: string; model?: string }): string[] {
  return [
    'run',
    '--context',
    o.context,
    '--query',
    o.query,
    '--base-url',
    o.baseUrl,
    '--model',
    o.model ?? 'mock-root',
    '--log-dir',
    o.logDir,
  ];
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunningCli {
  child: ChildProcess;
  done: Promise<CliResult>;
}

/**
 * `stdin: 'pipe'` leaves the child's stdin open for the test to write (`child.stdin`);
 * `group`: the command leads a process group of its own, as in a terminal (signal it with `process.kill(-pid)`).
 */
export function startCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  opts: { stdin?: 'ignore' | 'pipe'; group?: boolean } = {},
): RunningCli {
  const child = spawn(cliPath, args, {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: [opts.stdin ?? 'ignore', 'pipe', 'pipe'],
    detached: opts.group ?? false,
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<CliResult>((res, rej) => {
    child.on('error', rej);
    child.on('close', (code, signal) => res({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

/**
 * A command still running after `hungAfterMs` (default: just under the default test timeout)
 * is stuck: it is killed so the test fails with its output, not a bare timeout. Callers with a
 * longer test timeout pass a longer one.
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, hungAfterMs = 55_000): Promise<CliResult> {
  const { child, done } = startCli(args, env);
  const guard = setTimeout(() => child.kill('SIGKILL'), hungAfterMs);
  return done.then((r) => {
    clearTimeout(guard);
    return r.signal === 'SIGKILL' ? { ...r, stderr: `${r.stderr}\n[killed: still running after ${hungAfterMs / 1000} s]` } : r;
  });
}

export interface MockProcess {
  url: string;
  close(): Promise<void>;
}

/** Starts `rlm-studio mock-llm --port 0 …` and waits for the address it prints. */
export async function startMockProcess(extraArgs: string[] = []): Promise<MockProcess> {
  const child = spawn(cliPath, ['mock-llm', '--port', '0', ...extraArgs], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<never>((_, rej) => child.on('exit', (code) => rej(new Error(`mock-llm exited (${code}): ${stderr}`))));
  const lines = createInterface({ input: child.stdout });
  const url = await Promise.race([
    new Promise<string>((res) => {
      lines.on('line', (line) => {
        const m = /listening on (\S+)/.exec(line);
        if (m?.[1]) res(m[1]);
      });
    }),
    exited,
  ]);
  exited.catch(() => undefined);
  return {
    url,
    close: () =>
      new Promise<void>((res) => {
        if (child.exitCode !== null) return res();
        child.once('exit', () => res());
        child.kill('SIGTERM');
      }),
  };
}
