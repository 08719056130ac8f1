// `rlm-studio eval DATASET.jsonl …`: runs a dataset (resumable), and `rlm-studio eval-gen`:
// writes a generated dataset. See src-main/eval/README.md.
import type { Command } from 'commander';
import { Option } from 'commander';
import { DatasetError, generateDataset } from '../../eval/dataset.ts';
import { EvalConfigError, runEval } from '../../eval/runner.ts';
import { isTaskKind, PAPER_SIZES, parseSizes, TASK_KINDS, type TaskKind } from '../../eval/tasks/index.ts';
import { UsageError } from '../errors.ts';
import { addLimitOptions, type LimitOptions, nonNegativeInt, positiveInt, sessionSettings } from '../options.ts';
import { addRoleOptions, type RoleOptions, rootSampling, roleClients } from '../role-options.ts';
import { addExampleOptions, loadExampleOptions, loadSystemPromptFile, loadToolsOption } from './run.ts';

interface EvalCliOptions extends LimitOptions, RoleOptions {
  baseUrl: string;
  model: string;
  parallel: number;
  out: string;
  json?: boolean;
  systemPrompt?: string;
  tools?: string;
  example?: string[];
  exampleBudget?: number;
}

export function registerEval(program: Command): void {
  addExampleOptions(
    addRoleOptions(
      addLimitOptions(
        program
          .command('eval')
          .description('Run every task of a JSONL dataset, score it, and write logs and a results table (resumable).')
          .argument('<dataset>', 'JSONL dataset, one task per line (see rlm-studio eval-gen)')
          .requiredOption('--base-url <url>', 'OpenAI-compatible endpoint')
          .requiredOption('--model <name>', 'root model')
          .requiredOption('--out <dir>', 'results directory: results.jsonl, summary.md/json, logs/; run again to resume'),
      ),
    ),
  )
    .addOption(new Option('--parallel <n>', 'tasks (sessions) run at once').argParser(positiveInt('--parallel')).default(2))
    .option('--json', 'print the summary as JSON on stdout')
    .option('--system-prompt <file>', "replace the built-in system prompt of every task's session ({tools} becomes the tools list)")
    .option('--tools <file.mjs>', 'custom tools for every task: an ES module whose exports are values or { fn, description }')
    .action(async (dataset: string, o: EvalCliOptions) => {
      const controller = new AbortController();
      const onSignal = (): void => {
        process.stderr.write('eval: interrupted; finishing the summary (finished tasks are kept)\n');
        controller.abort();
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        const { client, subClient, sub } = roleClients(o);
        const systemPrompt = o.systemPrompt === undefined ? undefined : await loadSystemPromptFile(o.systemPrompt);
        const tools = o.tools === undefined ? undefined : await loadToolsOption(o.tools);
        const examples = await loadExampleOptions(o);
        const res = await runEval({
          ...(examples === undefined ? {} : { examples }),
          ...(systemPrompt === undefined ? {} : { systemPrompt }),
          ...(tools === undefined ? {} : { tools }),
          dataset,
          outDir: o.out,
          client,
          ...(subClient ? { subClient } : {}),
          roles: { sampling: rootSampling(o), sub },
          baseUrl: o.baseUrl,
          model: o.model,
          ...sessionSettings(o),
          parallel: o.parallel,
          onProgress: (line) => process.stderr.write(`${line}\n`),
          signal: controller.signal,
        });
        if (o.json) process.stdout.write(`${JSON.stringify(res.summary)}\n`);
        process.exitCode = res.interrupted ? 130 : 0;
      } catch (err) {
        if (err instanceof DatasetError || err instanceof EvalConfigError) throw new UsageError(err.message);
        throw err;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}

interface EvalGenCliOptions {
  kind: string;
  sizes: string;
  seed: number;
  count: number;
  out: string;
  inlineMaxChars: number;
}

export function registerEvalGen(program: Command): void {
  program
    .command('eval-gen')
    .description('Write a generated evaluation dataset (S-NIAH, OOLONG-like, OOLONG-Pairs-like, BrowseComp-Plus-like).')
    .option('--kind <kinds>', `comma-separated: ${TASK_KINDS.join(', ')}`, TASK_KINDS.join(','))
    .option(
      '--sizes <list>',
      'sizes in tokens (≈4 chars each): 8192,2^16,64k or a range 2^13..2^20',
      `2^${Math.log2(PAPER_SIZES[0]!)}..2^16`,
    )
    .addOption(new Option('--seed <n>', 'first seed').argParser(nonNegativeInt('--seed')).default(1))
    .addOption(new Option('--count <n>', 'tasks per kind and size (seeds seed, seed+1, …)').argParser(positiveInt('--count')).default(1))
    .requiredOption('-o, --out <file>', 'dataset to write (JSONL); large contexts go to <name>.contexts/ beside it')
    .addOption(
      new Option('--inline-max-chars <n>', 'contexts up to this many characters are stored inline')
        .argParser(nonNegativeInt('--inline-max-chars'))
        .default(262_144),
    )
    .action((o: EvalGenCliOptions) => {
      const kinds = o.kind
        .split(',')
        .map((k) => k.trim())
        .filter((k) => k !== '');
      const bad = kinds.filter((k) => !isTaskKind(k));
      if (kinds.length === 0 || bad.length > 0)
        throw new UsageError(`--kind: unknown kind(s) ${bad.join(', ') || '(none)'}; choose from ${TASK_KINDS.join(', ')}`);
      let sizes: number[];
      try {
        sizes = parseSizes(o.sizes);
      } catch (err) {
        throw new UsageError(`--sizes: ${(err as Error).message}`);
      }
      const tasks = generateDataset(
        { kinds: kinds as TaskKind[], sizes, seed: o.seed, count: o.count, out: o.out, inlineMaxChars: o.inlineMaxChars },
        (t) => process.stderr.write(`eval-gen: ${t.id}${t.contextFile ? ` → ${t.contextFile}` : ''}\n`),
      );
      process.stderr.write(`eval-gen: wrote ${tasks.length} task(s) to ${o.out}\n`);
    });
}
