// Runs scanners over every log of a folder (a runs folder or an evaluation's --out folder;
// either log format) and appends what they found to DIR/findings.jsonl: per (scanner, log) one
// `scanned` record and one `finding` record per finding (scan-findings.ts). Re-scanning
// appends again; nothing is ever rewritten. The scanners' own logs (DIR/scan/) and a judge's
// (DIR/judge/) are not scanned.
import { randomBytes } from 'node:crypto';
import { join, relative, resolve, sep } from 'node:path';
import { buildSessionDoc } from '../../../src-shared/analysis/query-document.ts';
import { QueryError } from '../../../src-shared/analysis/query.ts';
import { FINDINGS_FILE, type FindingRecord, type ModelCall, type ScannedRecord } from '../../../src-shared/analysis/scan-findings.ts';
import { reduceEvents } from '../../../src-shared/trajectory/reducer.ts';
import { expandLogInputs } from '../../export/log-inputs.ts';
import { readLabels } from '../../logs/labels-sidecar.ts';
import { appendLine } from '../../logs/append-line.ts';
import type { LmClient } from '../../eval/recorded-call.ts';
import { taskContextText } from '../log-coverage.ts';
import { readContents } from '../query-logs.ts';
import { checkEvidence, placeOf, targetsOf } from './evidence.ts';
import { askModel } from './model-scanner.ts';
import { scanContext, type ScanDocument } from './scan-document.ts';
import type { ModuleFinding, Scanner } from './scanner-file.ts';

/** A folder's scanners' own logs: never scanned themselves. */
const SCAN_LOGS_FOLDER = 'scan';
const SKIPPED_FOLDERS = [SCAN_LOGS_FOLDER, 'judge'];

export class ScanError extends Error {
  override name = 'ScanError';
}

export interface ScanOptions {
  /** For model scanners: the client and model to ask. */
  model?: { client: LmClient; name: string };
  /** The root context for every log (else each evaluation log's task context, when found). */
  rootContext?: string | null;
  /** Model calls at once (default 4). */
  parallel?: number;
  onNote?: (note: string) => void;
  now?: () => Date;
}

interface Found {
  target: string;
  evidence: string[];
  invalidEvidence: string[];
  explanation: string;
}

interface Verdict {
  findings: Found[];
  error?: string;
  verdict?: boolean;
  explanation?: string;
  model?: ModelCall;
}

export interface ScanReport {
  dir: string;
  file: string;
  scanId: string;
  logs: number;
  /** Logs read (the rest were not logs in a known format). */
  sessions: number;
  scanners: {
    id: string;
    hash: string;
    kind: Scanner['kind'];
    flagged: number;
    findings: number;
    errors: number;
    costUsd: number | null;
  }[];
  findings: FindingRecord[];
}

function round6(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

function isModuleFinding(v: unknown): v is ModuleFinding {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A module's return value as findings; a string saying what is wrong otherwise. */
function moduleFindings(value: unknown, known: ReadonlySet<string>, scanner: Scanner): Found[] | string {
  if (value === undefined || value === null || value === false) return [];
  if (value === true) return [{ target: 'session', evidence: [], invalidEvidence: [], explanation: scanner.description ?? scanner.id }];
  const items = Array.isArray(value) ? (value as unknown[]) : [value];
  const out: Found[] = [];
  for (const item of items) {
    if (!isModuleFinding(item))
      return `scan() returns findings { target?, explanation?, evidence? } (or a list of them, or true/false), got ${JSON.stringify(item)?.slice(0, 100)}`;
    const target = item.target ?? 'session';
    if (typeof target !== 'string' || !known.has(target)) return `a finding's target ${JSON.stringify(target)} is not in this log`;
    if (item.explanation !== undefined && typeof item.explanation !== 'string') return 'a finding\'s "explanation" must be a string';
    const cited = item.evidence ?? [];
    if (!Array.isArray(cited) || cited.some((e) => typeof e !== 'string')) return 'a finding\'s "evidence" must be a list of target ids';
    const { evidence, invalid } = checkEvidence([target, ...cited], known);
    out.push({ target, evidence, invalidEvidence: invalid, explanation: item.explanation ?? scanner.description ?? scanner.id });
  }
  return out;
}

async function runScanner(
  scanner: Scanner,
  doc: ScanDocument,
  known: ReadonlySet<string>,
  o: ScanOptions,
  dir: string,
  log: string,
): Promise<Verdict> {
  if (scanner.kind === 'rule') {
    const matches = await scanner.query.run(doc);
    return {
      findings: matches.map((m) => ({
        target: m.target,
        evidence: [m.target],
        invalidEvidence: [],
        explanation: `${scanner.description ?? scanner.id} — ${m.what}`,
      })),
    };
  }
  if (scanner.kind === 'module') {
    let value: unknown;
    try {
      value = await scanner.scan(doc);
    } catch (err) {
      throw new ScanError(`scanner ${scanner.id} threw on ${log}: ${(err as Error).message}`);
    }
    const found = moduleFindings(value, known, scanner);
    if (typeof found === 'string') throw new ScanError(`scanner ${scanner.id} on ${log}: ${found}`);
    return { findings: found };
  }
  const m = o.model;
  if (!m) throw new ScanError(`scanner ${scanner.id} asks a model: give --model and --base-url`);
  const logDir = join(dir, SCAN_LOGS_FOLDER, scanner.id);
  const { reply, error, call } = await askModel(
    { client: m.client, model: m.name, logDir, key: log },
    scanner.question,
    scanner.budgetChars,
    doc,
  );
  const model: ModelCall = {
    model: m.name,
    logFile: relative(dir, call.logPath).split(sep).join('/'),
    costUsd: call.costUsd,
    inputTokens: call.inputTokens,
    outputTokens: call.outputTokens,
  };
  if (reply === null) return { findings: [], error: error ?? 'no reply', model };
  if (!reply.verdict) return { findings: [], verdict: false, explanation: reply.explanation, model };
  const { evidence, invalid } = checkEvidence(reply.evidence, known);
  return {
    findings: [{ target: evidence[0] ?? 'session', evidence, invalidEvidence: invalid, explanation: reply.explanation }],
    verdict: true,
    explanation: reply.explanation,
    model,
  };
}

/** The run and iteration of each cited sub-call (none: no field). */
function callPlacesOf(doc: ScanDocument, evidence: readonly string[]): Pick<FindingRecord, 'callPlaces'> {
  const places = evidence.flatMap((target) => {
    if (!target.startsWith('call:')) return [];
    const p = placeOf(doc, target);
    return p.runId !== null && p.iteration !== null ? [{ target, runId: p.runId, iteration: p.iteration }] : [];
  });
  return places.length > 0 ? { callPlaces: places } : {};
}

/** Runs `work` over `items`, `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

export async function scanFolder(dirArg: string, scanners: readonly Scanner[], o: ScanOptions = {}): Promise<ScanReport> {
  const dir = resolve(dirArg);
  const file = join(dir, FINDINGS_FILE);
  const skipped = SKIPPED_FOLDERS.map((f) => join(dir, f) + sep);
  const inputs = (await expandLogInputs([dir], { requireLogs: true })).filter((i) => !skipped.some((s) => resolve(i.path).startsWith(s)));
  const now = (): string => (o.now?.() ?? new Date()).toISOString();
  const scanId = `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  const stats = new Map(scanners.map((s) => [s.id, { flagged: 0, findings: 0, errors: 0, cost: 0, priced: 0 }]));
  const allFindings: FindingRecord[] = [];
  let sessions = 0;
  let counter = 0;
  let writing = Promise.resolve();
  const append = (lines: string): Promise<void> => (writing = writing.then(() => appendLine(file, lines)));
  const hasModel = scanners.some((s) => s.kind === 'model');

  await eachLimited(inputs, hasModel ? (o.parallel ?? 4) : 1, async (input) => {
    const contents = await readContents(input.path);
    if (contents.format === null) {
      o.onNote?.(`${input.path}: skipped, not a log in a known format`);
      return;
    }
    const errors = contents.problems.filter((p) => p.severity === 'error').length;
    if (errors > 0) o.onNote?.(`${input.path}: ${errors} line(s) could not be read; scanned what could`);
    sessions++;
    const log = relative(dir, input.path).split(sep).join('/');
    const traj = reduceEvents(contents.events, contents.header);
    const labels = await readLabels(input.path);
    let contextText = o.rootContext ?? null;
    if (contextText === null) {
      const found = await taskContextText(input.path);
      if (found !== null && 'text' in found) contextText = found.text;
    }
    const doc: ScanDocument = {
      ...buildSessionDoc({ file: input.path, format: contents.format, traj, labels, rootContext: contextText }),
      context: scanContext(contextText),
    };
    const known = targetsOf(doc);
    for (const scanner of scanners) {
      let verdict: Verdict;
      try {
        verdict = await runScanner(scanner, doc, known, o, dir, log);
      } catch (err) {
        if (err instanceof QueryError) throw new ScanError(`scanner ${scanner.id}: ${err.message}`);
        throw err;
      }
      const time = now();
      const common = {
        v: 1 as const,
        scanId,
        scanner: scanner.id,
        scannerHash: scanner.hash,
        scannerKind: scanner.kind,
        log,
        sessionId: doc.sessionId,
        time,
      };
      const records: FindingRecord[] = verdict.findings.map((f) => ({
        ...common,
        kind: 'finding',
        id: `${scanId}/${counter++}`,
        target: f.target,
        ...placeOf(doc, f.target),
        evidence: f.evidence,
        invalidEvidence: f.invalidEvidence,
        ...callPlacesOf(doc, f.evidence),
        explanation: f.explanation,
        ...(verdict.model ? { model: verdict.model } : {}),
      }));
      const scanned: ScannedRecord = {
        ...common,
        kind: 'scanned',
        findings: records.length,
        ...(verdict.error !== undefined ? { error: verdict.error } : {}),
        ...(verdict.verdict !== undefined ? { verdict: verdict.verdict } : {}),
        ...(verdict.explanation !== undefined ? { explanation: verdict.explanation } : {}),
        ...(verdict.model ? { model: verdict.model } : {}),
      };
      await append([scanned, ...records].map((r) => `${JSON.stringify(r)}\n`).join(''));
      allFindings.push(...records);
      const s = stats.get(scanner.id)!;
      s.findings += records.length;
      if (records.length > 0) s.flagged++;
      if (verdict.error !== undefined) {
        s.errors++;
        o.onNote?.(`${input.path}: scanner ${scanner.id}: ${verdict.error}`);
      }
      if (verdict.model && verdict.model.costUsd !== null) {
        s.cost += verdict.model.costUsd;
        s.priced++;
      }
    }
  });
  await writing;
  return {
    dir,
    file,
    scanId,
    logs: inputs.length,
    sessions,
    scanners: scanners.map((sc) => {
      const s = stats.get(sc.id)!;
      return {
        id: sc.id,
        hash: sc.hash,
        kind: sc.kind,
        flagged: s.flagged,
        findings: s.findings,
        errors: s.errors,
        costUsd: sc.kind !== 'model' ? 0 : s.priced === 0 ? null : round6(s.cost),
      };
    }),
    findings: allFindings.sort((a, b) => a.log.localeCompare(b.log) || a.id.localeCompare(b.id)),
  };
}
