// `rlm-studio scan DIR --scanner FILE… [--model M --base-url URL] [--json]`: runs scanners
// (JSONata rules, modules, model questions; docs/scanners.md) over every trajectory of a
// folder of logs or an evaluation folder, appending findings to DIR/findings.jsonl.
// `scan DIR --agreement` reports each scanner's agreement with the people's verdicts.
import { readFile, stat } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import type { ScannerAgreement } from '../../../src-shared/analysis/scan-findings.ts';
import { fileErrorText } from '../../../src-shared/file-errors.ts';
import { listFindings } from '../../analysis/scan/findings-dir.ts';
import { scanFolder, ScanError, type ScanReport } from '../../analysis/scan/scan-logs.ts';
import { loadScanner, ScannerFileError, type Scanner } from '../../analysis/scan/scanner-file.ts';
import { OpenAiCompatibleClient } from '../../lm/openai-client.ts';
import { UsageError } from '../errors.ts';
import { assertReadable, processOutput, type Output } from '../log-inputs.ts';
import { positiveInt } from '../options.ts';
import { urlArg } from '../role-options.ts';

export interface ScanOptions {
  scanner?: string[];
  model?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  context?: string;
  parallel?: number;
  agreement?: boolean;
  json?: boolean;
}

export interface ScanCommandResult {
  scan: ScanReport | null;
  agreement: ScannerAgreement[];
}

const pct = (x: number | null): string => (x === null ? '—' : `${(x * 100).toFixed(0)}%`);

function agreementText(a: ScannerAgreement): string {
  const c = a.confusion;
  return (
    `${a.scanner} (${a.scannerKind ?? '?'}): ${a.findings.total} finding(s) in ${a.flagged} of ${a.trajectories} log(s); ` +
    `people confirmed ${a.findings.confirmed}, rejected ${a.findings.rejected}, ${a.findings.unreviewed} unreviewed; precision ${pct(a.precision)}; ` +
    `${a.judged} log(s) judged (TP ${c.truePositive}, FP ${c.falsePositive}, FN ${c.falseNegative}, TN ${c.trueNegative}), recall ${pct(a.recall)}, kappa ${a.kappa === null ? '—' : a.kappa.toFixed(2)}\n`
  );
}

async function loadAll(files: readonly string[]): Promise<Scanner[]> {
  const out: Scanner[] = [];
  for (const f of files) {
    try {
      out.push(await loadScanner(f));
    } catch (err) {
      if (err instanceof ScannerFileError) throw new UsageError(err.message);
      throw err;
    }
  }
  const ids = out.map((s) => s.id);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice !== undefined) throw new UsageError(`two scanners have the id "${twice}": give one an "id" (or a \`name\` export) of its own`);
  return out;
}

export async function runScan(dirArg: string, o: ScanOptions, io: Output = processOutput): Promise<ScanCommandResult> {
  let isDir: boolean;
  try {
    isDir = (await stat(dirArg)).isDirectory();
  } catch (err) {
    throw new UsageError(`${dirArg}: ${fileErrorText(err)}`);
  }
  if (!isDir) throw new UsageError(`${dirArg} is not a folder (scan takes a folder of logs or an evaluation's --out folder)`);
  const files = o.scanner ?? [];
  if (files.length === 0 && !o.agreement)
    throw new UsageError('name a scanner: --scanner FILE (.json rule or model question, or .mjs module); or --agreement');
  const scanners = await loadAll(files);
  let scan: ScanReport | null = null;
  if (scanners.length > 0) {
    const needsModel = scanners.filter((s) => s.kind === 'model');
    if (needsModel.length > 0 && (o.model === undefined || o.baseUrl === undefined))
      throw new UsageError(
        `scanner ${needsModel[0]!.id} asks a model: give --model NAME and --base-url URL (and --api-key-env VAR if it needs a key)`,
      );
    if (needsModel.length === 0 && o.model !== undefined) io.err('rlm-studio: --model is for model scanners; none was given\n');
    let model: { client: OpenAiCompatibleClient; name: string } | undefined;
    if (needsModel.length > 0) {
      const key = process.env[o.apiKeyEnv ?? 'OPENAI_API_KEY'];
      if (o.apiKeyEnv !== undefined && !key) throw new UsageError(`--api-key-env ${o.apiKeyEnv}: that environment variable is not set`);
      model = { client: new OpenAiCompatibleClient({ baseUrl: o.baseUrl as string, apiKey: key ?? 'no-key' }), name: o.model as string };
    }
    let rootContext: string | null = null;
    if (o.context !== undefined) {
      await assertReadable(o.context);
      rootContext = await readFile(o.context, 'utf8');
    }
    try {
      scan = await scanFolder(dirArg, scanners, {
        ...(model ? { model } : {}),
        rootContext,
        ...(o.parallel !== undefined ? { parallel: o.parallel } : {}),
        onNote: (n) => io.err(`rlm-studio: ${n}\n`),
      });
    } catch (err) {
      if (err instanceof ScanError) throw new UsageError(`${err.message}; the findings of logs scanned before it are in findings.jsonl`);
      throw err;
    }
  }
  const listing = await listFindings([dirArg]);
  const ids = new Set(scanners.map((s) => s.id));
  const agreement = scanners.length > 0 ? listing.agreement.filter((a) => ids.has(a.scanner)) : listing.agreement;
  if (o.json) {
    io.out(`${JSON.stringify(scan ? { ...scan, agreement } : { dir: listing.dirs[0] ?? dirArg, agreement }, null, 2)}\n`);
  } else {
    if (scan) {
      for (const f of scan.findings) io.out(`${f.log}\t${f.target}\t${f.scanner}\t${f.explanation.replace(/\s+/g, ' ').slice(0, 200)}\n`);
      for (const s of scan.scanners)
        io.err(
          `${s.id} (${s.kind}, ${s.hash}): ${s.findings} finding(s) in ${s.flagged} of ${scan.sessions} log(s)` +
            `${s.errors > 0 ? `, ${s.errors} without a verdict` : ''}${s.kind === 'model' ? `, cost ${s.costUsd === null ? 'unknown' : `$${s.costUsd.toFixed(6)}`}` : ''}\n`,
        );
      io.err(`appended to ${scan.file}\n`);
    }
    if (o.agreement || !scan) for (const a of agreement) io.out(agreementText(a));
    if (agreement.length === 0 && !scan) io.err(`rlm-studio: ${listing.problems[0] ?? 'no findings yet'}\n`);
  }
  return { scan, agreement };
}

export function registerScan(program: Command): void {
  program
    .command('scan')
    .description(
      "Run scanners over every trajectory of a folder of logs or an evaluation folder (either log format) and append what they find to DIR/findings.jsonl: JSONata rules, modules, and questions asked of a model (docs/scanners.md). --agreement reports each scanner's agreement with the people's verdicts (labels scan.ID.confirmed|rejected).",
    )
    .argument('<dir>', "a folder of logs, or an evaluation's --out folder")
    .option(
      '--scanner <file>',
      'a scanner: .json rule ({kind:"rule", scope, when} or {kind:"rule", query}), .json model question ({kind:"model", question}), or .mjs module exporting scan(session); repeatable',
      (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
    )
    .option('--model <name>', "model scanners' model (with --base-url): one call per trajectory, logged under DIR/scan/ID/")
    .addOption(new Option('--base-url <url>', "model scanners' OpenAI-compatible endpoint").argParser(urlArg('--base-url')))
    .option('--api-key-env <var>', "environment variable holding the endpoint's key (default OPENAI_API_KEY)")
    .option('--context <file>', "the root runs' context (else an evaluation log's task context), for rules that read context.head/tail")
    .addOption(new Option('--parallel <n>', 'model calls at once (default 4)').argParser(positiveInt('--parallel')))
    .option(
      '--agreement',
      "print each scanner's agreement with the people's verdicts (without --scanner: every scanner of DIR/findings.jsonl, nothing scanned)",
    )
    .option('--json', 'print {dir, file, scanId, logs, sessions, scanners, findings, agreement} as JSON')
    .action(async (dir: string, o: ScanOptions) => {
      await runScan(dir, o);
    });
}
