// `rlm-studio score DIR (--scorer FILE.mjs | --judge-model M --judge-prompt FILE --base-url URL)`:
// scores a finished evaluation again without running its root models — the answers are in
// results.jsonl — and appends the new scores to DIR/scores.jsonl under the scorer's id, beside
// the old ones (results.jsonl is never rewritten). `stats DIR --scores ID` reads them.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { fileErrorText } from '../../../src-shared/file-errors.ts';
import { OpenAiCompatibleClient } from '../../lm/openai-client.ts';
import { checkJudgePrompt, judgeSession, JudgePromptError } from '../../eval/judge.ts';
import { readResults, resultKey, type TaskResult } from '../../eval/results.ts';
import { loadScorerModule, ScorerModuleError, type ScorerInput } from '../../eval/scorer-module.ts';
import { appendScores, SCORES_FILE, type ScoreLine } from '../../eval/scores.ts';
import { UsageError } from '../errors.ts';
import { processOutput, type Output } from '../log-inputs.ts';
import { isScorerId, positiveInt, scorerIdArg } from '../options.ts';
import { urlArg } from '../role-options.ts';

export interface ScoreOptions {
  scorer?: string;
  judgeModel?: string;
  judgePrompt?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  name?: string;
  parallel?: number;
  json?: boolean;
}

export interface ScoreReport {
  dir: string;
  scorer: string;
  sessions: number;
  correct: number;
  meanScore: number;
  /** Sessions whose correctness differs from results.jsonl's. */
  changed: number;
  /** Judge only: the judge calls' cost (null when no call recorded a price). */
  judgeCostUsd?: number | null;
  file: string;
}

/** The question of each task, from the dataset eval.json names (its lines parsed one by one; null when it is not at hand). */
function datasetQueries(dir: string): Map<string, string> | null {
  let dataset: unknown;
  try {
    dataset = (JSON.parse(readFileSync(join(dir, 'eval.json'), 'utf8')) as { dataset?: unknown }).dataset;
  } catch {
    return null;
  }
  if (typeof dataset !== 'string') return null;
  const path = resolve(dataset);
  if (!existsSync(path)) return null;
  const out = new Map<string, string>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const t = JSON.parse(line) as { id?: unknown; query?: unknown };
      if (typeof t.id === 'string' && typeof t.query === 'string') out.set(t.id, t.query);
    } catch {
      // A dataset line that is not JSON: the evaluation refused it, so no result refers to it.
    }
  }
  return out;
}

function checkDir(dir: string): void {
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch (err) {
    throw new UsageError(`${dir}: ${fileErrorText(err)}`);
  }
  if (!isDir) throw new UsageError(`${dir} is not a directory (score takes the --out folder of rlm-studio eval)`);
  if (!existsSync(join(dir, 'results.jsonl')))
    throw new UsageError(`${dir} has no results.jsonl: nothing to score (it is the --out folder of rlm-studio eval)`);
}

/** Runs `work` over `items`, `limit` at a time, keeping their order in the result. */
async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

export async function runScore(dirArg: string, o: ScoreOptions, io: Output = processOutput): Promise<ScoreReport> {
  const dir = resolve(dirArg);
  const judging = o.judgeModel !== undefined || o.judgePrompt !== undefined;
  if (o.scorer !== undefined && judging)
    throw new UsageError('give either --scorer FILE.mjs or --judge-model with --judge-prompt, not both');
  if (o.scorer === undefined && !judging)
    throw new UsageError('say how to score: --scorer FILE.mjs, or --judge-model MODEL --judge-prompt FILE --base-url URL');
  if (judging && (o.judgeModel === undefined || o.judgePrompt === undefined || o.baseUrl === undefined))
    throw new UsageError('a model judge needs --judge-model, --judge-prompt and --base-url');
  if (o.name !== undefined && !isScorerId(o.name))
    throw new UsageError(`--name must be a short id (letters, digits, _ . -), got "${o.name}"`);
  checkDir(dir);
  const { results, skipped } = readResults(join(dir, 'results.jsonl'));
  if (skipped > 0) io.err(`rlm-studio: results.jsonl: ${skipped} line(s) that are not results were skipped\n`);
  if (results.length === 0) throw new UsageError(`${dir}/results.jsonl has no results to score`);
  const queries = datasetQueries(dir);
  const inputOf = (r: TaskResult): ScorerInput => ({
    answer: r.answer,
    expected: r.expected,
    task: { id: r.id, kind: r.kind, query: queries?.get(r.id) ?? null, repeat: r.repeat ?? 0 },
  });

  let scorerId: string;
  let scoreOne: (r: TaskResult) => Promise<Omit<ScoreLine, 'scorer' | 'id' | 'repeat' | 'scoredAt'>>;
  let parallel = o.parallel ?? 1;
  if (o.scorer !== undefined) {
    let mod;
    try {
      mod = await loadScorerModule(o.scorer);
    } catch (err) {
      if (err instanceof ScorerModuleError) throw new UsageError(err.message);
      throw err;
    }
    scorerId = o.name ?? mod.id;
    scoreOne = (r) => mod.score(inputOf(r));
  } else {
    const promptFile = o.judgePrompt as string;
    let template: string;
    try {
      template = await readFile(promptFile, 'utf8');
      checkJudgePrompt(template, promptFile);
    } catch (err) {
      if (err instanceof JudgePromptError) throw new UsageError(err.message);
      throw new UsageError(`--judge-prompt ${promptFile}: cannot read it: ${fileErrorText(err)}`);
    }
    const model = o.judgeModel as string;
    scorerId = o.name ?? `judge-${model.replace(/[^\w.-]+/g, '_')}`.slice(0, 80);
    const key = process.env[o.apiKeyEnv ?? 'OPENAI_API_KEY'];
    if (o.apiKeyEnv !== undefined && !key) throw new UsageError(`--api-key-env ${o.apiKeyEnv}: that environment variable is not set`);
    const client = new OpenAiCompatibleClient({ baseUrl: o.baseUrl as string, apiKey: key ?? 'no-key' });
    const judge = { client, model, template, dir, scorer: scorerId };
    parallel = o.parallel ?? 4;
    scoreOne = (r) => judgeSession(judge, inputOf(r), resultKey(r.id, r.repeat ?? 0));
    if (queries === null)
      io.err(`rlm-studio: the dataset eval.json names is not at hand: the judge sees no question ({question} says so)\n`);
  }

  let scored: Awaited<ReturnType<typeof scoreOne>>[];
  try {
    scored = await mapLimited(results, parallel, scoreOne);
  } catch (err) {
    if (err instanceof ScorerModuleError) throw new UsageError(`${err.message}; nothing was written to ${SCORES_FILE}`);
    throw err;
  }
  const at = new Date().toISOString();
  const lines: ScoreLine[] = results.map((r, i) => ({
    scorer: scorerId,
    id: r.id,
    ...(r.repeat ? { repeat: r.repeat } : {}),
    ...(scored[i] as Awaited<ReturnType<typeof scoreOne>>),
    scoredAt: at,
  }));
  appendScores(dir, lines);
  const correct = lines.filter((l) => l.correct).length;
  const judged = lines.filter((l) => l.judge !== undefined);
  const priced = judged.filter((l) => l.judge?.costUsd !== null);
  const report: ScoreReport = {
    dir,
    scorer: scorerId,
    sessions: lines.length,
    correct,
    meanScore: lines.reduce((a, l) => a + l.score, 0) / lines.length,
    changed: lines.filter((l, i) => l.correct !== (results[i] as TaskResult).correct).length,
    ...(judged.length > 0
      ? { judgeCostUsd: priced.length === 0 ? null : Math.round(priced.reduce((a, l) => a + (l.judge?.costUsd ?? 0), 0) * 1e6) / 1e6 }
      : {}),
    file: join(dir, SCORES_FILE),
  };
  const before = results.filter((r) => r.correct).length;
  if (o.json) io.out(`${JSON.stringify(report)}\n`);
  else
    io.out(
      `scored ${report.sessions} session(s) of ${dir} with ${scorerId}: ${correct} correct (results.jsonl: ${before}), mean score ${report.meanScore.toFixed(3)}, ${report.changed} changed` +
        `${report.judgeCostUsd !== undefined ? `; judge cost ${report.judgeCostUsd === null ? 'unknown' : `$${report.judgeCostUsd.toFixed(6)}`} (logs in ${join(dir, 'judge', scorerId)})` : ''}` +
        `\nappended to ${report.file}; read them with rlm-studio stats ${dirArg} --scores ${scorerId}\n`,
    );
  return report;
}

export function registerScore(program: Command): void {
  program
    .command('score')
    .description(
      "Score a finished evaluation again without running its models: a scorer module or a model judge over the answers in results.jsonl. The scores are appended to DIR/scores.jsonl under the scorer's id, beside earlier ones (results.jsonl is left as it is); stats DIR --scores ID reads them.",
    )
    .argument('<dir>', 'the --out folder of rlm-studio eval')
    .option(
      '--scorer <file.mjs>',
      'an ES module exporting score({ answer, expected, task }) → a number in [0, 1] or { score, correct?, detail? }, and optionally name',
    )
    .option(
      '--judge-model <name>',
      'a model as judge (with --judge-prompt and --base-url): one call per session, logged under DIR/judge/ID/',
    )
    .option(
      '--judge-prompt <file>',
      "the judge's prompt: {question}, {answer} and {expected} are filled in; its reply ends with VERDICT: CORRECT or VERDICT: INCORRECT",
    )
    .addOption(new Option('--base-url <url>', "the judge's OpenAI-compatible endpoint").argParser(urlArg('--base-url')))
    .option('--api-key-env <var>', "environment variable holding the judge endpoint's key (default OPENAI_API_KEY)")
    .option(
      '--name <id>',
      "the scorer's id in scores.jsonl (default: the module's name export or file name; judge-MODEL)",
      scorerIdArg('--name'),
    )
    .addOption(
      new Option('--parallel <n>', 'sessions scored at once (default 1 for a module, 4 for a judge)').argParser(positiveInt('--parallel')),
    )
    .option('--json', 'print the report as one JSON object')
    .action(async (dir: string, o: ScoreOptions) => {
      await runScore(dir, o);
    });
}
