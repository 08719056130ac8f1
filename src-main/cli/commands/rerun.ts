// `rlm-studio rerun LOG --context FILE… [--tools FILE.mjs] [--repl LANG] [--json]`: re-executes a
// saved log (native or the reference library's) with its recorded replies and sub-call
// results, and compares every block's output with the recorded one. An evaluation's log needs
// no --context: its task's is taken from the dataset (eval/task-context.ts). Exit code 0 when
// every block matched, 1 when some differed, 2 for bad input.
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { ToolSpec } from '../../engine/config.ts';
import { DatasetError, loadTaskContext } from '../../eval/dataset.ts';
import { evalTaskContext } from '../../eval/task-context.ts';
import type { SandboxValue } from '../../sandbox/types.ts';
import { loadToolsModule, ToolsModuleError } from '../../engine/tools-module.ts';
import { defaultRunsDir } from '../../logs/paths.ts';
import type { BlockComparison } from '../../rerun/re-execute.ts';
import { languageOfChoice, REPL_CHOICES, type ReplChoice } from '../../../src-shared/events.ts';
import { RerunInputError, rerunLog, type RerunReport } from '../../rerun/rerun-log.ts';
import { checkReplChoice } from '../cpython-check.ts';
import { commandOptionAlias } from '../option-aliases.ts';
import { UsageError } from '../errors.ts';
import { loadContextFile } from './run.ts';
import { assertReadable } from '../log-inputs.ts';
import { keepReplsOutOfProcess } from '../../engine/conversation.ts';

export interface RerunCliOptions {
  /** One file for every turn, or one per turn of a multi-turn log (repeated --context). */
  context: string[];
  tools?: string;
  repl?: ReplChoice;
  python?: string;
  runsDir?: string;
  json?: boolean;
}

/** What `--json` prints. */
export interface RerunJson {
  format: RerunReport['format'];
  /** 'cpython' when re-executed in the machine's CPython. */
  repl: ReplChoice;
  blocks: number;
  same: number;
  different: BlockComparison[];
  logFile: string | null;
}

function parseLanguage(v: string): ReplChoice {
  if ((REPL_CHOICES as readonly string[]).includes(v)) return v as ReplChoice;
  throw new InvalidArgumentError(`--repl must be ${REPL_CHOICES.join(', ')}, got "${v}".`);
}

const SHOWN_CHARS = 400;

function clip(s: string): string {
  return s.length > SHOWN_CHARS ? `${s.slice(0, SHOWN_CHARS)}… (${s.length} chars)` : s;
}

/** One differing block, field by field, for a terminal. */
export function describeDifference(d: BlockComparison): string {
  const where = `${d.run} iteration ${d.iteration} block ${d.block + 1}`;
  if (d.new === null) return `${where}: not reached (its run was not spawned again)\n`;
  const lines = [`${where}: different`];
  for (const field of ['stdout', 'stderr', 'submitted'] as const) {
    const was = d.recorded[field];
    const now = d.new[field];
    if (was === now) continue;
    lines.push(
      `  ${field} recorded: ${JSON.stringify(clip(was ?? 'null'))}`,
      `  ${field} new:      ${JSON.stringify(clip(now ?? 'null'))}`,
    );
  }
  const errOf = (o: BlockComparison['recorded']): string => (o.error ? `${o.error.name}: ${o.error.message}` : 'none');
  if (errOf(d.recorded) !== errOf(d.new)) lines.push(`  error recorded: ${errOf(d.recorded)}`, `  error new:      ${errOf(d.new)}`);
  return `${lines.join('\n')}\n`;
}

/** The contexts given, or the evaluation task's when none is. */
async function contextsOf(log: string, o: RerunCliOptions): Promise<{ contexts: SandboxValue[]; contextLabels: string[] }> {
  if (o.context.length > 0) {
    const contexts: SandboxValue[] = [];
    for (const file of o.context) contexts.push(await loadContextFile(file, o.repl));
    return { contexts, contextLabels: o.context.map((file) => `--context ${file}`) };
  }
  const found = await evalTaskContext(log);
  if (found === null)
    throw new UsageError("required option '--context <file>' not specified (only an evaluation's logs find their context without it)");
  if (!found.found) throw new UsageError(`no --context given, and ${found.why}`);
  try {
    // As the evaluation loaded it (eval/runner.ts).
    const context = await loadTaskContext(found.task, found.dataset.dir, { flat: o.repl === 'python' || o.repl === 'cpython' });
    return { contexts: [context], contextLabels: [`the context of ${found.label}`] };
  } catch (err) {
    if (err instanceof DatasetError) throw new UsageError(err.message);
    throw err;
  }
}

export async function runRerun(log: string, o: RerunCliOptions): Promise<RerunJson> {
  await assertReadable(log);
  await checkReplChoice(o);
  const { contexts, contextLabels } = await contextsOf(log, o);
  let tools: Record<string, ToolSpec> = {};
  if (o.tools !== undefined) {
    try {
      tools = await loadToolsModule(o.tools);
    } catch (err) {
      if (err instanceof ToolsModuleError) throw new UsageError(err.message);
      throw err;
    }
  }
  let report: RerunReport;
  try {
    report = await rerunLog({
      logPath: log,
      contexts,
      contextLabels,
      tools,
      ...(o.repl ? { language: languageOfChoice(o.repl) } : {}),
      ...(o.repl === 'cpython' ? { cpython: o.python === undefined ? {} : { python: o.python } } : {}),
      logDir: o.runsDir ?? defaultRunsDir(),
      onWarning: (w) => process.stderr.write(`rlm-studio: ${log}: warning: ${w}\n`),
    });
  } catch (err) {
    if (err instanceof RerunInputError) throw new UsageError(err.message);
    throw err;
  }
  return {
    format: report.format,
    repl: o.repl === 'cpython' && report.language === 'python' ? 'cpython' : report.language,
    blocks: report.blocks,
    same: report.same,
    different: report.different,
    logFile: report.logFile,
  };
}

export function registerRerun(program: Command): void {
  program
    .command('rerun')
    .description(
      'Re-execute a saved log (native or reference-library JSONL): recorded replies and sub-call results are served again, every code block runs again, and each output is compared with the recorded one. Exits 1 when a block differs.',
    )
    .argument('<log>', 'log file')
    .option(
      '--context <file>',
      "the context the log was made from: .json is parsed, anything else is read as text; for a multi-turn log, one for every turn or repeated once per turn; for a log of an evaluation's --out, the task's context from its dataset when not given",
      (file: string, files: string[]) => [...files, file],
      [] as string[],
    )
    .option('--tools <file.mjs>', 'custom tools: a module whose exports are values or { fn, description }')
    .addOption(
      new Option(
        '--repl <language>',
        "REPL for a native log (default: the language it records, else javascript); reference logs are Python, run in Pyodide (python) or in this machine's CPython inside an OS sandbox (cpython)",
      ).argParser(parseLanguage),
    )
    .option('--python <bin>', 'with --repl cpython: the CPython (3.10 or newer) to run (default python3 on PATH)')
    .option('--runs-dir <dir>', 'where the re-execution log (*.rlm.jsonl) is written (default: the runs folder; old name: --log-dir)')
    .option('--json', 'print one JSON object: blocks, same, different[] ({run, iteration, block, recorded, new}), logFile')
    .action(async (log: string, o: RerunCliOptions) => {
      // The API keys are in this process's environment: the model's code runs elsewhere.
      keepReplsOutOfProcess();
      const out = await runRerun(log, o);
      if (o.json) process.stdout.write(`${JSON.stringify(out)}\n`);
      else {
        for (const d of out.different) process.stdout.write(describeDifference(d));
        process.stdout.write(`${out.blocks} block(s) re-executed in ${out.repl}: ${out.same} same, ${out.different.length} different\n`);
        if (out.logFile) process.stdout.write(`log: ${out.logFile}\n`);
      }
      // The entry point ends the process (explicitly, once Python has settled).
      process.exitCode = out.different.length > 0 ? 1 : 0;
    });
  commandOptionAlias(program, 'rerun', '--log-dir <dir>', '--runs-dir');
}
