// The findings of scanned folders as people review them: each current finding with the
// verdict its target's labels hold, each scanned log no scanner flagged (to be judged too, for
// recall), and every scanner's agreement with those verdicts. A verdict is a label in the
// log's sidecar (`scan.<scanner>.confirmed|rejected`, scan-findings.ts), appended like any
// label; these names belong to the scanners, so no label set has to list them.
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { labelsList, parseTarget, targetId } from '../../../src-shared/analysis/labels.ts';
import {
  currentScans,
  FINDINGS_FILE,
  readFindingsText,
  scannerAgreement,
  verdictLabel,
  verdictOf,
  type FindingsListing,
  type ScannedRecord,
  type ScannerKind,
  type Verdict,
} from '../../../src-shared/analysis/scan-findings.ts';
import { appendLabelRecord, LabelError, readLabels } from '../../logs/labels-sidecar.ts';

async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Reads the findings of each folder (those without findings.jsonl are named in `problems`). */
export async function listFindings(dirs: readonly string[]): Promise<FindingsListing> {
  const out: FindingsListing = { dirs: [], findings: [], unflagged: [], agreement: [], problems: [] };
  const perScanner = new Map<string, { kind: ScannerKind; logs: Parameters<typeof scannerAgreement>[2][number][] }>();
  for (const d of dirs) {
    const dir = resolve(d);
    const text = await readText(join(dir, FINDINGS_FILE));
    if (text === null) {
      out.problems.push(`${dir}: no ${FINDINGS_FILE} (scan it first: rlm-studio scan ${d} --scanner FILE)`);
      continue;
    }
    out.dirs.push(dir);
    const parsed = readFindingsText(text);
    for (const p of parsed.problems) out.problems.push(`${join(dir, FINDINGS_FILE)}: ${p}`);
    const labelsByLog = new Map<string, ReturnType<typeof labelsList>>();
    const labelsOfLog = async (log: string): Promise<ReturnType<typeof labelsList>> => {
      let l = labelsByLog.get(log);
      if (!l) {
        const state = await readLabels(join(dir, log));
        l = labelsList(state);
        labelsByLog.set(log, l);
      }
      return l;
    };
    for (const { scanned, findings } of currentScans(parsed)) {
      const file = join(dir, scanned.log);
      const labels = await labelsOfLog(scanned.log);
      const byTarget = new Map(labels.map((t) => [t.target, t.labels]));
      for (const f of findings) out.findings.push({ ...f, file, dir, verdict: verdictOf(f.scanner, byTarget.get(f.target) ?? []) });
      if (scanned.error === undefined && findings.length === 0)
        out.unflagged.push({
          dir,
          file,
          log: scanned.log,
          scanner: scanned.scanner,
          scannerKind: scanned.scannerKind,
          explanation: scanned.explanation ?? null,
          verdict: verdictOf(scanned.scanner, byTarget.get('session') ?? []),
        });
      if (scanned.error !== undefined) continue;
      let entry = perScanner.get(scanned.scanner);
      if (!entry) perScanner.set(scanned.scanner, (entry = { kind: scanned.scannerKind, logs: [] }));
      entry.logs.push({ scanner: scanned.scanner, findings, labels });
    }
  }
  out.findings.sort((a, b) => a.scanner.localeCompare(b.scanner) || a.file.localeCompare(b.file) || a.id.localeCompare(b.id));
  out.unflagged.sort((a, b) => a.scanner.localeCompare(b.scanner) || a.file.localeCompare(b.file));
  out.agreement = [...perScanner].sort(([a], [b]) => a.localeCompare(b)).map(([id, e]) => scannerAgreement(id, e.kind, e.logs));
  return out;
}

/** The latest scanned record of a scanner for a log of a folder, or null. */
async function scannedLog(dir: string, scanner: string, log: string): Promise<ScannedRecord | null> {
  const text = await readText(join(dir, FINDINGS_FILE));
  if (text === null) return null;
  return currentScans(readFindingsText(text)).find((s) => s.scanned.scanner === scanner && s.scanned.log === log)?.scanned ?? null;
}

export interface VerdictChange {
  /** The scanned folder. */
  dir: string;
  /** The log, relative to it (as findings.jsonl names it). */
  log: string;
  scanner: string;
  /** The finding's target, or `session` for a log as a whole. */
  target: string;
  /** null withdraws the verdict. */
  verdict: Verdict | null;
}

/**
 * Stores a person's verdict as a label on the target (the other verdict, if there, removed
 * first). The scanner must have scanned that log; the target must be a well-formed id.
 */
export async function setVerdict(c: VerdictChange, now: () => Date = () => new Date()): Promise<void> {
  const dir = resolve(c.dir);
  const scanned = await scannedLog(dir, c.scanner, c.log);
  if (scanned === null) throw new LabelError(`${dir}: scanner ${c.scanner} has not scanned ${c.log} (no such record in ${FINDINGS_FILE})`);
  const t = parseTarget(c.target);
  if ('error' in t) throw new LabelError(t.error);
  const target = targetId(t);
  const file = join(dir, c.log);
  const current = (await readLabels(file)).targets.get(target)?.labels ?? [];
  const at = now().toISOString();
  for (const v of ['confirmed', 'rejected'] as const) {
    const label = verdictLabel(c.scanner, v);
    if (v !== c.verdict && current.some((l) => l.label === label)) await appendLabelRecord(file, { v: 1, op: 'remove', target, label, at });
  }
  if (c.verdict !== null) await appendLabelRecord(file, { v: 1, op: 'add', target, label: verdictLabel(c.scanner, c.verdict), at });
}
