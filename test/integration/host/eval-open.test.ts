// `eval.open`: an evaluation directory (from the real runner against mock-llm) opened through
// the protocol: settings, per-task rows, task logs as read-only sessions (a limited number at
// once), errors that name the directory, and a torn results.jsonl reported, not fatal. Also
// `rlm-studio view DIR` opening an evaluation.
import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../src-shared/protocol-client.ts';
import { cliPath, repoRoot } from '../support/cli.ts';
import { connectInProcess, connectWs, tempDirs, wsUrlOf, hostPerTest, mixedEvaluationForFile } from './helpers.ts';

const mixed = mixedEvaluationForFile('rlm-eval-open-', 'full');
const { tmp, dir: evalDir } = mixed;
const newHost = hostPerTest();

describe('eval.open', () => {
  it('returns settings, one row per task and the task logs as saved sessions', async () => {
    const host = newHost();
    const c = connectInProcess(host);
    const { evaluation, sessions } = await c.call('eval.open', { path: evalDir });
    expect(evaluation).toMatchObject({ dir: evalDir, name: 'full', datasetTasks: 3, problems: [] });
    expect(evaluation.settings).toMatchObject({ model: 'mock-root', maxIterations: 2, maxDepth: 1, baseUrl: mixed.serverUrl });
    expect(evaluation.settings.dataset).toMatch(/ds\.jsonl$/);
    const byId = new Map(evaluation.tasks.map((t) => [t.id, t]));
    expect([...byId.keys()].sort()).toEqual(['browsecomp-8192-s1', 'oolong-8192-s1', 'sniah-8192-s1']);
    expect(byId.get('oolong-8192-s1')).toMatchObject({ kind: 'oolong', sizeTokens: 8192, score: 1, correct: true, stopReason: 'answered' });
    // Usage per model comes through from results.jsonl, the same as the row's own counts.
    const oolong = byId.get('oolong-8192-s1')!;
    expect(Object.values(oolong.byModel ?? {}).reduce((n, m) => n + m.calls, 0)).toBe(oolong.calls);
    expect(Object.keys(oolong.byModel ?? {})).toContain('mock-root');
    expect(byId.get('browsecomp-8192-s1')).toMatchObject({ correct: false, stopReason: 'max_iterations' });
    for (const t of evaluation.tasks) {
      expect(t.calls).toBeGreaterThan(0);
      expect(t.costUsd).toBeGreaterThan(0);
      expect(t.logFile).toMatch(/\.rlm\.jsonl$/);
      expect(t.sessionId).not.toBeNull();
    }
    expect(sessions.map((s) => s.sessionId).sort()).toEqual(evaluation.tasks.map((t) => t.sessionId).sort());
    for (const s of sessions) expect(s).toMatchObject({ status: 'saved', readOnly: true });
    expect(sessions.map((s) => s.title).sort()).toContain('full/oolong-8192-s1');

    // Opening again reuses the sessions instead of reading every log again.
    const again = await c.call('eval.open', { path: evalDir });
    expect(again.sessions.map((s) => s.sessionId).sort()).toEqual(sessions.map((s) => s.sessionId).sort());
    expect((await c.call('sessions.list')).sessions).toHaveLength(3);
  });

  it('opens only openLogs logs at once; the other rows keep their log path for later', async () => {
    const host = newHost();
    const c = connectInProcess(host);
    const { evaluation, sessions } = await c.call('eval.open', { path: evalDir, openLogs: 1 });
    expect(sessions).toHaveLength(1);
    expect(evaluation.tasks.filter((t) => t.sessionId !== null)).toHaveLength(1);
    const later = evaluation.tasks.find((t) => t.sessionId === null)!;
    const { session } = await c.call('session.open', { path: later.logFile! });
    expect(session.readOnly).toBe(true);
  });

  it('names a missing directory, and refuses a directory that is not an evaluation', async () => {
    const host = newHost();
    const c = connectInProcess(host);
    const missing = join(tmp, 'no-such-eval');
    const err = await c.call('eval.open', { path: missing }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProtocolError);
    expect((err as ProtocolError).code).toBe('not_found');
    expect((err as ProtocolError).message).toContain(missing);
    expect((err as ProtocolError).message).toMatch(/no such directory/);
    const empty = join(tmp, 'empty');
    mkdirSync(empty, { recursive: true });
    await expect(c.call('eval.open', { path: empty })).rejects.toThrow(
      /not an evaluation directory: it has neither results\.jsonl nor eval\.json/,
    );
    await expect(c.call('eval.open', { path: join(evalDir, 'results.jsonl') })).rejects.toThrow(/is not a directory/);
    // The schema still guards the parameters.
    await expect(c.call('eval.open', { path: '' })).rejects.toThrow(/path/);
  });

  it('reports a torn last line and a malformed line of results.jsonl, keeping the good rows', async () => {
    const torn = join(tmp, 'torn');
    cpSync(evalDir, torn, { recursive: true });
    const lines = readFileSync(join(torn, 'results.jsonl'), 'utf8').trimEnd().split('\n');
    // A kill mid-write: the last line is cut in half and has no newline.
    writeFileSync(join(torn, 'results.jsonl'), `${lines.slice(0, 2).join('\n')}\n{"oops":1}\n${lines[2]!.slice(0, 40)}`);
    const host = newHost();
    const c = connectInProcess(host);
    const { evaluation } = await c.call('eval.open', { path: torn, openLogs: 0 });
    expect(evaluation.tasks).toHaveLength(2);
    expect(evaluation.problems).toEqual([
      expect.stringMatching(/^results\.jsonl line 3 is not a task result \(id: .*\) and was skipped$/),
      'results.jsonl line 4 is incomplete (cut off mid-write?) and was skipped',
    ]);
    // Rows point at the copied logs, not the originals.
    for (const t of evaluation.tasks) expect(t.logFile?.startsWith(torn)).toBe(true);
  });

  it('finds the logs of a moved directory, and reports missing ones', async () => {
    const moved = join(tmp, 'moved');
    cpSync(evalDir, join(tmp, 'tmp-moved'), { recursive: true });
    renameSync(join(tmp, 'tmp-moved'), moved);
    const results = readFileSync(join(moved, 'results.jsonl'), 'utf8');
    // Point every row at a path that no longer exists, as after moving the directory.
    writeFileSync(join(moved, 'results.jsonl'), results.replaceAll(join(evalDir, 'logs'), '/gone/logs'));
    appendFileSync(join(moved, 'results.jsonl'), `${JSON.stringify({ id: 'x', score: 0, logFile: '/gone/logs/x.rlm.jsonl' })}\n`);
    const host = newHost();
    const c = connectInProcess(host);
    const { evaluation } = await c.call('eval.open', { path: moved, openLogs: 0 });
    expect(evaluation.tasks.filter((t) => t.logFile?.startsWith(join(moved, 'logs')))).toHaveLength(3);
    expect(evaluation.tasks.find((t) => t.id === 'x')).toMatchObject({ logFile: null, kind: 'unknown', costUsd: null });
    expect(evaluation.problems).toEqual(['1 task log(s) named in results.jsonl are missing']);
  });
});

describe('rlm-studio view DIR', () => {
  it('serves an evaluation directory with it named in the URL and its logs opened', async () => {
    const dirs = tempDirs();
    const child = spawn(cliPath, ['view', evalDir, '--port', '0', '--runs-dir', dirs.runsDir, '--settings-dir', dirs.settingsDir], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).on('line', (l) => l.includes('token=') && resolve(l));
        child.once('exit', (code) => reject(new Error(`view exited early (${code})`)));
      });
      expect(line).toContain('the evaluation');
      expect(line).toContain('(3 task(s))');
      const m = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+)#eval=(\S+)/.exec(line);
      expect(m).not.toBeNull();
      expect(decodeURIComponent(m![2]!)).toBe(evalDir);
      const ws = await connectWs(wsUrlOf(m![1]!));
      expect((await ws.call('sessions.list')).sessions).toHaveLength(3);
      // The page opens it again from the fragment: same sessions.
      expect((await ws.call('eval.open', { path: evalDir })).sessions).toHaveLength(3);
      expect((await ws.call('sessions.list')).sessions).toHaveLength(3);
      ws.closeCarrier();
    } finally {
      child.kill('SIGTERM');
    }
  });
});
