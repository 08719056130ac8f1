// A throwaway redis-server for tests: Debian's binary on a free loopback port with its own
// temporary directory; restartable on the same port and directory (persistence tests).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const REDIS_SERVER = '/usr/bin/redis-server';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface TestRedis {
  url: string;
  port: number;
  dir: string;
  /** The server's process id (null while stopped). */
  pid(): number | null;
  /** SIGKILL: no chance to write anything more (the append-only file has every acknowledged write with `appendfsync always`). */
  kill(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startRedis(opts: { appendOnly?: boolean } = {}): Promise<TestRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'rlm-redis-'));
  let child: ChildProcess | null = null;
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    opts.appendOnly ? 'yes' : 'no',
    '--appendfsync',
    'always',
    '--daemonize',
    'no',
  ];
  const start = async (): Promise<void> => {
    const c = spawn(REDIS_SERVER, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    let out = '';
    await new Promise<void>((resolve, reject) => {
      c.stdout.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (out.includes('Ready to accept connections')) resolve();
      });
      c.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
      c.once('error', reject);
    });
  };
  const waitExit = (sig: NodeJS.Signals): Promise<void> =>
    new Promise((resolve) => {
      const c = child;
      child = null;
      if (!c || c.exitCode !== null) return resolve();
      c.once('exit', () => resolve());
      c.kill(sig);
    });
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    start,
    pid: () => child?.pid ?? null,
    kill: () => waitExit('SIGKILL'),
    stop: async () => {
      await waitExit('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
