// The real command, killed with SIGKILL mid-run: the log it leaves opens, up to the kill.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { readLogFile } from '../../../src-main/logs/read-log.ts';
import { cliPath, repoRoot } from '../support/cli.ts';
import { connectWs, demoStart, tempDirs, wsUrlOf } from './helpers.ts';

describe('serve killed with SIGKILL during a run', () => {
  it('leaves a log that opens, with every event up to the kill', async () => {
    const dirs = tempDirs();
    const child = spawn(
      cliPath,
      ['serve', '--port', '0', '--runs-dir', dirs.runsDir, '--settings-dir', dirs.settingsDir, '--demo-latency-ms', '40'],
      {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, sig) => r(sig)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).on('line', (line) => {
          const m = /(http:\/\/\S+\?token=\S+)/.exec(line);
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`serve exited early (${code})`)));
      });
      const c = await connectWs(wsUrlOf(url));
      const { session } = await c.call('session.start', demoStart('recursive'));
      await c.call('subscribe', { sessionId: session.sessionId, fromSeq: 0 });
      const seen = await c.until(() => {
        const n = c.events.get(session.sessionId)?.length ?? 0;
        return n >= 12 ? n : null;
      }, 'a dozen events');
      // The serve process's workers (the session's, and a booted spare).
      const { execFileSync } = await import('node:child_process');
      const workers = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .map((l) => l.trim().split(/\s+/).map(Number))
        .filter(([, ppid]) => ppid === child.pid)
        .map(([pid]) => pid!);
      expect(workers.length).toBeGreaterThan(0);
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');

      expect(session.logFile).not.toBeNull();
      expect(existsSync(session.logFile!)).toBe(true);
      const log = await readLogFile(session.logFile!);
      expect(log.format).toBe('native');
      expect(log.header?.sessionId).toBe(session.sessionId);
      // Everything the client was sent had been written first; the run had not finished.
      expect(log.events.length).toBeGreaterThanOrEqual(seen);
      expect(log.events.map((e) => e.seq)).toEqual(log.events.map((_, i) => i));
      expect(log.events.some((e) => e.type === 'run.end' && e.parentRunId === null)).toBe(false);
      expect(log.problems.filter((p) => p.severity === 'error')).toEqual([]);
      // The orphaned workers notice their host is gone and stop.
      const alive = (): boolean =>
        workers.some((pid) => {
          try {
            process.kill(pid, 0);
            return true;
          } catch {
            return false;
          }
        });
      for (let i = 0; i < 100 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
      expect(alive()).toBe(false);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
