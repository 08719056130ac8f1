// `rlm-studio label`, `query`, `export-sft --label` and `export-calls --where '… in runLabels'`
// as a researcher runs them: on a generated folder of native logs and on copies of the
// reference library's logs. Labels go to LOG.labels.jsonl; the log's bytes never change.
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { KNOWN, writeSessionFolder } from '../../support/session-folder.ts';
import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';
import { runCli } from '../support/cli.ts';

const N = 12;
type Json = Record<string, unknown>;
const readJsonl = (path: string): Json[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Json);

describe('labels and queries on the command line', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'rlm-query-labels-'));
  const gen = join(tmp, 'gen');
  const ref = join(tmp, 'ref');
  let paths: string[];
  let refLog: string;

  beforeAll(() => {
    paths = writeSessionFolder(gen, N);
    writeFileSync(join(tmp, 'rlm-labels.json'), JSON.stringify({ labels: [{ name: 'good-decomposition' }, { name: 'missed-evidence' }] }));
    writeSessionFolder(ref, 0);
    refLog = join(ref, 'c_recursive.jsonl');
    copyFileSync(join(REFERENCE_FIXTURES, 'c_recursive.jsonl'), refLog);
  });

  it('labels a reference log: the sidecar holds the records, the log is untouched, a new process reads them back', async () => {
    const before = readFileSync(refLog);
    const add = await runCli(['label', refLog, 'run:r0/3.0.1', 'missed-evidence', '--note', 'never read the tail']);
    expect(add.code, add.stderr).toBe(0);
    expect((await runCli(['label', refLog, 'call:r0:2.0.0', 'good-decomposition'])).code).toBe(0);
    expect((await runCli(['label', refLog, 'iteration:r0#2', '--note', 'the fan-out'])).code).toBe(0);
    expect((await runCli(['label', refLog, 'call:r0:2.0.0', 'good-decomposition', '--remove'])).code).toBe(0);
    expect(readFileSync(refLog).equals(before)).toBe(true);
    expect(readJsonl(`${refLog}.labels.jsonl`).map((r) => [r['op'], r['target']])).toEqual([
      ['add', 'run:r0/3.0.1'],
      ['add', 'call:r0:2.0.0'],
      ['note', 'iteration:r0#2'],
      ['remove', 'call:r0:2.0.0'],
    ]);
    const list = await runCli(['label', refLog, '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { targets: unknown }).targets).toEqual([
      { target: 'iteration:r0#2', labels: [], note: 'the fan-out' },
      {
        target: 'run:r0/3.0.1',
        labels: [{ label: 'missed-evidence', note: 'never read the tail', at: expect.any(String) as unknown }],
        note: null,
      },
    ]);
    const q = await runCli(['query', 'runs["missed-evidence" in labels]', ref, '--json']);
    expect(q.code, q.stderr).toBe(0);
    expect((JSON.parse(q.stdout) as { matches: Json[] }).matches).toEqual([
      {
        file: refLog,
        sessionId: null,
        target: 'run:r0/3.0.1',
        kind: 'run',
        what: expect.stringMatching(/^run depth 1, answered/) as unknown,
        at: { runId: 'r0/3.0.1', iteration: null },
      },
    ]);
  });

  it('refuses unknown labels, missing targets and a missing label set, naming the problem, and writes nothing', async () => {
    const log = paths[0]!;
    const bad = await runCli(['label', log, 'run:s0-root', 'brilliant']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown label "brilliant"; .*rlm-labels\.json defines: good-decomposition, missed-evidence/);
    const missing = await runCli(['label', log, 'run:s0-nope', 'missed-evidence']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no run s0-nope in this log \(runs: s0-root, s0-child, s0-grand\)/);
    const noSet = join(mkdtempSync(join(tmpdir(), 'rlm-noset-')), 'x.rlm.jsonl');
    copyFileSync(log, noSet);
    const none = await runCli(['label', noSet, 'session', 'missed-evidence']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no label set for .*x\.rlm\.jsonl: write .*rlm-labels\.json/);
    const rm = await runCli(['label', log, 'session', 'missed-evidence', '--remove']);
    expect(rm.code).toBe(2);
    expect(rm.stderr).toMatch(/session has no label "missed-evidence" to remove/);
    expect(await runCli(['label', log, '--json']).then((r) => JSON.parse(r.stdout) as Json)).toMatchObject({ targets: [] });
  });

  it('query lists the known matches over a folder, and points at a bad expression', async () => {
    const q = await runCli(['query', 'runs[depth = 0 and answered] and runs[depth = 2 and stopReason = "max_iterations"]', gen, '--json']);
    expect(q.code, q.stderr).toBe(0);
    const r = JSON.parse(q.stdout) as { logs: number; sessions: number; matches: Json[] };
    expect(r.sessions).toBe(N);
    const expected = paths.filter((_, i) => KNOWN.rootAnsweredDeepLimit(i));
    expect(r.matches.map((m) => m['file'])).toEqual(expected);
    const text = await runCli(['query', 'calls[promptChars > 100000]', gen]);
    expect(text.stdout.trim().split('\n')).toEqual(
      paths.flatMap((p, i) =>
        KNOWN.bigPrompt(i) ? [`${p}\tcall:s${i}-llm\tllm call in s${i}-root iteration 1, prompt 100001 chars`] : [],
      ),
    );
    const bad = await runCli(['query', 'runs[depth >]', gen]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bad query at character 13: .*\nruns\[depth >\]\n {12}\^\n$/);
  });

  it('export-sft --label keeps exactly the calls of the labelled runs; export-calls --where sees run labels', async () => {
    // The root of session 1 (its own turn and its plain sub-call) and the child of session 2.
    expect((await runCli(['label', paths[1]!, 'run:s1-root', 'good-decomposition'])).code).toBe(0);
    expect((await runCli(['label', paths[2]!, 'run:s2-child', 'good-decomposition'])).code).toBe(0);
    expect((await runCli(['label', paths[3]!, 'run:s3-root', 'missed-evidence'])).code).toBe(0);
    const o = join(tmp, 'train.jsonl');
    const r = await runCli(['export-sft', gen, '--label', 'good-decomposition', '--with-source', '--json', '-o', o]);
    expect(r.code, r.stderr).toBe(0);
    const sources = readJsonl(o).map((l) => l['source'] as { runId: string; purpose: string });
    expect(sources.map((s) => [s.runId, s.purpose])).toEqual([
      ['s1-root', 'turn'],
      ['s1-root', 'subcall'],
      ['s2-child', 'turn'],
    ]);
    const report = JSON.parse(r.stdout) as { examples: { dropped: Record<string, number> } };
    expect(Object.keys(report.examples.dropped)).toEqual(['not labelled good-decomposition']);

    const calls = join(tmp, 'calls.jsonl');
    const c = await runCli(['export-calls', gen, '--where', '"missed-evidence" in runLabels', '-o', calls]);
    expect(c.code, c.stderr).toBe(0);
    expect(readJsonl(calls).map((l) => l['callId'])).toEqual(['s3-llm', 's3-rlm']);
  });
});
