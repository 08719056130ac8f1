// The real commands under a file-size limit (`ulimit -f`, as a full disk would): a session whose
// log cannot be written any further fails, saying which log and why; the log keeps every event
// before that point and reads; the host goes on serving, and `run` stops with that message.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { ensureCliBuilt } from '../../../src-main/cli/cli-build.ts';
import { readLogFile } from '../../../src-main/logs/read-log.ts';
import { cliPath, repoRoot, runArgs, startMockProcess } from '../support/cli.ts';
import { connectWs, demoStart, tempDirs, wsUrlOf } from './helpers.ts';

/** In 1 KiB blocks (bash's unit): well above any file `serve` writes at start, below a demo session's log. */
const LIMIT_KIB = 16;

describe('a log that cannot be written any further', () => {
  it('fails that session with a message naming the log, keeps what was written, and serves on', async () => {
    // Bundled first, without the limit (the launcher bundles the command line when a source is newer).
    await ensureCliBuilt();
    const dirs = tempDirs();
    const args = ['serve', '--port', '0', '--runs-dir', dirs.runsDir, '--settings-dir', dirs.settingsDir, '--static', dirs.runsDir];
    const child = spawn('bash', ['-c', `ulimit -f ${LIMIT_KIB}; exec "$0" "$@"`, cliPath, ...args], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).on('line', (line) => {
          const m = /(http:\/\/\S+\?token=\S+)/.exec(line);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${stderr}`)));
      });
      const c = await connectWs(wsUrlOf(url));
      const { session } = await c.call('session.start', demoStart('needle'));
      await c.call('subscribe', { sessionId: session.sessionId, fromSeq: 0 });
      const end = await c.status(session.sessionId, 'finished', 'failed', 'cancelled');
      expect(end.status).toBe('failed');
      expect(end.message).toBe(
        `cannot write to the log ${session.logFile}: the file reached the largest size this process may write (ulimit -f); the events before this one are in it`,
      );

      const log = await readLogFile(session.logFile!);
      expect(log.format).toBe('native');
      expect(log.events.length).toBeGreaterThan(0);
      expect(log.events.map((e) => e.seq)).toEqual(log.events.map((_, i) => i));
      expect(log.problems.filter((p) => p.severity === 'error')).toEqual([]);

      // The host is still there, and still answers.
      const { sessions } = await c.call('sessions.list');
      expect(sessions.some((s) => s.sessionId === session.sessionId && s.status === 'failed')).toBe(true);
      expect(child.exitCode).toBeNull();
      expect(stderr).not.toMatch(/at .*\.(ts|mjs):\d+/);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }, 60_000);

  it('run stops with the same message, and its log reads up to there', async () => {
    await ensureCliBuilt();
    const mock = await startMockProcess();
    try {
      const dir = mkdtempSync(join(tmpdir(), 'rlm-log-limit-'));
      const context = join(dir, 'records.txt');
      writeFileSync(context, 'record: cats and dogs\n'.repeat(20_000));
      const logDir = join(dir, 'logs');
      const args = runArgs({ context, query: 'Summarise.', baseUrl: mock.url, logDir });
      const r = spawnSync('bash', ['-c', `ulimit -f ${LIMIT_KIB}; exec "$0" "$@"`, cliPath, ...args], { cwd: repoRoot, encoding: 'utf8' });
      const logFile = join(logDir, readdirSync(logDir)[0]!);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(
        `rlm-studio: cannot write to the log ${logFile}: the file reached the largest size this process may write (ulimit -f); the events before this one are in it`,
      );
      expect(r.stderr).not.toMatch(/at .*\.(ts|mjs):\d+/);
      const log = await readLogFile(logFile);
      expect(log.events.length).toBeGreaterThan(0);
      expect(log.problems.filter((p) => p.severity === 'error')).toEqual([]);
    } finally {
      await mock.close();
    }
  }, 60_000);
});
