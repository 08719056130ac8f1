// The host's runs browser without a page: rows of logs and evaluation folders, their status
// from what is on disk, and the changes pushed to a watching client (a log added, one removed,
// an evaluation that stopped updating its progress).
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HostMessage, RunListing } from '../../../src-shared/protocol.ts';
import { RunsBrowser } from '../../../src-main/host/runs-browser.ts';
import type { Client } from '../../../src-main/host/subscribers.ts';

const dir = mkdtempSync(join(tmpdir(), 'rlm-runs-browser-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const header = { format: 'rlm-studio', version: 1, sessionId: 's', createdAt: '2026-01-02T03:04:05.000Z' };
const start = {
  type: 'run.start',
  runId: 'run-0',
  parentRunId: null,
  depth: 0,
  spawnedBy: null,
  turn: 0,
  model: 'm-root',
  v: 1,
  seq: 0,
  t: 0,
  ts: '',
};
const end = (stopReason: string, costUsd: number | null) => ({
  type: 'run.end',
  runId: 'run-0',
  parentRunId: null,
  depth: 0,
  answer: 'a',
  stopReason,
  message: null,
  iterations: 1,
  durationMs: 50,
  usage: { inputTokens: 1, outputTokens: 1, calls: 1, costUsd },
  v: 1,
  seq: 1,
  t: 50,
  ts: '',
});
const log = (name: string, ...lines: object[]): string => {
  const path = join(dir, name);
  writeFileSync(path, [header, ...lines].map((l) => JSON.stringify(l)).join('\n') + '\n');
  return path;
};

function evalDir(name: string, progress: { state: string; updatedAt: string } | null): string {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  writeFileSync(join(d, 'eval.json'), JSON.stringify({ model: 'm-eval', repl: 'python', createdAt: '2026-01-01T00:00:00.000Z' }));
  const row = (id: string, correct: boolean, costUsd: number | null) =>
    JSON.stringify({ id, score: correct ? 1 : 0, correct, stopReason: 'answered', usage: { calls: 1, costUsd }, logFile: null });
  writeFileSync(join(d, 'results.jsonl'), `${row('t1', true, 0.5)}\n${row('t2', false, null)}\n`);
  if (progress)
    writeFileSync(
      join(d, 'progress.json'),
      JSON.stringify({
        ...progress,
        mode: 'local',
        total: 3,
        done: 2,
        failed: 0,
        running: 1,
        costUsd: 0.5,
        perMinute: 1,
        etaMs: null,
        startedAt: '2026-01-01T00:00:00.000Z',
        host: 'h',
        pid: 1,
      }),
    );
  return d;
}

describe('RunsBrowser', () => {
  it('lists logs and evaluations with their status, and pushes what changes', async () => {
    const done = log('done.rlm.jsonl', start, end('answered', 0.25));
    const limited = log('limit.rlm.jsonl', start, end('max_iterations', null));
    const failed = log('failed.rlm.jsonl', start, end('error', 0.1));
    const running = log('running.rlm.jsonl', start);
    const live = evalDir('eval-live', { state: 'running', updatedAt: new Date().toISOString() });
    const stale = evalDir('eval-stale', { state: 'running', updatedAt: '2026-01-01T00:10:00.000Z' });
    const pushes: HostMessage[] = [];
    const client: Client = { send: (m) => pushes.push(m), buffered: () => 0, subs: new Map() };
    const browser = new RunsBrowser({ runsDir: dir, liveLogs: () => new Set(), send: (c, m) => c.send(m) });
    try {
      const { entries } = await browser.watch(client, []);
      const by = new Map(entries.map((e) => [e.path, e]));
      expect(by.get(done)).toMatchObject({
        kind: 'run',
        status: 'finished',
        model: 'm-root',
        repl: 'javascript',
        costUsd: 0.25,
        durationMs: 50,
      });
      expect(by.get(limited)).toMatchObject({ status: 'limit', costUsd: null, unpriced: 1 });
      expect(by.get(failed)?.status).toBe('failed');
      expect(by.get(running)?.status).toBe('live');
      expect(by.get(live)).toMatchObject({
        kind: 'evaluation',
        status: 'live',
        model: 'm-eval',
        repl: 'python',
        score: { correct: 1, finished: 2, total: 3 },
        costUsd: 0.5,
        unpriced: 1,
      });
      expect(by.get(stale)?.status).toBe('interrupted');
      // A new log and a removed one arrive as one push each way, without asking.
      const added = log('added.rlm.jsonl', start, end('answered', 1));
      unlinkSync(failed);
      const changed = new Map<string, RunListing>();
      const removed = new Set<string>();
      await expect
        .poll(
          () => {
            for (const m of pushes.splice(0))
              if (m.kind === 'runs') {
                for (const r of m.changed) changed.set(r.path, r);
                for (const p of m.removed) removed.add(p);
              }
            return changed.has(added) && removed.has(failed);
          },
          { timeout: 20_000 },
        )
        .toBe(true);
      expect(changed.get(added)?.status).toBe('finished');
      // An evaluation that writes its progress again is live again.
      evalDir('eval-stale', { state: 'running', updatedAt: new Date().toISOString() });
      await expect
        .poll(
          () => {
            for (const m of pushes.splice(0)) if (m.kind === 'runs') for (const r of m.changed) changed.set(r.path, r);
            return changed.get(stale)?.status;
          },
          { timeout: 20_000 },
        )
        .toBe('live');
      // Nothing more goes to a client that stopped watching.
      browser.unwatch(client);
      log('later.rlm.jsonl', start);
      await new Promise((r) => setTimeout(r, 600));
      expect(pushes.filter((m) => m.kind === 'runs')).toEqual([]);
    } finally {
      browser.close();
    }
  });

  it('names a folder it cannot read, and lists the others', async () => {
    const browser = new RunsBrowser({ runsDir: dir, liveLogs: () => new Set(), send: () => {} });
    const client: Client = { send: () => {}, buffered: () => 0, subs: new Map() };
    try {
      const listing = await browser.watch(client, [join(dir, 'nope')]);
      expect(listing.problems).toEqual([`${join(dir, 'nope')}: no such folder`]);
      expect(listing.entries.length).toBeGreaterThan(0);
    } finally {
      browser.close();
    }
  });
});
