// bin/lib/watchdog.sh: bin/test runs the suite under a watchdog that, past its limit, says what
// every process of the run is doing and stops them all (a worker blocked in native code fires no
// timeout of its own). Runs the real shell functions on small commands with a limit of seconds.
import { spawn, spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const watchdog = resolve(import.meta.dirname, '../../../bin/lib/watchdog.sh');

function bash(script: string, env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('bash', ['-c', `set -euo pipefail; source "${watchdog}"; ${script}`], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Processes whose command line holds `marker`. */
function running(marker: string): string[] {
  const r = spawnSync('pgrep', ['-f', marker], { encoding: 'utf8' });
  return r.stdout.split('\n').filter(Boolean);
}

describe('rlm_run_watched', () => {
  it('passes the command’s exit status through, and starts it with SIGINT not ignored', () => {
    expect(bash('rlm_run_watched true').status).toBe(0);
    expect(bash('rlm_run_watched bash -c "exit 3"').status).toBe(3);
    // Bash starts a background command ignoring SIGINT unless job control is on; tests that
    // interrupt a command they start would inherit that.
    const ignored = /SigIgn:\s*([0-9a-f]+)/.exec(bash('rlm_run_watched grep SigIgn /proc/self/status').stdout)?.[1];
    expect(ignored).toBeDefined();
    expect(BigInt(`0x${ignored}`) & 2n).toBe(0n);
  });

  it('past its limit says what each process of the run is doing, then stops them all and fails', () => {
    const marker = `sleep ${300 + Math.floor(Math.random() * 600)}`;
    const r = bash(`rlm_run_watched bash -c '${marker} & ${marker}.5; echo finished'`, { RLM_TEST_WATCHDOG_SECONDS: '2' });
    expect(r.status).not.toBe(0);
    expect(r.stdout).not.toContain('finished');
    expect(r.stderr).toContain('the test run is still going after 2s');
    expect(r.stderr).toMatch(new RegExp(`== process \\d+ \\(parent \\d+, state S, CPU 0 s\\): ${marker} `));
    expect(r.stderr).toMatch(/thread \d+ sleep: waits in \S+/);
    expect(running(`^${marker}`)).toEqual([]);
  });

  it('passes an interrupt on to the run', async () => {
    const marker = `sleep ${1000 + Math.floor(Math.random() * 600)}`;
    const child = spawn('bash', ['-c', `source "${watchdog}"; rlm_run_watched bash -c '${marker} & ${marker}.5'`], { stdio: 'ignore' });
    await expect.poll(() => running(`^${marker}`).length, { timeout: 10_000 }).toBe(2);
    child.kill('SIGINT');
    const code = await new Promise<number | null>((done) => child.on('exit', (c) => done(c)));
    expect(code).not.toBe(0);
    await expect.poll(() => running(`^${marker}`), { timeout: 10_000 }).toEqual([]);
  });
});
