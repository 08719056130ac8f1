// Scanner findings (`rlm-studio scan`, docs/scanners.md): the records of `findings.jsonl`
// beside the scanned logs, the labels a person's verdict on a finding is stored as, and a
// scanner's agreement with those verdicts. Pure, for the host, the CLI and the app alike.
//
// findings.jsonl is append-only. Each scan of a log by a scanner appends one `scanned` record
// (how many findings, or the error) and one `finding` record per finding; a later scan appends
// again, and the latest `scanned` record of a (scanner, log) pair says which findings are current.
import { z } from 'zod';

export const FINDINGS_FILE = 'findings.jsonl';

/** A scanner id: short, so that `scan.<id>.confirmed` is still a label name (≤ 64 characters). */
export const SCANNER_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/;

export const ScannerKind = z.enum(['rule', 'module', 'model']);
export type ScannerKind = z.infer<typeof ScannerKind>;

const Text = z.string().max(20_000);
const Target = z.string().min(1).max(1000);

/** What a model scanner's call cost and where it is recorded (relative to the scanned folder). */
const ModelCall = z.strictObject({
  model: z.string(),
  logFile: z.string(),
  costUsd: z.number().nullable(),
  inputTokens: z.number(),
  outputTokens: z.number(),
});
export type ModelCall = z.infer<typeof ModelCall>;

const Common = {
  v: z.literal(1),
  scanId: z.string().min(1).max(100),
  scanner: z.string().regex(SCANNER_ID),
  /** The first 16 hex digits of the sha256 of the scanner file's bytes. */
  scannerHash: z.string().min(1).max(64),
  scannerKind: ScannerKind,
  /** The log, relative to the scanned folder (`/` separated). */
  log: z.string().min(1),
  sessionId: z.string().nullable(),
  time: z.string().min(1).max(40),
};

export const FindingRecord = z.strictObject({
  ...Common,
  kind: z.literal('finding'),
  /** Unique in the file: `<scanId>/<n>`. */
  id: z.string().min(1).max(200),
  /** Where the finding is: session, run:…, iteration:…#n or call:… (the label targets). */
  target: Target,
  runId: z.string().nullable(),
  iteration: z.number().int().nullable(),
  callId: z.string().nullable(),
  /** Targets the finding cites, each checked to exist in the log. */
  evidence: z.array(Target),
  /** Cited ids that are not in the log (a model's invention), kept to be seen, never linked. */
  invalidEvidence: z.array(z.string().max(1000)),
  /** Where each cited sub-call is (its run and iteration), so a link can open it; absent when none is cited. */
  callPlaces: z.array(z.strictObject({ target: Target, runId: z.string(), iteration: z.number().int() })).optional(),
  explanation: Text,
  model: ModelCall.optional(),
});
export type FindingRecord = z.infer<typeof FindingRecord>;

export const ScannedRecord = z.strictObject({
  ...Common,
  kind: z.literal('scanned'),
  findings: z.number().int().min(0),
  /** Why the scanner gave no verdict on this log (a failed call, an unreadable reply); absent when it did. */
  error: Text.optional(),
  /** A model scanner's verdict on the whole trajectory and its explanation, flagged or not. */
  verdict: z.boolean().optional(),
  explanation: Text.optional(),
  model: ModelCall.optional(),
});
export type ScannedRecord = z.infer<typeof ScannedRecord>;

const FindingsLine = z.discriminatedUnion('kind', [FindingRecord, ScannedRecord]);

export interface FindingsText {
  findings: FindingRecord[];
  scanned: ScannedRecord[];
  /** Lines that could not be read, by number; reading goes on. */
  problems: string[];
}

export function readFindingsText(text: string): FindingsText {
  const out: FindingsText = { findings: [], scanned: [], problems: [] };
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      out.problems.push(`line ${i + 1}: ${i === lines.length - 1 ? 'cut short (the last line has no end)' : 'not JSON'}; ignored`);
      return;
    }
    const r = FindingsLine.safeParse(value);
    if (!r.success) {
      const issue = r.error.issues[0];
      out.problems.push(
        `line ${i + 1}: ${issue ? `${issue.path.join('.') || 'record'}: ${issue.message}` : 'not a findings record'}; ignored`,
      );
      return;
    }
    if (r.data.kind === 'finding') out.findings.push(r.data);
    else out.scanned.push(r.data);
  });
  return out;
}

/** The current scan of each (scanner, log): the latest `scanned` record, and its findings. */
export function currentScans(f: FindingsText): { scanned: ScannedRecord; findings: FindingRecord[] }[] {
  const latest = new Map<string, ScannedRecord>();
  for (const s of f.scanned) {
    const key = `${s.scanner}\u0000${s.log}`;
    const prev = latest.get(key);
    if (!prev || prev.time <= s.time) latest.set(key, s);
  }
  const byScan = new Map<string, FindingRecord[]>();
  for (const x of f.findings) {
    const key = `${x.scanId}\u0000${x.scanner}\u0000${x.log}`;
    const list = byScan.get(key);
    if (list) list.push(x);
    else byScan.set(key, [x]);
  }
  return [...latest.values()].map((s) => ({ scanned: s, findings: byScan.get(`${s.scanId}\u0000${s.scanner}\u0000${s.log}`) ?? [] }));
}

export type Verdict = 'confirmed' | 'rejected';

/**
 * The label a person's verdict is stored as, on the finding's target in the log's labels
 * sidecar: `scan.<scanner>.confirmed` (the behaviour is there) or `scan.<scanner>.rejected`
 * (it is not). On a target no finding names (e.g. `session` of an unflagged log) it says the
 * same of a place the scanner passed over, which is what recall is counted from.
 */
export function verdictLabel(scanner: string, verdict: Verdict): string {
  return `scan.${scanner}.${verdict}`;
}

/** The verdict a target's labels hold for a scanner (the last one added wins if both are there). */
export function verdictOf(scanner: string, labels: readonly { label: string; at?: string }[]): Verdict | null {
  let found: { v: Verdict; at: string } | null = null;
  for (const l of labels) {
    const v =
      l.label === verdictLabel(scanner, 'confirmed') ? 'confirmed' : l.label === verdictLabel(scanner, 'rejected') ? 'rejected' : null;
    if (v === null) continue;
    const at = l.at ?? '';
    if (found === null || at >= found.at) found = { v, at };
  }
  return found?.v ?? null;
}

/** One scanned log as agreement reads it: is it flagged now, and the people's verdicts on it. */
export interface AgreementInput {
  scanner: string;
  /** The current scan's findings count. */
  findings: { target: string }[];
  /** Every labelled target of the log (its sidecar), with its labels. */
  labels: readonly { target: string; labels: readonly { label: string; at?: string }[] }[];
}

export interface ScannerAgreement {
  scanner: string;
  scannerKind: ScannerKind | null;
  /** Logs whose current scan gave a verdict (no error), and those flagged (≥ 1 finding). */
  trajectories: number;
  flagged: number;
  /** Current findings, by the people's verdict on their target. */
  findings: { total: number; confirmed: number; rejected: number; unreviewed: number };
  /** confirmed / (confirmed + rejected) over findings; null before any verdict. */
  precision: number | null;
  /**
   * Logs as units: a log is positive for the people when any of its targets is confirmed,
   * negative when some are rejected and none confirmed; logs no one judged are left out.
   */
  confusion: { truePositive: number; falsePositive: number; falseNegative: number; trueNegative: number };
  /** TP / (TP + FN); null unless people judged some unflagged log (a miss cannot be seen otherwise). */
  recall: number | null;
  /** Cohen's kappa over the judged logs; null unless the people's verdicts have both classes. */
  kappa: number | null;
  /** Logs judged by people. */
  judged: number;
}

function ratio(a: number, b: number): number | null {
  return b === 0 ? null : a / b;
}

/** Cohen's kappa of two raters over binary verdicts, from their confusion table. */
export function cohenKappa(c: ScannerAgreement['confusion']): number | null {
  const { truePositive: tp, falsePositive: fp, falseNegative: fn, trueNegative: tn } = c;
  const n = tp + fp + fn + tn;
  if (n === 0) return null;
  const po = (tp + tn) / n;
  const pe = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n);
  if (pe === 1) return null;
  return (po - pe) / (1 - pe);
}

export function scannerAgreement(scanner: string, scannerKind: ScannerKind | null, logs: readonly AgreementInput[]): ScannerAgreement {
  const findings = { total: 0, confirmed: 0, rejected: 0, unreviewed: 0 };
  const confusion = { truePositive: 0, falsePositive: 0, falseNegative: 0, trueNegative: 0 };
  let flagged = 0;
  let positives = 0;
  let negatives = 0;
  for (const log of logs) {
    const byTarget = new Map(log.labels.map((t) => [t.target, t.labels]));
    for (const f of log.findings) {
      findings.total++;
      const v = verdictOf(scanner, byTarget.get(f.target) ?? []);
      if (v === 'confirmed') findings.confirmed++;
      else if (v === 'rejected') findings.rejected++;
      else findings.unreviewed++;
    }
    const isFlagged = log.findings.length > 0;
    if (isFlagged) flagged++;
    const verdicts = log.labels.map((t) => verdictOf(scanner, t.labels)).filter((v) => v !== null);
    if (verdicts.length === 0) continue;
    const human = verdicts.includes('confirmed');
    if (human) positives++;
    else negatives++;
    if (human && isFlagged) confusion.truePositive++;
    else if (!human && isFlagged) confusion.falsePositive++;
    else if (human) confusion.falseNegative++;
    else confusion.trueNegative++;
  }
  const unflaggedJudged = confusion.falseNegative + confusion.trueNegative;
  return {
    scanner,
    scannerKind,
    trajectories: logs.length,
    flagged,
    findings,
    precision: ratio(findings.confirmed, findings.confirmed + findings.rejected),
    confusion,
    recall: unflaggedJudged > 0 ? ratio(confusion.truePositive, confusion.truePositive + confusion.falseNegative) : null,
    kappa: positives > 0 && negatives > 0 ? cohenKappa(confusion) : null,
    judged: positives + negatives,
  };
}

export interface FindingView extends FindingRecord {
  /** The log's path on this machine. */
  file: string;
  /** The scanned folder the finding came from. */
  dir: string;
  verdict: Verdict | null;
}

export interface UnflaggedView {
  dir: string;
  file: string;
  log: string;
  scanner: string;
  scannerKind: ScannerKind;
  /** A model's explanation of why it did not flag the log. */
  explanation: string | null;
  /** The people's verdict on the log as a whole (its `session` target). */
  verdict: Verdict | null;
}

export interface FindingsListing {
  dirs: string[];
  findings: FindingView[];
  unflagged: UnflaggedView[];
  agreement: ScannerAgreement[];
  problems: string[];
}
