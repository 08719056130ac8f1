// `rlm-studio scan` with a model scanner (the docs' "it submitted before verifying") against
// mock-llm over real HTTP, scripted to answer in the structured form: findings appended to
// findings.jsonl with their evidence checked (an invented id set apart), every call recorded
// in a native log with its usage and cost, a re-scan appending rather than rewriting, and the
// agreement with people's verdicts (labels) reported by `scan --agreement --json`.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFindingsText, type ScannerAgreement } from '../../../src-shared/analysis/scan-findings.ts';
import { setVerdict } from '../../../src-main/analysis/scan/findings-dir.ts';
import { registerScan } from '../../../src-main/cli/commands/scan.ts';
import { UsageError } from '../../../src-main/cli/errors.ts';
import { readLogFile } from '../../../src-main/logs/read-log.ts';
import { parseScript, scriptPolicy } from '../../../src-main/mock-llm/policies/script.ts';
import { startMockLlm, type MockLlmServer } from '../../../src-main/mock-llm/server.ts';
import { writeEvalDir } from '../../support/policy-sessions.ts';
import { runInProcess } from '../support/in-process-cli.ts';

const EXAMPLES = join(import.meta.dirname, '../../../docs/examples/scanners');
const MODEL_SCANNER = join(EXAMPLES, 'submitted-before-verifying.json');
const RULE_SCANNER = join(EXAMPLES, 'root-never-read-tail.json');
const tmp = mkdtempSync(join(tmpdir(), 'rlm-scan-'));
let mock: MockLlmServer;
beforeAll(async () => {
  // The trajectory's rendering carries each run's query: the script answers by it.
  mock = await startMockLlm({
    costPerMTok: 2,
    policy: scriptPolicy(
      parseScript({
        rules: [
          {
            match: { lastUser: 'query: hasty' },
            reply:
              'The root submitted in its last turn without looking again.\n```json\n{"verdict": true, "explanation": "it submitted the first candidate unchecked", "evidence": ["iteration:hasty-root#2", "call:hasty-c1-0", "iteration:hasty-root#7"]}\n```',
          },
          {
            match: { lastUser: 'query: careful' },
            reply: '{"verdict": false, "explanation": "it re-read the passage before submitting", "evidence": []}',
          },
          { match: { lastUser: 'query: garbled' }, reply: 'I cannot tell.' },
        ],
      }),
    ),
  });
});
afterAll(async () => {
  await mock.close();
  rmSync(tmp, { recursive: true, force: true });
});

const cli = (...args: string[]) => runInProcess([registerScan], args);

function evaluation(name: string): string {
  const dir = join(tmp, name);
  writeEvalDir(dir, [
    { id: 'hasty', correct: false, shape: { query: 'hasty', calls: [1, 0] } },
    { id: 'careful', correct: true, shape: { query: 'careful', calls: [1, 1, 0] } },
    { id: 'careful2', correct: true, shape: { query: 'careful', calls: [0] } },
    { id: 'garbled', correct: true, shape: { query: 'garbled', calls: [0] } },
  ]);
  return dir;
}

interface ScanJson {
  scanId: string;
  sessions: number;
  scanners: { id: string; kind: string; flagged: number; findings: number; errors: number; costUsd: number | null }[];
  findings: {
    log: string;
    target: string;
    evidence: string[];
    invalidEvidence: string[];
    explanation: string;
    model: { logFile: string; costUsd: number | null; inputTokens: number };
  }[];
  agreement: ScannerAgreement[];
}

describe('rlm-studio scan with a model scanner', () => {
  it('asks the model about each trajectory, appends checked findings, records every call with its cost; a re-scan appends', async () => {
    const dir = evaluation('model');
    const args = ['scan', dir, '--scanner', MODEL_SCANNER, '--model', 'scanner-1', '--base-url', mock.url, '--json'];
    const r = await cli(...args);
    expect(r.error).toBeNull();
    const out = JSON.parse(r.out) as ScanJson;
    expect(out.sessions).toBe(4);
    expect(out.scanners).toEqual([
      {
        id: 'submitted-before-verifying',
        hash: expect.stringMatching(/^[0-9a-f]{16}$/) as unknown,
        kind: 'model',
        flagged: 1,
        findings: 1,
        errors: 1,
        costUsd: expect.any(Number) as unknown,
      },
    ]);
    expect(out.scanners[0]!.costUsd).toBeGreaterThan(0);
    expect(r.err).toMatch(/garbled\.rlm\.jsonl: scanner submitted-before-verifying: the reply holds no JSON object/);
    const [f] = out.findings;
    expect(f).toMatchObject({
      log: 'logs/hasty.rlm.jsonl',
      target: 'iteration:hasty-root#2',
      evidence: ['iteration:hasty-root#2', 'call:hasty-c1-0'],
      invalidEvidence: ['iteration:hasty-root#7'],
      callPlaces: [{ target: 'call:hasty-c1-0', runId: 'hasty-root', iteration: 1 }],
      explanation: 'it submitted the first candidate unchecked',
    });

    // Each call is a native log under DIR/scan/ID/, with the prompt, the reply and the cost.
    const logs = readdirSync(join(dir, 'scan', 'submitted-before-verifying'));
    expect(logs).toHaveLength(4);
    const recorded = await readLogFile(join(dir, f!.model.logFile));
    const reply = recorded.events.find((e) => e.type === 'model.reply');
    expect(reply).toMatchObject({ model: 'scanner-1', usage: { costUsd: f!.model.costUsd, inputTokens: f!.model.inputTokens } });
    expect(f!.model.costUsd).toBeGreaterThan(0);
    const sent = JSON.stringify(recorded.events);
    expect(sent).toContain('QUESTION: Did the root model submit its final answer before verifying it?');
    expect(sent).toContain('CALL call:hasty-c1-0');

    // The scan logs are not scanned next time; the second scan appends beside the first.
    const before = readFileSync(join(dir, 'findings.jsonl'), 'utf8');
    const again = JSON.parse((await cli(...args)).out) as ScanJson;
    expect(again.sessions).toBe(4);
    expect(again.scanId).not.toBe(out.scanId);
    const after = readFileSync(join(dir, 'findings.jsonl'), 'utf8');
    expect(after.startsWith(before)).toBe(true);
    const text = readFindingsText(after);
    expect([text.scanned.length, text.findings.length, text.problems]).toEqual([8, 2, []]);
    expect(readdirSync(join(dir, 'scan', 'submitted-before-verifying'))).toHaveLength(8);
    const garbled = text.scanned.find((s) => s.log === 'logs/garbled.rlm.jsonl');
    expect(garbled?.error).toMatch(/holds no JSON object/);
    const careful = text.scanned.find((s) => s.log === 'logs/careful.rlm.jsonl');
    expect(careful).toMatchObject({ findings: 0, verdict: false, explanation: 'it re-read the passage before submitting' });
  });

  it("reports the scanner's agreement with people's verdicts, stored as labels", async () => {
    const dir = evaluation('agreement');
    await cli('scan', dir, '--scanner', MODEL_SCANNER, '--scanner', RULE_SCANNER, '--model', 'scanner-1', '--base-url', mock.url);
    const id = 'submitted-before-verifying';
    await setVerdict({ dir, log: 'logs/hasty.rlm.jsonl', scanner: id, target: 'iteration:hasty-root#2', verdict: 'rejected' });
    // Changed mind: the rejection is removed and the confirmation added, both appended.
    await setVerdict({ dir, log: 'logs/hasty.rlm.jsonl', scanner: id, target: 'iteration:hasty-root#2', verdict: 'confirmed' });
    await setVerdict({ dir, log: 'logs/careful.rlm.jsonl', scanner: id, target: 'session', verdict: 'rejected' });
    await setVerdict({ dir, log: 'logs/careful2.rlm.jsonl', scanner: id, target: 'session', verdict: 'confirmed' });
    const sidecar = readFileSync(join(dir, 'logs/hasty.rlm.jsonl.labels.jsonl'), 'utf8').trim().split('\n');
    expect(
      sidecar.map((l) => (JSON.parse(l) as { op: string; label: string }).op + ' ' + (JSON.parse(l) as { label: string }).label),
    ).toEqual([`add scan.${id}.rejected`, `remove scan.${id}.rejected`, `add scan.${id}.confirmed`]);
    await expect(setVerdict({ dir, log: 'logs/nope.rlm.jsonl', scanner: id, target: 'session', verdict: 'confirmed' })).rejects.toThrow(
      /has not scanned logs\/nope/,
    );

    const r = await cli('scan', dir, '--agreement', '--json');
    expect(r.error).toBeNull();
    const { agreement } = JSON.parse(r.out) as ScanJson;
    const a = agreement.find((x) => x.scanner === id)!;
    // 3 logs with a verdict (garbled gave none): hasty TP, careful TN, careful2 FN.
    expect(a).toMatchObject({
      scannerKind: 'model',
      trajectories: 3,
      flagged: 1,
      findings: { total: 1, confirmed: 1, rejected: 0, unreviewed: 0 },
      precision: 1,
      confusion: { truePositive: 1, falsePositive: 0, falseNegative: 1, trueNegative: 1 },
      recall: 0.5,
      judged: 3,
    });
    // po = 2/3, pe = (1·2 + 2·1)/9 = 4/9, kappa = (2/3 − 4/9)/(5/9) = 0.4.
    expect(a.kappa).toBeCloseTo(0.4, 12);
    expect(agreement.map((x) => x.scanner)).toEqual(['root-never-read-tail', id]);
    const text = await cli('scan', dir, '--agreement');
    expect(text.out).toMatch(
      /submitted-before-verifying \(model\): 1 finding\(s\) in 1 of 3 log\(s\); people confirmed 1, rejected 0, 0 unreviewed; precision 100%; 3 log\(s\) judged \(TP 1, FP 0, FN 1, TN 1\), recall 50%, kappa 0\.40/,
    );
  });

  it('refuses a model scanner without a model, and a folder that is not one, writing nothing', async () => {
    const dir = evaluation('refused');
    const r = await cli('scan', dir, '--scanner', MODEL_SCANNER);
    expect(r.error).toBeInstanceOf(UsageError);
    expect((r.error as Error).message).toMatch(/scanner submitted-before-verifying asks a model: give --model NAME and --base-url URL/);
    const none = await cli('scan', dir);
    expect((none.error as Error).message).toMatch(/name a scanner: --scanner FILE/);
    const file = await cli('scan', join(dir, 'results.jsonl'), '--scanner', RULE_SCANNER);
    expect((file.error as Error).message).toMatch(/is not a folder/);
    expect(existsSync(join(dir, 'findings.jsonl'))).toBe(false);
  });
});
