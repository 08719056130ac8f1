// `rlm-studio eval DATASET.jsonl …`: runs a dataset (resumable) in this process, or with
// `--queue` on workers anywhere (this process enqueues and collects); `rlm-studio eval-gen`:
// writes a generated dataset. See src-main/eval/README.md.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import { DatasetError } from '../../eval/dataset.ts';
import { progressPrinter } from '../../eval/progress.ts';
import { readResults } from '../../eval/results.ts';
import { EvalConfigError, runEval } from '../../eval/runner.ts';
import { loadScorerModule, ScorerModuleError, type ScorerModule } from '../../eval/scorer-module.ts';
import type { EvalSummary } from '../../eval/summary.ts';
import { parseShard, ShardError } from '../../eval/units.ts';
import { isTaskKind, PAPER_SIZES, parseSizes, TASK_KINDS, type TaskKind } from '../../eval/tasks/index.ts';
import { writeDataset } from '../dataset-file.ts';
import { commandOptionAlias } from '../option-aliases.ts';
import { checkReplChoice } from '../cpython-check.ts';
import { SCORERS, type ScorerName } from '../../eval/tasks/types.ts';
import { UsageError } from '../errors.ts';
import { addLimitOptions, type LimitOptions, nonNegativeInt, positiveInt, sessionSettings } from '../options.ts';
import { addRoleOptions, type RoleOptions, rootSampling, roleClients, roleSpec, urlArg } from '../role-options.ts';
import { streamFor } from '../../lm/prompt-pack.ts';
import { addExampleOptions, loadExampleOptions, loadSystemPromptFile, loadToolsOption } from './run.ts';
import { loadPromptsOption } from '../prompts-option.ts';
import { keepReplsOutOfProcess } from '../../engine/conversation.ts';

interface EvalCliOptions extends LimitOptions, RoleOptions {
  baseUrl: string;
  model: string;
  parallel: number;
  output: string;
  json?: boolean;
  systemPrompt?: string;
  tools?: string;
  scorer?: string;
  questionColumn?: string;
  contextColumn?: string;
  answerColumn?: string;
  idColumn?: string;
  taskScorer?: ScorerName;
  example?: string[];
  exampleBudget?: number;
  queue?: string;
  repeat: number;
  retryErrors?: boolean;
  shard?: string;
  progress: boolean;
}

export function registerEval(program: Command): void {
  addExampleOptions(
    addRoleOptions(
      addLimitOptions(
        program
          .command('eval')
          .description(
            'Run every task of a JSONL dataset, score it, and write logs and a results table (resumable). Exit status: 0 when it finished, even with some sessions in error (they are counted); 1 when every session ended in an error (nothing was measured); 130 when interrupted.',
          )
          .argument(
            '<dataset>',
            'JSONL dataset, one task per line (see rlm-studio eval-gen); or JSON lines / Parquet with columns named by --question-column etc.',
          )
          .addOption(new Option('--base-url <url>', 'OpenAI-compatible endpoint').argParser(urlArg('--base-url')).makeOptionMandatory())
          .requiredOption('--model <name>', 'root model')
          .requiredOption(
            '-o, --output <dir>',
            'results folder: results.jsonl, summary.md/json, logs/; run again to resume (old name: --out)',
          ),
      ),
    ),
  )
    .addOption(new Option('--parallel <n>', 'tasks (sessions) run at once').argParser(positiveInt('--parallel')).default(2))
    .option('--json', 'print the summary as JSON on stdout')
    .option('--system-prompt <file>', "replace the built-in system prompt of every task's session ({tools} becomes the tools list)")
    .option('--tools <file.mjs>', 'custom tools for every task: an ES module whose exports are values or { fn, description }')
    .option(
      '--scorer <file.mjs>',
      "score every session with this ES module instead of each task's scorer: it exports score({ answer, expected, task }) → a number in [0, 1] or { score, correct?, detail? }, and optionally name",
    )
    .option(
      '--queue <redis-url>',
      'run on queue workers (rlm-studio worker --queue URL, on any machine): enqueue every session, collect results and logs into --out',
    )
    .addOption(
      new Option('--repeat <k>', 'sessions per task (variance across runs); results grouped by task and repeat')
        .argParser(positiveInt('--repeat'))
        .default(1),
    )
    .option(
      '--question-column <name>',
      'the dataset is JSON lines or Parquet (.parquet) with columns: the question column (default question)',
    )
    .option('--context-column <name>', 'with columns: the context column (text, or JSON data; default context)')
    .option('--answer-column <name>', 'with columns: the expected answer column (text, a number or a list of text; default answer)')
    .option('--id-column <name>', 'with columns: a column of task ids (default: row-1, row-2, …)')
    .addOption(new Option('--task-scorer <name>', 'with columns: the scorer of every task (default exact)').choices([...SCORERS]))
    .option('--retry-errors', 'run again the sessions whose result ended in an error (the new line supersedes the old)')
    .option('--shard <i/n>', 'without --queue: run only the i-th of n parts of the dataset (1-based, tasks dealt round-robin)')
    .option('--no-progress', 'no progress bar on stderr (one line per finished session still)')
    .action(async (dataset: string, o: EvalCliOptions) => {
      // The API keys are in this process's environment: the model's code runs elsewhere.
      keepReplsOutOfProcess();
      if (o.queue !== undefined && o.shard !== undefined)
        throw new UsageError('--shard is for runs without a queue: with --queue, start more workers instead');
      if (o.queue !== undefined && o.scorer !== undefined)
        throw new UsageError(
          '--scorer is for runs without a queue: score a queued evaluation once it is collected, with rlm-studio score DIR --scorer FILE.mjs',
        );
      let shard;
      try {
        shard = o.shard === undefined ? undefined : parseShard(o.shard);
      } catch (err) {
        if (err instanceof ShardError) throw new UsageError(err.message);
        throw err;
      }
      const bar = progressPrinter((t) => process.stderr.write(t), process.stderr.isTTY === true);
      const controller = new AbortController();
      const onSignal = (): void => {
        process.stderr.write('eval: interrupted; finishing the summary (finished tasks are kept)\n');
        controller.abort();
      };
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        await checkReplChoice(o);
        const systemPrompt = o.systemPrompt === undefined ? undefined : await loadSystemPromptFile(o.systemPrompt);
        const tools = o.tools === undefined ? undefined : await loadToolsOption(o.tools);
        const scorer = o.scorer === undefined ? undefined : await loadScorerOption(o.scorer);
        const named = [o.questionColumn, o.contextColumn, o.answerColumn, o.idColumn, o.taskScorer].some((v) => v !== undefined);
        const columns =
          named || /\.parquet$/i.test(dataset)
            ? {
                question: o.questionColumn ?? 'question',
                context: o.contextColumn ?? 'context',
                answer: o.answerColumn ?? 'answer',
                ...(o.idColumn === undefined ? {} : { id: o.idColumn }),
                ...(o.taskScorer === undefined ? {} : { scorer: o.taskScorer }),
              }
            : undefined;
        const examples = await loadExampleOptions(o);
        const prompts = await loadPromptsOption(o.prompts);
        const spec = roleSpec(o);
        const definition = {
          ...(prompts === undefined ? {} : { prompts }),
          ...(examples === undefined ? {} : { examples }),
          ...(systemPrompt === undefined ? {} : { systemPrompt }),
          ...(tools === undefined ? {} : { tools }),
          ...(scorer === undefined ? {} : { scorer }),
          ...(columns === undefined ? {} : { columns }),
          dataset,
          outDir: o.output,
          roles: { sampling: rootSampling(o), sub: spec.sub === null ? null : { baseUrl: spec.sub.baseUrl, sampling: spec.sub.sampling } },
          baseUrl: o.baseUrl,
          model: o.model,
          ...sessionSettings(o),
          repeat: o.repeat,
          ...(o.retryErrors ? { retryErrors: true } : {}),
          onProgress: (line: string) => {
            bar.end();
            process.stderr.write(`${line}\n`);
          },
          ...(o.progress ? { onBar: (line: string) => bar.show(line) } : {}),
          signal: controller.signal,
        };
        let res;
        if (o.queue !== undefined) {
          const { runQueuedEval } = await import('../../eval/queue/coordinator.ts');
          const { checkQueueUrl } = await import('../../eval/queue/redis.ts');
          checkQueueUrl(o.queue);
          const toolsWire = o.tools === undefined ? null : { file: o.tools, source: await readFile(o.tools, 'utf8') };
          res = await runQueuedEval({
            ...definition,
            url: o.queue,
            wire: { ...spec, tools: toolsWire, ...(o.stream === undefined ? {} : { stream: o.stream }) },
          });
        } else {
          const { client, subClient } = roleClients({ ...o, stream: streamFor(o.stream, prompts) });
          res = await runEval({
            ...definition,
            client,
            ...(subClient ? { subClient } : {}),
            parallel: o.parallel,
            ...(shard ? { shard } : {}),
          });
        }
        bar.end();
        if (o.json) process.stdout.write(`${JSON.stringify(res.summary)}\n`);
        process.exitCode = res.interrupted ? 130 : errorStatus(res.summary, res.outDir);
      } catch (err) {
        bar.end();
        if (err instanceof DatasetError || err instanceof EvalConfigError || (err instanceof Error && err.name === 'QueueSetupError'))
          throw new UsageError(err.message);
        throw err;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
  commandOptionAlias(program, 'eval', '--out <dir>', '--output');
}

async function loadScorerOption(path: string): Promise<ScorerModule> {
  try {
    return await loadScorerModule(path);
  } catch (err) {
    if (err instanceof ScorerModuleError) throw new UsageError(err.message);
    throw err;
  }
}

/** 1 when every finished session ended in an error (an endpoint down, a wrong model name): there is nothing to score. */
function errorStatus(summary: EvalSummary, outDir: string): number {
  const errors = summary.stopReasons['error'] ?? 0;
  if (errors === 0) return 0;
  if (errors < summary.finished) {
    process.stderr.write(`eval: ${errors} of ${summary.finished} session(s) ended in an error; --retry-errors runs them again\n`);
    return 0;
  }
  const first = readResults(join(outDir, 'results.jsonl')).results.find((r) => r.stopReason === 'error');
  process.stderr.write(
    `eval: every session (${errors}) ended in an error, so nothing was measured${first?.message ? `; the first: ${first.message}` : ''}\n`,
  );
  return 1;
}

interface EvalGenCliOptions {
  kind: string;
  sizes: string;
  seed: number;
  count: number;
  output: string;
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
    .requiredOption('-o, --output <file>', 'dataset to write (JSONL); large contexts go to <name>.contexts/ beside it (old name: --out)')
    .addOption(
      new Option('--inline-max-chars <n>', 'contexts up to this many characters are stored inline')
        .argParser(nonNegativeInt('--inline-max-chars'))
        .default(262_144),
    )
    .action(async (o: EvalGenCliOptions) => {
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
      const tasks = await writeDataset(
        { kinds: kinds as TaskKind[], sizes, seed: o.seed, count: o.count, out: o.output, inlineMaxChars: o.inlineMaxChars },
        (t) => process.stderr.write(`eval-gen: ${t.id}${t.contextFile ? ` → ${t.contextFile}` : ''}\n`),
      );
      process.stderr.write(`eval-gen: wrote ${tasks.length} task(s) to ${o.output}\n`);
    });
  commandOptionAlias(program, 'eval-gen', '--out <file>', '--output');
}
