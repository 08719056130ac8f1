// Labels and tree queries through the protocol, as the app uses them: a saved log's labels
// read and changed through the host (the sidecar grows, the log's bytes do not change), a log
// sent as text refused with the reason, queries over a folder with errors that point.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { KNOWN, writeSessionFolder } from '../../support/session-folder.ts';
import { connectInProcess, hostPerTest } from './helpers.ts';

const N = 8;
const tmp = mkdtempSync(join(tmpdir(), 'rlm-host-labels-'));
const dir = join(tmp, 'logs');
let paths: string[];
const newHost = hostPerTest();

beforeAll(() => {
  paths = writeSessionFolder(dir, N);
  writeFileSync(
    join(tmp, 'rlm-labels.json'),
    JSON.stringify({ labels: [{ name: 'good-decomposition', description: 'clean split' }, { name: 'missed-evidence' }] }),
  );
});
describe('labels through the host', () => {
  it('reads the set, adds, notes and removes; the log is untouched and the labels survive a new host', async () => {
    let host = newHost();
    const c = connectInProcess(host);
    const log = paths[0]!;
    const before = readFileSync(log);
    const { session } = await c.call('session.open', { path: log });
    const empty = (await c.call('labels.get', { sessionId: session.sessionId })).labels;
    expect(empty).toMatchObject({ writable: true, sidecar: `${log}.labels.jsonl`, targets: [], setProblem: null });
    expect(empty.set?.labels.map((l) => l.name)).toEqual(['good-decomposition', 'missed-evidence']);

    const id = session.sessionId;
    await c.call('labels.change', {
      sessionId: id,
      change: { op: 'add', target: 'run:s0-grand', label: 'missed-evidence', note: 'looped' },
    });
    await c.call('labels.change', { sessionId: id, change: { op: 'add', target: 'call:s0-llm', label: 'good-decomposition' } });
    await c.call('labels.change', { sessionId: id, change: { op: 'note', target: 'iteration:s0-root#1', text: 'the split' } });
    const after = (
      await c.call('labels.change', { sessionId: id, change: { op: 'remove', target: 'call:s0-llm', label: 'good-decomposition' } })
    ).labels;
    expect(after.targets).toEqual([
      { target: 'iteration:s0-root#1', labels: [], note: 'the split' },
      { target: 'run:s0-grand', labels: [{ label: 'missed-evidence', note: 'looped', at: expect.any(String) as unknown }], note: null },
    ]);
    expect(readFileSync(log).equals(before)).toBe(true);

    await host.close();
    host = newHost();
    const c2 = connectInProcess(host);
    const again = await c2.call('session.open', { path: log });
    expect((await c2.call('labels.get', { sessionId: again.session.sessionId })).labels.targets).toEqual(after.targets);
  });

  it('refuses an unknown label or target with a bad request naming it, and a log without a file with the reason', async () => {
    const host = newHost();
    const c = connectInProcess(host);
    const { session } = await c.call('session.open', { path: paths[1]! });
    await expect(
      c.call('labels.change', { sessionId: session.sessionId, change: { op: 'add', target: 'run:s1-root', label: 'brilliant' } }),
    ).rejects.toMatchObject({ code: 'bad_request', message: expect.stringMatching(/unknown label "brilliant"/) as unknown });
    await expect(
      c.call('labels.change', { sessionId: session.sessionId, change: { op: 'add', target: 'run:zz', label: 'missed-evidence' } }),
    ).rejects.toMatchObject({ code: 'bad_request', message: expect.stringMatching(/no run zz in this log/) as unknown });

    const text = await c.call('session.openText', { name: 'pasted.rlm.jsonl', text: readFileSync(paths[1]!, 'utf8') });
    const labels = (await c.call('labels.get', { sessionId: text.session.sessionId })).labels;
    expect(labels).toMatchObject({ writable: false, sidecar: null, reason: expect.stringMatching(/sent to the host as text/) as unknown });
    await expect(
      c.call('labels.change', { sessionId: text.session.sessionId, change: { op: 'note', target: 'session', text: 'x' } }),
    ).rejects.toMatchObject({ code: 'bad_request', message: expect.stringMatching(/^cannot label: this log was sent/) as unknown });
  });
});

describe('queries through the host', () => {
  it('lists the known matches over a folder, with where to show each', async () => {
    const host = newHost();
    const c = connectInProcess(host);
    const r = await c.call('query.run', { expression: 'runs[depth = 2 and stopReason = "max_iterations"]', paths: [dir] });
    expect(r.sessions).toBe(N);
    expect(r.matches.map((m) => [m.file, m.target, m.at])).toEqual(
      paths.flatMap((p, i) => (KNOWN.hasGrandchild(i) ? [[p, `run:s${i}-grand`, { runId: `s${i}-grand`, iteration: null }]] : [])),
    );
    const calls = await c.call('query.run', { expression: 'calls[promptChars > 100000]', paths: [dir] });
    expect(calls.matches.map((m) => m.at)).toEqual(
      paths.flatMap((_, i) => (KNOWN.bigPrompt(i) ? [{ runId: `s${i}-root`, iteration: 1 }] : [])),
    );
  });

  it('answers a bad expression or path with a bad request that points at it', async () => {
    const host = newHost();
    const c = connectInProcess(host);
    await expect(c.call('query.run', { expression: 'runs[depth = ]', paths: [dir] })).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/^bad query at character 14: /) as unknown,
    });
    await expect(c.call('query.run', { expression: 'runs', paths: [join(tmp, 'nope')] })).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/nope: no such file or folder/) as unknown,
    });
  });
});
