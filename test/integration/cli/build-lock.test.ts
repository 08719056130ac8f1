// The build lock that `serve`, `demo`, `view`, `bundle` and the CLI launcher take before
// building: a lock left by a process that ended (Ctrl-C during a build) must not make the next
// command wait in silence, and a live holder is waited for, visibly.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const MODULE = resolve(import.meta.dirname, '../../../src-main/cli/renderer-build.ts');
const ACQUIRE = `const { acquireBuildLock } = await import(${JSON.stringify(MODULE)});
const release = acquireBuildLock(process.argv[1]);
process.stdout.write('got\\n');
release();`;

interface Acquirer {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  done: Promise<number | null>;
}

function acquire(dist: string): Acquirer {
  const child = spawn(process.execPath, ['--input-type=module', '-e', ACQUIRE, dist], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const done = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  return { child, out: () => out, err: () => err, done };
}

async function until(cond: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started.splice(0)) c.kill('SIGKILL');
});

function lockFor(pid: number | null): { dist: string; lock: string } {
  const dist = join(mkdtempSync(join(tmpdir(), 'rlm-build-lock-')), 'dist', 'renderer');
  const lock = `${dist}.lock`;
  mkdirSync(lock, { recursive: true });
  if (pid !== null) writeFileSync(join(lock, 'pid'), String(pid));
  return { dist, lock };
}

describe('acquireBuildLock', () => {
  it('takes over at once a lock whose holder has ended, and removes that holder’s half-made build', async () => {
    const pid = deadPid();
    const { dist, lock } = lockFor(pid);
    mkdirSync(`${dist}.new-${pid}`);
    const a = acquire(dist);
    started.push(a.child);
    // Before the holder was named, this waited for the lock to age five minutes.
    expect(await a.done).toBe(0);
    expect(a.out()).toBe('got\n');
    expect(a.err()).toContain(`took over ${lock}: its holder (pid ${pid}) has ended`);
    expect(existsSync(`${dist}.new-${pid}`)).toBe(false);
    expect(existsSync(lock)).toBe(false);
  }, 20_000);

  it('waits for a live holder and says so, then takes the lock once the holder is gone', async () => {
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    started.push(holder);
    const { dist } = lockFor(holder.pid as number);
    const a = acquire(dist);
    started.push(a.child);
    await until(() => a.err().includes(`waiting for another build of ${dist} (pid ${holder.pid}) to finish`), 10_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(a.out()).toBe('');
    holder.kill('SIGKILL');
    expect(await a.done).toBe(0);
    expect(a.out()).toBe('got\n');
  }, 20_000);

  it('takes over a lock that names no holder once the holder has had time to name itself', async () => {
    const { dist, lock } = lockFor(null);
    const past = (Date.now() - 60_000) / 1000;
    utimesSync(lock, past, past);
    const a = acquire(dist);
    started.push(a.child);
    expect(await a.done).toBe(0);
    expect(a.err()).toContain('it names no holder');
  }, 20_000);
});
