// `rlm-studio sweep DATASET --grid FILE -o DIR`: every configuration of a grid of `eval` flags
// run as its own resumable evaluation (the `eval` command itself, so every flag means what it
// means there), all on the same tasks; `rlm-studio sweep-summary DIR`: the sweep's figures
// (per configuration, the cost–accuracy Pareto front, per-axis effects) and, with --compare,
// the paired comparison of two configurations. docs/sweeps.md.
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { AxisValue } from '../../../src-shared/analysis/sweep.ts';
import { findConfig, sweepPairedSessions } from '../../../src-shared/analysis/sweep.ts';
import { pairedComparison } from '../../../src-shared/analysis/paired-comparison.ts';
import { evalArgs, GridError, gridConfigs, readGridFile, type FlagSpec } from '../../eval/sweep/grid.ts';
import {
  MANIFEST,
  readManifest,
  readSweepDir,
  SUMMARY,
  SweepDirError,
  sweepSummaryJson,
  writeJsonAtomic,
  type ManifestConfig,
  type SweepManifest,
} from '../../eval/sweep/sweep-dir.ts';
import { existsSync } from 'node:fs';
import { UsageError } from '../errors.ts';
import { nonNegativeInt, positiveInt } from '../options.ts';
import { formatSweep } from '../sweep-text.ts';
import { registerEval } from './eval.ts';

interface SweepCliOptions {
  grid: string;
  output: string;
  baseUrl?: string;
  model?: string;
  parallel?: number;
  repeat?: number;
  queue?: string;
  json?: boolean;
  progress: boolean;
}

/** A fresh `eval` command (its flags and its action), detached from the real program. */
function evalCommand(action?: () => void): Command {
  const program = new Command().exitOverride();
  registerEval(program);
  const cmd = program.commands.find((c) => c.name() === 'eval')!;
  cmd.exitOverride();
  if (action) cmd.action(action);
  return program;
}

/** The flags a grid may name: every long flag of `eval` (its `--no-X` forms as switches of their own too). */
function evalFlagSpecs(): Map<string, FlagSpec> {
  const cmd = evalCommand().commands.find((c) => c.name() === 'eval')!;
  const specs = new Map<string, FlagSpec>();
  const longs = new Set(cmd.options.map((o) => o.long));
  for (const o of cmd.options) {
    if (!o.long) continue;
    const name = o.long.slice(2);
    if (o.negate) {
      specs.set(name, { name, takesValue: false, negatable: false });
      continue;
    }
    specs.set(name, { name, takesValue: o.required || o.optional, negatable: longs.has(`--no-${name}`) });
  }
  return specs;
}

/** Parses a configuration's flags with `eval`'s own parsers, running nothing: a bad value is named before the sweep starts. */
async function checkConfigArgs(c: ManifestConfig, args: string[]): Promise<void> {
  let said = '';
  const program = evalCommand(() => undefined);
  for (const cmd of [program, ...program.commands]) cmd.configureOutput({ writeErr: (t) => (said += t), writeOut: () => undefined });
  try {
    await program.parseAsync(['eval', ...args], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError)
      throw new UsageError(`configuration ${c.index} (${c.name}): ${(said.trim() || err.message).replace(/^error: /, '')}`);
    throw err;
  }
}

function commonFlags(o: SweepCliOptions): Record<string, AxisValue> {
  const out: Record<string, AxisValue> = {};
  if (o.baseUrl !== undefined) out['base-url'] = o.baseUrl;
  if (o.model !== undefined) out['model'] = o.model;
  if (o.parallel !== undefined) out['parallel'] = o.parallel;
  if (o.repeat !== undefined) out['repeat'] = o.repeat;
  return out;
}

async function runSweep(dataset: string, o: SweepCliOptions): Promise<void> {
  const specs = evalFlagSpecs();
  let grid;
  try {
    grid = await readGridFile(o.grid, specs);
  } catch (err) {
    if (err instanceof GridError) throw new UsageError(err.message);
    throw err;
  }
  const dir = resolve(o.output);
  const datasetPath = resolve(dataset);
  const previous = existsSync(join(dir, MANIFEST)) ? readManifestOrUsage(dir, o.output) : null;
  if (previous && previous.datasetPath !== datasetPath)
    throw new UsageError(`${o.output} is a sweep of ${previous.dataset}, not of ${dataset}: give another -o`);
  const common = commonFlags(o);
  const configs: ManifestConfig[] = gridConfigs(grid).map((c, i) => ({
    ...c,
    index: i + 1,
    dir: join('configs', c.id),
    args: evalArgs({ ...common, ...grid.fixed, ...c.settings }, specs),
  }));
  const argsOf = (c: ManifestConfig): string[] => [
    dataset,
    ...c.args,
    '-o',
    join(dir, c.dir),
    ...(o.queue !== undefined ? ['--queue', o.queue] : []),
    ...(o.progress ? [] : ['--no-progress']),
  ];
  for (const c of configs) await checkConfigArgs(c, argsOf(c));

  mkdirSync(join(dir, 'configs'), { recursive: true });
  const now = new Date().toISOString();
  const manifest: SweepManifest = {
    sweep: 1,
    dataset,
    datasetPath,
    grid,
    common,
    queue: o.queue ?? null,
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
    configs,
  };
  writeJsonAtomic(join(dir, MANIFEST), manifest);

  let interrupted = false;
  const onSignal = (): void => {
    interrupted = true;
  };
  // Beside eval's own handler (which stops the running configuration): no configuration starts after it.
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const allErrors: string[] = [];
  const started = performance.now();
  try {
    for (const c of configs) {
      if (interrupted) break;
      process.stderr.write(`sweep: [${c.index}/${configs.length}] ${c.id} ${c.name} → ${join(dir, c.dir)}\n`);
      const saved = process.exitCode;
      process.exitCode = undefined;
      try {
        await evalCommand().parseAsync(['eval', ...argsOf(c)], { from: 'user' });
      } catch (err) {
        if (err instanceof UsageError) throw new UsageError(`configuration ${c.index} (${c.name}): ${err.message}`);
        throw err;
      }
      const code = process.exitCode;
      process.exitCode = saved;
      if (code === 130) interrupted = true;
      else if (code === 1) allErrors.push(c.name);
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  const read = readSweepDir(dir);
  const json = sweepSummaryJson(read);
  writeJsonAtomic(join(dir, SUMMARY), json);
  const done = read.summary.configs.filter((c) => c.state === 'finished').length;
  process.stderr.write(
    `sweep: ${done}/${configs.length} configuration(s) finished in ${((performance.now() - started) / 1000).toFixed(1)} s${interrupted ? ' (interrupted: run the same command again to resume)' : ''}; ${join(dir, SUMMARY)}\n`,
  );
  process.stdout.write(o.json ? `${JSON.stringify(json)}\n` : formatSweep(json));
  if (allErrors.length > 0) process.stderr.write(`sweep: every session ended in an error in: ${allErrors.join('; ')}\n`);
  process.exitCode = interrupted ? 130 : allErrors.length > 0 ? 1 : 0;
}

function readManifestOrUsage(dir: string, given: string): SweepManifest {
  try {
    return readManifest(dir, given);
  } catch (err) {
    if (err instanceof SweepDirError) throw new UsageError(err.message);
    throw err;
  }
}

export function registerSweep(program: Command): void {
  program
    .command('sweep')
    .description(
      'Run every configuration of a grid of eval flags (the cartesian product of its axes) as its own resumable evaluation on the same dataset, and write a sweep folder: sweep.json, configs/<id>/ (evaluation folders) and sweep-summary.json (per-configuration accuracy, cost, tokens and time, the cost–accuracy Pareto front, per-axis effects). Run the same command again to resume. Exit status: 0 when every configuration finished; 1 when one had every session in error; 130 when interrupted.',
    )
    .argument('<dataset>', 'the dataset every configuration runs (as for rlm-studio eval)')
    .requiredOption(
      '--grid <file>',
      'the grid: JSON (or YAML, .yaml/.yml) {"axes": {"FLAG": [values…], …}, "fixed": {"FLAG": value, …}}, FLAG any flag of rlm-studio eval without its dashes (model, sub-model, max-depth, max-iterations, max-concurrency, prompts, repl, …)',
    )
    .requiredOption('-o, --output <dir>', 'the sweep folder (created; run again to resume)')
    .option('--base-url <url>', 'endpoint of every configuration (unless the grid sets base-url)')
    .option('--model <name>', 'root model of every configuration (unless the grid sets model)')
    .addOption(
      new Option('--parallel <n>', 'sessions at once within a configuration (eval --parallel)').argParser(positiveInt('--parallel')),
    )
    .addOption(new Option('--repeat <k>', 'sessions per task (eval --repeat)').argParser(positiveInt('--repeat')))
    .option('--queue <redis-url>', 'run each configuration on queue workers (eval --queue)')
    .option('--json', 'print the sweep summary as JSON on stdout (what sweep-summary.json holds)')
    .option('--no-progress', 'no progress bar on stderr')
    .action(async (dataset: string, o: SweepCliOptions) => runSweep(dataset, o));
}

interface SweepSummaryCliOptions {
  json?: boolean;
  compare?: string[];
  seed?: number;
  resamples?: number;
  confidence?: number;
}

function confidenceLevel(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n <= 0 || n >= 1)
    throw new InvalidArgumentError(`--confidence must be a number between 0 and 1 (e.g. 0.95), got "${v}".`);
  return n;
}

export function registerSweepSummary(program: Command): void {
  program
    .command('sweep-summary')
    .description(
      "A sweep folder's figures, read from its configurations' results (also while it runs): per configuration, the Pareto front, per-axis effects; with --compare, the paired comparison of two configurations by task (docs/statistics.md).",
    )
    .argument('<dir>', 'the -o folder of rlm-studio sweep')
    .option('--json', 'print one JSON object (the keys of sweep-summary.json; with --compare also "compare")')
    .option('--compare <configs...>', 'two configurations, each by id, name or 1-based index: their paired comparison')
    .option('--seed <n>', "with --compare: the bootstrap's seed (default 1)", nonNegativeInt('--seed'))
    .option('--resamples <n>', 'with --compare: bootstrap resamples (default 2000)', positiveInt('--resamples'))
    .option('--confidence <level>', "with --compare: the intervals' confidence level (default 0.95)", confidenceLevel)
    .action((dir: string, o: SweepSummaryCliOptions) => {
      let read;
      try {
        read = readSweepDir(dir);
      } catch (err) {
        if (err instanceof SweepDirError) throw new UsageError(err.message);
        throw err;
      }
      const pairedOnly = (['seed', 'resamples', 'confidence'] as const).find((k) => o[k] !== undefined);
      if (o.compare === undefined && pairedOnly) throw new UsageError(`--${pairedOnly} applies to a comparison: add --compare A B`);
      const json = sweepSummaryJson(read);
      let compare;
      if (o.compare !== undefined) {
        if (o.compare.length !== 2) throw new UsageError(`--compare takes two configurations, got ${o.compare.length}`);
        const [a, b] = o.compare.map((ref) => {
          const i = findConfig(read.inputs, ref);
          if (!i) throw new UsageError(`--compare: no configuration "${ref}" in ${dir} (give an id, a name or 1–${read.inputs.length})`);
          return i;
        }) as [(typeof read.inputs)[number], (typeof read.inputs)[number]];
        compare = {
          a: a.id,
          b: b.id,
          paired: pairedComparison(sweepPairedSessions(a.sessions), sweepPairedSessions(b.sessions), {
            seed: o.seed ?? 1,
            resamples: o.resamples ?? 2000,
            confidence: o.confidence ?? 0.95,
          }),
        };
      }
      process.stdout.write(o.json ? `${JSON.stringify(compare ? { ...json, compare } : json)}\n` : formatSweep(json, compare));
      for (const p of read.problems) process.stderr.write(`rlm-studio: ${p}\n`);
    });
}
