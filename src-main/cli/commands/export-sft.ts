// `rlm-studio export-sft LOG|DIR… -o train.jsonl`: chat fine-tuning examples, one per model
// call of the selected trajectories (see export/sft.ts). What was kept and dropped, and why,
// goes to stderr (or stdout as JSON with --json).
import { Option, type Command } from 'commander';
import { basename, join } from 'node:path';
import { readResults } from '../../eval/results.ts';
import { evalDirOfLog } from '../../eval/task-context.ts';
import { readEvents } from '../../export/read-events.ts';
import {
  baseName,
  formatSftReport,
  SFT_FORMATS,
  SFT_REASONING,
  SftExporter,
  type SftFormat,
  type SftReasoning,
  type SftReport,
  type SftSelection,
} from '../../export/sft.ts';
import { LabelName } from '../../../src-shared/analysis/labels.ts';
import { readLabels } from '../../logs/labels-sidecar.ts';
import { UsageError } from '../errors.ts';
import { writeOutput } from '../output-file.ts';
import { nonNegativeInt, positiveInt } from '../options.ts';
import { logInputs, assertReadable, reportProblems, type Output, processOutput } from '../log-inputs.ts';

export interface ExportSftOptions {
  /** Absent: stdout. */
  output?: string;
  only?: 'answered';
  results?: string;
  onlyCorrect?: boolean;
  depth?: number;
  maxIterations?: number;
  label?: string;
  format: SftFormat;
  withSource?: boolean;
  reasoning: SftReasoning;
  json?: boolean;
}

async function correctLogs(resultsPath: string): Promise<Map<string, boolean>> {
  // readResults reads a missing file as no results (a new evaluation has none yet).
  await assertReadable(resultsPath);
  const { results, skipped } = readResults(resultsPath);
  if (results.length === 0) {
    throw new UsageError(`${resultsPath}: no task results in it${skipped > 0 ? ` (${skipped} line(s) could not be read)` : ''}`);
  }
  const out = new Map<string, boolean>();
  for (const r of results) if (r.logFile !== null) out.set(baseName(r.logFile), r.correct);
  return out;
}

/**
 * The verdicts of the evaluations the logs are in (DIR/logs/LOG: DIR/results.jsonl), by log
 * path, as `stats` and `coverage` find them; null when no log is an evaluation's.
 */
function correctLogsBeside(logs: readonly string[]): Map<string, boolean> | null {
  const dirs = new Set(logs.flatMap((l) => evalDirOfLog(l) ?? []));
  if (dirs.size === 0) return null;
  const out = new Map<string, boolean>();
  for (const dir of dirs)
    for (const r of readResults(join(dir, 'results.jsonl')).results)
      if (r.logFile !== null) out.set(join(dir, 'logs', basename(r.logFile)), r.correct);
  return out;
}

export async function runExportSft(paths: string[], o: ExportSftOptions, io: Output = processOutput): Promise<SftReport> {
  if (o.results && !o.onlyCorrect) throw new UsageError('--results is read for --only-correct; add --only-correct');
  const inputs = await logInputs(paths);
  let correct = o.results ? await correctLogs(o.results) : null;
  if (o.onlyCorrect && correct === null) {
    correct = correctLogsBeside(inputs.map((i) => i.path));
    if (correct === null)
      throw new UsageError(
        "--only-correct: none of these logs is in an evaluation's folder (DIR/logs/, scored in DIR/results.jsonl); give the evaluation's folder, or --results FILE",
      );
  }
  const selection: SftSelection = {
    onlyAnswered: o.only === 'answered',
    correctLogs: correct,
    resultsFrom: o.results ? null : 'its evaluation',
    depth: o.depth ?? null,
    maxIterations: o.maxIterations ?? null,
    label: o.label ?? null,
  };
  if (o.label !== undefined && !LabelName.safeParse(o.label).success)
    throw new UsageError(`--label ${JSON.stringify(o.label)}: not a label name`);
  const report = await writeOutput(o.output, o.json, io, async (sink) => {
    let pendingWrite: Promise<void> = Promise.resolve();
    const exporter = new SftExporter({
      selection,
      format: o.format,
      withSource: o.withSource ?? false,
      reasoning: o.reasoning,
      write: (line) => {
        pendingWrite = pendingWrite.then(() => sink.write(line));
      },
    });
    for (const input of inputs) {
      let log: ReturnType<SftExporter['beginLog']> | null = null;
      const labels = o.label !== undefined ? await readLabels(input.path) : undefined;
      const read = await readEvents(input.path, (e, header) => {
        log ??= exporter.beginLog({ file: input.path, sessionId: header?.sessionId ?? null, ...(labels ? { labels } : {}) });
        log.push(e);
      });
      (log as ReturnType<SftExporter['beginLog']> | null)?.end();
      await pendingWrite;
      if (read.format === null && !input.explicit) {
        io.err(`rlm-studio: ${input.path}: skipped, not a log in a known format\n`);
        continue;
      }
      reportProblems(input.path, read.problems, io, 'nothing exported');
    }
    await pendingWrite;
    return exporter.result();
  });
  if (o.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
  else io.err(formatSftReport(report, o.output ?? 'stdout'));
  return report;
}

export function registerExportSft(program: Command): void {
  program
    .command('export-sft')
    .description('Write chat fine-tuning examples (one per model call: the messages sent and the reply) from logs of either format.')
    .argument('<logs...>', "log files, or folders searched for logs (an evaluation's --out folder works)")
    .option('-o, --output <file>', 'output JSONL (never overwritten); stdout when omitted')
    .addOption(new Option('--only <which>', 'keep only trajectories whose root run submitted an answer').choices(['answered']))
    .option('--results <file>', "an evaluation's results.jsonl, for --only-correct (default: the one of the evaluation each log is in)")
    .option('--only-correct', "keep only logs of tasks scored correct (in their evaluation's results.jsonl, or --results)")
    .option(
      '--depth <n>',
      "keep only calls answered at this depth (0: the root model, the paper's setting; plain sub-calls count one deeper than their run); default all",
      nonNegativeInt('--depth'),
    )
    .option('--max-iterations <n>', 'keep only trajectories whose root run took at most N iterations', positiveInt('--max-iterations'))
    .option(
      '--label <name>',
      "keep only calls labelled NAME in the log's LOG.labels.jsonl (on the session, the call's run or iteration, or the sub-call; see rlm-studio label)",
    )
    .addOption(
      new Option(
        '--format <format>',
        'openai: {"messages"} (OpenAI, TRL, Axolotl chat_template); prompt-completion: TRL\'s {"prompt","completion"}; sharegpt: {"system","conversations"} (LLaMA-Factory, Axolotl)',
      )
        .choices([...SFT_FORMATS])
        .default('openai'),
    )
    .option('--with-source', 'add a "source" field to each example (log, run, iteration, model, usage); some trainers reject extra fields')
    .addOption(
      new Option(
        '--reasoning <how>',
        "a reply's recorded thinking: drop it, keep it as reasoning_content on the assistant message, or as <think>…</think> before the reply",
      )
        .choices(SFT_REASONING)
        .default('drop'),
    )
    .option('--json', 'print the report as JSON on stdout')
    .action(async (paths: string[], options: ExportSftOptions) => {
      await runExportSft(paths, options);
    });
}
