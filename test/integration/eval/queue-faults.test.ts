// Issue 40, defect 7, against a real redis-server and real worker processes: a session whose
// worker dies each time it runs it is run twice in all (as src-main/eval/README.md says), then
// its result line says so with the count; and a Redis outage is told by the coordinator in one
// line when it begins and one when it ends (no 8-line connection dumps per reconnection).
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDataset } from '../../../src-main/cli/dataset-file.ts';
import type { TaskResult } from '../../../src-main/eval/results.ts';
import { startCli, startMockProcess, type MockProcess, type RunningCli } from '../support/cli.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlm-queue-faults-'));
let redis: TestRedis;
let mock: MockProcess;

const lines = (out: string): TaskResult[] =>
  existsSync(join(out, 'results.jsonl'))
    ? readFileSync(join(out, 'results.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as TaskResult)
    : [];

async function until(what: string, cond: () => boolean, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

function output(c: RunningCli): () => string {
  let s = '';
  c.child.stderr!.on('data', (d: string) => (s += d));
  return () => s;
}

async function stop(c: RunningCli): Promise<void> {
  if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGTERM');
  await c.done;
}

const coordinator = (ds: string, out: string): RunningCli =>
  startCli(['eval', ds, '--queue', redis.url, '--base-url', mock.url, '--model', 'mock-root', '--out', out, '--no-progress']);

beforeAll(async () => {
  // Append-only: the outage test's restart keeps the queued sessions.
  redis = await startRedis({ appendOnly: true });
  // Slow: a session lasts seconds, so a worker is killed while it runs one.
  mock = await startMockProcess(['--latency-ms', '1500']);
});

afterAll(async () => {
  await mock?.close();
  await redis?.stop();
});

describe('eval --queue faults', () => {
  it('a session whose worker dies every time runs twice in all, and its line says so', async () => {
    const ds = join(tmp, 'one.jsonl');
    await writeDataset({ kinds: ['sniah'], sizes: [8192], seed: 1, count: 1, out: ds, inlineMaxChars: 1 << 20 });
    const out = join(tmp, 'killer');
    const c = coordinator(ds, out);
    const said = output(c);
    let runs = 0;
    const workers: RunningCli[] = [];
    try {
      // Each run of the session: a fresh worker takes it and is killed as it starts.
      while (c.child.exitCode === null && runs < 4) {
        const w = startCli(['worker', '--queue', redis.url, '--concurrency', '1', '--lock-duration', '1000']);
        workers.push(w);
        const text = output(w);
        await until('the worker to start the session, or the evaluation to end', () => /started/.test(text()) || c.child.exitCode !== null);
        if (c.child.exitCode !== null) break;
        runs++;
        w.child.kill('SIGKILL');
        await w.done;
      }
      const res = await c.done;
      expect(res.code, said()).toBe(1);
    } finally {
      await Promise.all(workers.map(stop));
      await stop(c);
    }
    expect(runs).toBe(2);
    const [line] = lines(out);
    expect(line?.stopReason).toBe('error');
    expect(line?.message).toMatch(/its worker stopped \(killed or crashed\) during each of its 2 run\(s\)/);
  });

  it('a Redis outage: one line when it begins, one when it ends, and the evaluation completes', async () => {
    const ds = join(tmp, 'two.jsonl');
    await writeDataset({ kinds: ['sniah'], sizes: [8192], seed: 2, count: 2, out: ds, inlineMaxChars: 1 << 20 });
    const out = join(tmp, 'outage');
    const w = startCli(['worker', '--queue', redis.url, '--concurrency', '2']);
    const c = coordinator(ds, out);
    const said = output(c);
    try {
      await until('the sessions to be queued', () => /queued now/.test(said()));
      await redis.kill();
      await sleep(4000);
      await redis.start();
      const res = await c.done;
      const text = said();
      expect(res.code, text).toBe(0);
      expect(text.match(/unreachable/g), text).toHaveLength(1);
      // Which error says so depends on the moment: a command in flight when Redis died reads a
      // reset connection; a reconnect finds the port refused.
      expect(text).toMatch(
        new RegExp(
          `eval: Redis at ${redis.url} unreachable \\((connect ECONNREFUSED 127\\.0\\.0\\.1:${redis.port}|read ECONNRESET)\\); waiting for it\n`,
        ),
      );
      expect(text.match(/reachable again/g), text).toHaveLength(1);
      expect(text).toContain(`eval: Redis at ${redis.url} reachable again\n`);
      expect(text).not.toMatch(/\n\s+at |errno|ECONNREFUSED.*\n.*ECONNREFUSED/);
      expect(lines(out)).toHaveLength(2);
    } finally {
      await stop(w);
      await stop(c);
    }
  });
});
