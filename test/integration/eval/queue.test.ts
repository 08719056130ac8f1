// Distributed evaluation against a real redis-server and real worker processes: three workers
// with one SIGKILLed mid-session, enqueueing twice, a coordinator killed and started again, a
// Redis killed and restarted (append-only file) mid-run, and the backoff shared through Redis.
// Every session must end exactly once in results.jsonl, correct, with its log in --out.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeDataset } from '../../../src-main/cli/dataset-file.ts';
import { SharedEndpointBackoff } from '../../../src-main/eval/queue/endpoint-backoff.ts';
import { keys } from '../../../src-main/eval/queue/keys.ts';
import { connectRedis } from '../../../src-main/eval/queue/redis.ts';
import { queueStatus } from '../../../src-main/eval/queue/status.ts';
import { readResults, type TaskResult } from '../../../src-main/eval/results.ts';
import { readLogFile } from '../../../src-main/logs/read-log.ts';
import { startMockLlm } from '../../../src-main/mock-llm/server.ts';
import { startCli, startMockProcess, type MockProcess, type RunningCli } from '../support/cli.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlm-queue-'));
let redis: TestRedis;
let mock: MockProcess;
const ds = join(tmp, 'ds.jsonl');
const TASKS = 6;

const lines = (out: string): TaskResult[] =>
  existsSync(join(out, 'results.jsonl'))
    ? readFileSync(join(out, 'results.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as TaskResult)
    : [];
const keyOf = (r: TaskResult): string => (r.repeat ? `${r.id}#${r.repeat}` : r.id);

async function until(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

function collectOutput(c: RunningCli): { text: () => string } {
  let s = '';
  c.child.stderr!.on('data', (d: string) => (s += d));
  return { text: () => s };
}

const worker = (extra: string[] = []): RunningCli =>
  startCli(['worker', '--queue', redis.url, '--concurrency', '2', '--lock-duration', '2000', ...extra]);
const coordinator = (out: string, extra: string[] = []): RunningCli =>
  startCli(['eval', ds, '--queue', redis.url, '--base-url', mock.url, '--model', 'mock-root', '--out', out, '--no-progress', ...extra]);

async function stopAll(cs: RunningCli[]): Promise<void> {
  await Promise.all(
    cs.map(async (c) => {
      if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGTERM');
      await c.done;
    }),
  );
}

/** Every session once, each correct, each with a readable log in --out. */
async function expectComplete(out: string, sessions: string[]): Promise<void> {
  const rs = lines(out);
  expect(rs.map(keyOf).sort()).toEqual([...sessions].sort());
  for (const r of rs) {
    expect(r.correct, `${keyOf(r)}: ${r.stopReason} ${r.message}`).toBe(true);
    expect(r.logFile).toBe(join(out, 'logs', `${r.id}${r.repeat ? `.r${r.repeat}` : ''}.rlm.jsonl`));
    const log = await readLogFile(r.logFile!);
    expect(log.problems).toEqual([]);
    expect(log.events.at(-1)?.type).toBe('run.end');
  }
  const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { finished: number; correct: number };
  expect(summary).toMatchObject({ finished: sessions.length, correct: sessions.length });
}

const ids = (): string[] => generated.map((t) => t.id);

function commOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/** The processes below `pid`, from /proc. */
function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      children = children.concat(
        readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8')
          .split(' ')
          .filter((x) => x.trim() !== '')
          .map(Number),
      );
    }
  } catch {
    return [];
  }
  return children.flatMap((c) => [c, ...descendants(c)]);
}
let generated: { id: string }[] = [];

beforeAll(async () => {
  redis = await startRedis({ appendOnly: true });
  // Slow enough that a kill lands mid-session; the sessions of sniah take 4 calls, oolong 6.
  mock = await startMockProcess(['--latency-ms', '120']);
  generated = await writeDataset({ kinds: ['sniah', 'oolong'], sizes: [8192], seed: 1, count: TASKS / 2, out: ds, inlineMaxChars: 20_000 });
});

afterAll(async () => {
  await mock?.close();
  await redis?.stop();
});

describe('eval --queue', () => {
  it('three workers, one SIGKILLed mid-session: every session ends exactly once, all correct, logs shipped back', async () => {
    const out = join(tmp, 'three');
    const ws = [worker(), worker(), worker()];
    const first = collectOutput(ws[0]!);
    const c = coordinator(out, ['--repeat', '2']);
    const coordOut = collectOutput(c);
    await until('the first worker to start a session', () => /started/.test(first.text()));
    ws[0]!.child.kill('SIGKILL');
    const res = await c.done;
    expect(res.code, coordOut.text()).toBe(0);
    const started = [...first.text().matchAll(/: (\S+) started/g)].map((m) => m[1]);
    const finished = new Set([...first.text().matchAll(/: (\S+) (answered|error|max_\w+)/g)].map((m) => m[1]));
    const cut = started.filter((k) => !finished.has(k));
    // The killed worker held a session; another worker ran it again after its lock expired.
    expect(cut.length).toBeGreaterThan(0);
    await expectComplete(
      out,
      ids().flatMap((id) => [id, `${id}#1`]),
    );
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { repeats: number; byRepeat: { accuracy: number[] } };
    expect(summary.repeats).toBe(2);
    expect(summary.byRepeat.accuracy).toEqual([1, 1]);
    await stopAll(ws);
    // Collected jobs leave the queue; the finished evaluation's configuration and contexts are gone too.
    const status = await queueStatus(redis.url);
    expect(status.counts).toMatchObject({ waiting: 0, active: 0, completed: 0, failed: 0 });
    const probe = connectRedis(redis.url);
    try {
      expect(await probe.keys(keys.context('*', '*'))).toEqual([]);
      expect(await probe.keys(keys.config('*'))).toEqual([]);
    } finally {
      await probe.quit();
    }
  });

  it('enqueueing twice adds nothing; a coordinator killed mid-run resumes when started again', async () => {
    const out = join(tmp, 'resume');
    const c1 = coordinator(out);
    const o1 = collectOutput(c1);
    await until('the first enqueue', () => /queued now/.test(o1.text()));
    expect(o1.text()).toMatch(new RegExp(`${TASKS} queued now, 0 were queued already`));
    c1.child.kill('SIGKILL');
    await c1.done;
    expect((await queueStatus(redis.url)).counts['waiting']).toBe(TASKS);

    const c2 = coordinator(out);
    const o2 = collectOutput(c2);
    await until('the second enqueue', () => /queued now/.test(o2.text()));
    expect(o2.text()).toMatch(new RegExp(`0 queued now, ${TASKS} were queued already`));
    expect((await queueStatus(redis.url)).counts['waiting']).toBe(TASKS);

    const w = worker();
    await until('two results', () => lines(out).length >= 2);
    c2.child.kill('SIGKILL');
    await c2.done;
    // The workers go on without a coordinator; their results wait in Redis.
    await until('a result finished while no coordinator ran', async () => ((await queueStatus(redis.url)).counts['completed'] ?? 0) > 0);

    const c3 = coordinator(out);
    const o3 = collectOutput(c3);
    const res = await c3.done;
    expect(res.code, o3.text()).toBe(0);
    expect(o3.text()).toMatch(/0 queued now/);
    await expectComplete(out, ids());
    await stopAll([w]);
  });

  it('a Redis killed and restarted mid-run (append-only file) loses no finished result', async () => {
    const out = join(tmp, 'redis-restart');
    const ws = [worker(), worker()];
    const c = coordinator(out, ['--repeat', '2']);
    const o = collectOutput(c);
    await until('three results', () => lines(out).length >= 3);
    await redis.kill();
    await sleep(1500);
    await redis.start();
    const res = await c.done;
    expect(res.code, o.text()).toBe(0);
    await expectComplete(
      out,
      ids().flatMap((id) => [id, `${id}#1`]),
    );
    await stopAll(ws);
  });

  it('a JSON context, in a file or inline, reaches a Python session on a worker with the numbers of its text', async () => {
    const dir = mkdtempSync(join(tmp, 'json-'));
    const numbers = '{"x": 2.0, "big": 12345678901234567890}';
    writeFileSync(join(dir, 'numbers.json'), numbers);
    const expected = '[2.0, 12345678901234567890]';
    const line = { id: 'numbers', kind: 'custom', query: 'Which numbers?', expected, scorer: 'exact', contextFile: 'numbers.json' };
    // Written by hand: JavaScript's JSON.stringify would write 2 and round the big integer.
    const inline = `{"id": "inline", "kind": "custom", "query": "Which numbers?", "expected": "${expected}", "scorer": "exact", "context": ${numbers}}`;
    writeFileSync(join(dir, 'ds.jsonl'), `${JSON.stringify(line)}\n${inline}\n`);
    const reply = '```repl\nanswer["content"] = repr([context["x"], context["big"]])\nanswer["ready"] = True\n```';
    writeFileSync(join(dir, 'script.json'), JSON.stringify({ rules: [{ match: { kind: 'rlm', turn: 1 }, reply }] }));
    const scripted = await startMockProcess(['--script', join(dir, 'script.json')]);
    const w = worker();
    try {
      const out = join(dir, 'out');
      const c = startCli([
        'eval',
        join(dir, 'ds.jsonl'),
        '--queue',
        redis.url,
        '--base-url',
        scripted.url,
        '--model',
        'mock-root',
        '--out',
        out,
        '--no-progress',
        '--repl',
        'python',
      ]);
      const coordOut = collectOutput(c);
      expect((await c.done).code, coordOut.text()).toBe(0);
      expect(
        lines(out)
          .map((r) => [r.id, r.answer, r.correct])
          .sort(),
      ).toEqual([
        ['inline', expected, true],
        ['numbers', expected, true],
      ]);
    } finally {
      await stopAll([w]);
      await scripted.close();
    }
  });

  it('a --repl cpython evaluation runs its sessions in CPython inside the OS sandbox on the worker', async () => {
    const out = join(tmp, 'cpython');
    const w = worker();
    const c = coordinator(out, ['--repl', 'cpython', '--python', '/usr/bin/python3']);
    const coordOut = collectOutput(c);
    // The worker's sessions run the interpreter under bwrap, a process of the worker's own.
    const bwrapOf = (pid: number): boolean => descendants(pid).some((p) => commOf(p) === 'bwrap');
    await until('a sandboxed interpreter under the worker', () => bwrapOf(w.child.pid!));
    const res = await c.done;
    expect(res.code, coordOut.text()).toBe(0);
    await expectComplete(out, ids());
    expect(JSON.parse(readFileSync(join(out, 'eval.json'), 'utf8'))).toMatchObject({
      repl: 'python',
      cpython: { python: '/usr/bin/python3' },
    });
    await stopAll([w]);
  });

  it('a key missing on the workers is an error result naming it; --retry-errors queues those sessions again', async () => {
    const out = join(tmp, 'retry');
    const keyArgs = ['--api-key-env', 'RLM_QUEUE_TEST_KEY'];
    const bare = startCli(['worker', '--queue', redis.url, '--concurrency', '2'], { RLM_QUEUE_TEST_KEY: '' });
    const c1 = coordinator(out, keyArgs);
    const o1 = collectOutput(c1);
    // Every session in error: nothing was measured, and the status says so.
    expect((await c1.done).code, o1.text()).toBe(1);
    expect(o1.text()).toContain(`every session (${TASKS}) ended in an error`);
    const failed = lines(out);
    expect(failed).toHaveLength(TASKS);
    for (const r of failed) {
      expect(r.stopReason).toBe('error');
      expect(r.message).toMatch(/RLM_QUEUE_TEST_KEY \(the endpoint's API key\) is not set/);
    }
    await stopAll([bare]);
    const keyed = startCli(['worker', '--queue', redis.url, '--concurrency', '2'], { RLM_QUEUE_TEST_KEY: 'k' });
    const c2 = coordinator(out, [...keyArgs, '--retry-errors']);
    const o2 = collectOutput(c2);
    expect((await c2.done).code, o2.text()).toBe(0);
    expect(o2.text()).toMatch(new RegExp(`retrying ${TASKS} that ended in an error; ${TASKS} queued now`));
    // Appended, never rewritten: the error lines stay, and the new ones supersede them.
    expect(lines(out)).toHaveLength(2 * TASKS);
    expect(readResults(join(out, 'results.jsonl')).results.every((r) => r.correct)).toBe(true);
    await stopAll([keyed]);
  });

  it('a 429 seen by one worker holds back the others: the backoff lives in Redis, per endpoint', async () => {
    const server = await startMockLlm({ failEvery: 1, failStatus: 429, failRetryAfterMs: 300 });
    const a = connectRedis(redis.url);
    const b = connectRedis(redis.url);
    try {
      const one = new SharedEndpointBackoff(a);
      const other = new SharedEndpointBackoff(b);
      const res = await one.fetchFor(server.url)(`${server.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(429);
      expect(one.stats.reported).toBe(1);
      // The other worker, which saw no error itself, waits out the endpoint's hold.
      expect(await other.wait(server.url)).toBeGreaterThan(0);
      expect(other.stats.waits).toBe(1);
      expect(await a.pttl(keys.backoff(server.url))).toBeLessThanOrEqual(0);
      // Another endpoint is not held back.
      await one.report('http://elsewhere/v1', 5000);
      expect(await other.wait(server.url)).toBe(0);
      // A shorter hold never cuts a longer one short.
      await other.report('http://elsewhere/v1', 10);
      expect(await a.pttl(keys.backoff('http://elsewhere/v1'))).toBeGreaterThan(1000);
      await a.del(keys.backoff('http://elsewhere/v1'));
    } finally {
      await a.quit();
      await b.quit();
      await server.close();
    }
  });
});
