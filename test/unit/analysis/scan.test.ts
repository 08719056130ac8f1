// Scanners without a model: JSONata rules in each scope and as a query, module scanners, the
// docs' "root never read the tail" rule over the reference library's own logs, evidence
// checked against the log, model replies read, the trajectory's rendering kept in its budget,
// and the agreement maths (precision, recall, Cohen's kappa) on hand-counted tables.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildSessionDoc } from '../../../src-shared/analysis/query-document.ts';
import { emptyLabels } from '../../../src-shared/analysis/labels.ts';
import { cohenKappa, currentScans, readFindingsText, scannerAgreement, verdictLabel } from '../../../src-shared/analysis/scan-findings.ts';
import { reduceEvents } from '../../../src-shared/trajectory/reducer.ts';
import { checkEvidence, targetsOf } from '../../../src-main/analysis/scan/evidence.ts';
import { readModelReply } from '../../../src-main/analysis/scan/model-scanner.ts';
import { renderTrajectory } from '../../../src-main/analysis/scan/render-trajectory.ts';
import { scanFolder } from '../../../src-main/analysis/scan/scan-logs.ts';
import { scanContext, type ScanDocument } from '../../../src-main/analysis/scan/scan-document.ts';
import { loadScanner, ScannerFileError } from '../../../src-main/analysis/scan/scanner-file.ts';
import { policySession, writeEvalDir } from '../../support/policy-sessions.ts';
import { REFERENCE_FIXTURES } from '../../support/reference-fixtures.ts';

const tmp = mkdtempSync(join(tmpdir(), 'rlm-scan-unit-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const EXAMPLES = join(import.meta.dirname, '../../../docs/examples/scanners');

function file(name: string, body: unknown): string {
  const path = join(tmp, name);
  writeFileSync(path, typeof body === 'string' ? body : JSON.stringify(body));
  return path;
}

/** t0: 1 iteration with 3 calls; t1: 2 iterations with 1 and 2 calls, and 1 child run from the first; t2: 3 iterations, no calls. */
function evaluation(name: string): string {
  const dir = join(tmp, name);
  writeEvalDir(dir, [
    { id: 't0', correct: true, shape: { query: 'q0', calls: [3] } },
    { id: 't1', correct: false, shape: { query: 'q1', calls: [1, 2], children: 1 } },
    { id: 't2', correct: false, shape: { query: 'q2', calls: [0, 0, 0] } },
  ]);
  return dir;
}

function doc(): ScanDocument {
  const traj = reduceEvents(policySession({ query: 'q', calls: [2, 1], children: 1 }, 's'), null);
  return { ...buildSessionDoc({ file: 's.rlm.jsonl', format: 'rlm-studio', traj, labels: emptyLabels() }), context: scanContext('abc') };
}

describe('rule scanners', () => {
  it('evaluate a condition on each run, iteration or sub-call, or a query, and append one scanned record per log', async () => {
    const dir = evaluation('scopes');
    const scanners = await Promise.all([
      loadScanner(file('many-turns.json', { kind: 'rule', scope: 'run', when: 'depth = 0 and iterationCount >= 2' })),
      loadScanner(file('batch.json', { id: 'batched', kind: 'rule', scope: 'iteration', when: 'subcalls > 1' })),
      loadScanner(file('rlm.json', { kind: 'rule', scope: 'call', when: 'kind = "rlm"' })),
      loadScanner(file('sess.json', { kind: 'rule', scope: 'session', when: '$count(calls) = 0' })),
      loadScanner(file('q.json', { kind: 'rule', query: 'runs[depth = 1]' })),
    ]);
    const r = await scanFolder(dir, scanners);
    const got = r.findings.map((f) => [f.scanner, f.log, f.target, f.runId, f.iteration, f.callId]);
    expect(got.sort()).toEqual(
      [
        ['many-turns', 'logs/t1.rlm.jsonl', 'run:t1-root', 't1-root', null, null],
        ['many-turns', 'logs/t2.rlm.jsonl', 'run:t2-root', 't2-root', null, null],
        ['batched', 'logs/t0.rlm.jsonl', 'iteration:t0-root#1', 't0-root', 1, null],
        // t1's first iteration: one plain call and one child run.
        ['batched', 'logs/t1.rlm.jsonl', 'iteration:t1-root#1', 't1-root', 1, null],
        ['batched', 'logs/t1.rlm.jsonl', 'iteration:t1-root#2', 't1-root', 2, null],
        ['rlm', 'logs/t1.rlm.jsonl', 'call:t1-k0', 't1-root', 1, 't1-k0'],
        ['sess', 'logs/t2.rlm.jsonl', 'session', null, null, null],
        ['q', 'logs/t1.rlm.jsonl', 'run:t1-child0', 't1-child0', null, null],
      ].sort(),
    );
    const text = readFindingsText(readFileSync(join(dir, 'findings.jsonl'), 'utf8'));
    expect(text.problems).toEqual([]);
    expect(text.scanned).toHaveLength(15);
    expect(text.findings).toHaveLength(8);
    expect(text.scanned.every((s) => s.scanId === r.scanId && /^[0-9a-f]{16}$/.test(s.scannerHash))).toBe(true);
    expect(r.scanners.map((s) => [s.id, s.kind, s.flagged, s.findings])).toEqual([
      ['many-turns', 'rule', 2, 2],
      ['batched', 'rule', 2, 3],
      ['rlm', 'rule', 1, 1],
      ['sess', 'rule', 1, 1],
      ['q', 'rule', 1, 1],
    ]);
  });

  it('"the root never read the tail" (docs example) over the reference library\'s logs: flagged only where the root never saw the end', async () => {
    const dir = join(tmp, 'reference');
    mkdirSync(dir);
    for (const n of ['a_needle', 'c_recursive']) copyFileSync(join(REFERENCE_FIXTURES, `${n}.jsonl`), join(dir, `${n}.jsonl`));
    const tail = await loadScanner(join(EXAMPLES, 'root-never-read-tail.json'));
    const withContext = (n: string) => readFileSync(join(REFERENCE_FIXTURES, 'contexts', `${n}.txt`), 'utf8');
    // c_recursive's root sent its context's chunks to child runs, the last one included: not flagged.
    const c = await scanFolder(dir, [tail], { rootContext: withContext('c_recursive') });
    expect(c.findings.filter((f) => f.log === 'c_recursive.jsonl')).toEqual([]);
    // a_needle's root printed the first 300 characters and the lines its regex search hit: the tail reached no model.
    const a = await scanFolder(dir, [tail], { rootContext: withContext('a_needle') });
    expect(a.findings.filter((f) => f.log === 'a_needle.jsonl').map((f) => f.target)).toEqual(['run:r0']);
    // Without a known context the rule has nothing to compare: no finding at all.
    const none = await scanFolder(dir, [tail]);
    expect(none.findings).toEqual([]);
    expect(none.sessions).toBe(2);
  });

  it('module scanners: their findings are checked against the log; a broken return value is an error naming the scanner', async () => {
    const dir = evaluation('modules');
    const mod = await loadScanner(
      file(
        'wide.mjs',
        `export const name = 'wide-fanout';
export function scan(session) {
  return session.calls.filter((c) => c.batchSize >= 3).map((c) => ({ target: c.target, explanation: 'fan-out of ' + c.batchSize, evidence: ['iteration:' + c.run + '#' + c.iteration, 'call:nope'] }));
}`,
      ),
    );
    const r = await scanFolder(dir, [mod]);
    expect(r.findings[0]!.callPlaces).toEqual([{ target: 'call:t0-c1-0', runId: 't0-root', iteration: 1 }]);
    expect(r.findings.map((f) => [f.target, f.evidence, f.invalidEvidence, f.explanation])).toEqual([
      ['call:t0-c1-0', ['call:t0-c1-0', 'iteration:t0-root#1'], ['call:nope'], 'fan-out of 3'],
      ['call:t0-c1-1', ['call:t0-c1-1', 'iteration:t0-root#1'], ['call:nope'], 'fan-out of 3'],
      ['call:t0-c1-2', ['call:t0-c1-2', 'iteration:t0-root#1'], ['call:nope'], 'fan-out of 3'],
    ]);
    const bad = await loadScanner(file('bad.mjs', 'export default function () { return [{ target: "run:ghost" }]; }'));
    await expect(scanFolder(dir, [bad])).rejects.toThrow(
      /scanner bad on logs\/t0\.rlm\.jsonl: a finding's target "run:ghost" is not in this log/,
    );
  });

  it('refuses bad scanner files, naming the problem', async () => {
    await expect(loadScanner(file('x.json', { kind: 'rule', scope: 'run', when: 'depth >' }))).rejects.toThrow(/bad "when" condition/);
    await expect(loadScanner(file('y.json', { kind: 'rule', scope: 'turn', when: 'true' }))).rejects.toThrow(
      /"scope" must be one of session, run, iteration, call/,
    );
    await expect(loadScanner(file('z.json', { kind: 'model' }))).rejects.toThrow(/needs "question"/);
    await expect(loadScanner(file('w.json', { kind: 'rule', when: 'true', extra: 1 }))).rejects.toThrow(/unknown field\(s\) extra/);
    await expect(loadScanner(file('bad id.json', { kind: 'rule', when: 'true' }))).rejects.toThrow(ScannerFileError);
    await expect(loadScanner(file('m.mjs', 'export const x = 1;'))).rejects.toThrow(/export a function `scan\(session\)`/);
    await expect(loadScanner(join(tmp, 'missing.json'))).rejects.toThrow(/cannot read it/);
  });
});

describe('evidence and model replies', () => {
  it('keeps cited ids that are in the log (bare run ids read as run:ID) and sets the rest apart', () => {
    const known = targetsOf(doc());
    expect(
      checkEvidence(['iteration:s-root#2', 's-child0', ' call:s-c1-0 ', 'call:made-up', 'iteration:s-root#9', 'iteration:s-root#2'], known),
    ).toEqual({
      evidence: ['iteration:s-root#2', 'run:s-child0', 'call:s-c1-0'],
      invalid: ['call:made-up', 'iteration:s-root#9'],
    });
  });

  it('reads a verdict, an explanation and evidence from a bare, fenced or surrounded JSON object, and says what is wrong otherwise', () => {
    expect(readModelReply('{"verdict": true, "explanation": "e", "evidence": ["run:a"]}')).toEqual({
      verdict: true,
      explanation: 'e',
      evidence: ['run:a'],
    });
    expect(readModelReply('Sure.\n```json\n{"verdict": "no", "explanation": "fine"}\n```')).toEqual({
      verdict: false,
      explanation: 'fine',
      evidence: [],
    });
    expect(readModelReply('I think {"verdict": false} is right')).toEqual({ verdict: false, explanation: '', evidence: [] });
    expect(readModelReply('yes it did')).toMatch(/holds no JSON object/);
    expect(readModelReply('{"verdict": "maybe"}')).toMatch(/"verdict" is not true or false/);
    expect(readModelReply('{"verdict": true, "evidence": "run:a"}')).toMatch(/"evidence" is not a list/);
  });

  it('renders every run, iteration and call id within the budget, cutting texts before structure', () => {
    const traj = reduceEvents(policySession({ query: 'q', calls: [2, 1], children: 1, pad: 5000 }, 's'), null);
    const d: ScanDocument = { ...buildSessionDoc({ file: 'f', format: 'rlm-studio', traj, labels: emptyLabels() }), context: null };
    const text = renderTrajectory(d, 6000);
    expect(text.length).toBeLessThanOrEqual(6000);
    for (const id of targetsOf(d)) if (id !== 'session') expect(text).toContain(id);
    expect(text).toMatch(/chars cut/);
    const tiny = renderTrajectory(d, 300);
    expect(tiny.length).toBeLessThanOrEqual(300);
    expect(tiny).toMatch(/characters of the trajectory left out/);
  });
});

describe('agreement', () => {
  const labels = (target: string, label: string) => ({ target, labels: [{ label, at: '2026-01-01T00:00:00Z' }] });
  const S = 'sc';
  const yes = verdictLabel(S, 'confirmed');
  const no = verdictLabel(S, 'rejected');

  it('counts findings by verdict, logs by confusion cell, and gives precision, recall and kappa', () => {
    const a = scannerAgreement(S, 'model', [
      { scanner: S, findings: [{ target: 'run:a' }], labels: [labels('run:a', yes)] }, // TP
      { scanner: S, findings: [{ target: 'run:b' }], labels: [labels('run:b', yes)] }, // TP
      { scanner: S, findings: [{ target: 'run:c' }], labels: [labels('run:c', no)] }, // FP
      { scanner: S, findings: [{ target: 'run:d' }], labels: [] }, // flagged, unreviewed
      { scanner: S, findings: [], labels: [labels('session', yes)] }, // FN
      { scanner: S, findings: [], labels: [labels('session', no)] }, // TN
      { scanner: S, findings: [], labels: [labels('session', no), labels('run:x', 'other-label')] }, // TN
      { scanner: S, findings: [], labels: [] }, // not judged
    ]);
    expect(a.findings).toEqual({ total: 4, confirmed: 2, rejected: 1, unreviewed: 1 });
    expect(a.precision).toBeCloseTo(2 / 3, 12);
    expect(a.confusion).toEqual({ truePositive: 2, falsePositive: 1, falseNegative: 1, trueNegative: 2 });
    expect(a.recall).toBeCloseTo(2 / 3, 12);
    // po = 4/6; pe = (3·3 + 3·3)/36 = 1/2; kappa = (2/3 − 1/2)/(1/2) = 1/3.
    expect(a.kappa).toBeCloseTo(1 / 3, 12);
    expect([a.trajectories, a.flagged, a.judged]).toEqual([8, 4, 6]);
  });

  it('gives no recall without judged unflagged logs, and no kappa without both verdicts', () => {
    const a = scannerAgreement(S, 'rule', [
      { scanner: S, findings: [{ target: 'run:a' }], labels: [labels('run:a', yes)] },
      { scanner: S, findings: [{ target: 'run:b' }], labels: [labels('run:b', yes)] },
    ]);
    expect([a.precision, a.recall, a.kappa]).toEqual([1, null, null]);
    expect(cohenKappa({ truePositive: 5, falsePositive: 0, falseNegative: 0, trueNegative: 5 })).toBe(1);
    expect(cohenKappa({ truePositive: 0, falsePositive: 0, falseNegative: 0, trueNegative: 0 })).toBeNull();
  });

  it('reads findings.jsonl line by line and takes the latest scan of each (scanner, log) as current', () => {
    const base = { v: 1, scanner: 's', scannerHash: 'h', scannerKind: 'rule', log: 'a.jsonl', sessionId: null };
    const lines = [
      { ...base, kind: 'scanned', scanId: 'one', findings: 1, time: '2026-01-01T00:00:00Z' },
      {
        ...base,
        kind: 'finding',
        scanId: 'one',
        id: 'one/0',
        target: 'run:r',
        runId: 'r',
        iteration: null,
        callId: null,
        evidence: [],
        invalidEvidence: [],
        explanation: 'x',
        time: '2026-01-01T00:00:00Z',
      },
      { ...base, kind: 'scanned', scanId: 'two', findings: 0, time: '2026-01-02T00:00:00Z' },
    ];
    const text = `${lines.map((l) => JSON.stringify(l)).join('\n')}\nnot json\n{"v":1,"kind":"scanned"}\n{"cut`;
    const f = readFindingsText(text);
    expect(f.problems).toEqual([
      'line 4: not JSON; ignored',
      expect.stringMatching(/^line 5: .*; ignored$/) as unknown as string,
      'line 6: cut short (the last line has no end); ignored',
    ]);
    expect(currentScans(f).map((c) => [c.scanned.scanId, c.findings.length])).toEqual([['two', 0]]);
  });
});
