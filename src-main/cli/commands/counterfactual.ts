// `rlm-studio counterfactual LOG --call ID (--prompt TEXT | --prompt-file FILE) --base-url URL
// [--model NAME] [--json]`: re-runs one recorded plain sub-call of a log (either format) with an
// edited prompt and/or model, appends the record to the sidecar beside the log (never the log
// itself) and prints the recorded and the new answer. `--list` prints the records already there.
// Child runs are re-run (as sessions of their own) and forks are made in the app.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { fileErrorText } from '../../../src-shared/file-errors.ts';
import type { CounterfactualRecord } from '../../../src-shared/analysis/counterfactual.ts';
import { CommandError } from '../../host/command-error.ts';
import { Counterfactuals, sidecarBeside } from '../../host/counterfactual.ts';
import { defaultRunsDir } from '../../logs/paths.ts';
import { readLogFile } from '../../logs/read-log.ts';
import { UsageError } from '../errors.ts';
import { urlArg } from '../role-options.ts';
import { assertReadable, reportProblems } from '../log-inputs.ts';
import { keepReplsOutOfProcess } from '../../engine/conversation.ts';

interface CounterfactualCliOptions {
  call?: string;
  prompt?: string;
  promptFile?: string;
  model?: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  list?: boolean;
  json?: boolean;
}

/** The record in words; blocks counted from 0, as in its callId and in --json. */
function describe(r: CounterfactualRecord): string {
  const lines = [
    `counterfactual ${r.id} of ${r.call.callId} (${r.call.runId} iteration ${r.call.iteration} block ${r.call.block}): ${r.status}`,
    `  recorded (${r.call.model}): ${r.call.response ?? '(none)'}`,
    `  new (${r.edited.model}${r.edited.prompt !== r.call.prompt ? ', edited prompt' : ''}): ${r.result?.response ?? '(none yet)'}`,
  ];
  return `${lines.join('\n')}\n`;
}

export function registerCounterfactual(program: Command): void {
  program
    .command('counterfactual')
    .description(
      'Re-run one recorded sub-call of a log with an edited prompt or model; the new result is recorded beside the log, which is never written.',
    )
    .argument('<log>', 'a log in either format')
    .option('--call <id>', 'the sub-call to re-run (its callId, as `export-calls` prints it)')
    .option('--prompt <text>', 'the edited prompt (default: the recorded one)')
    .option('--prompt-file <file>', 'read the edited prompt from a file')
    .option('--model <name>', 'the model to ask (default: the recorded one)')
    .addOption(new Option('--base-url <url>', 'the OpenAI-compatible endpoint to ask').argParser(urlArg('--base-url')))
    .option('--api-key-env <var>', 'environment variable holding the API key (default OPENAI_API_KEY)')
    .option('--list', 'print the counterfactual re-runs recorded beside the log instead')
    .option('--json', 'print the record(s) as JSON')
    .action(async (log: string, o: CounterfactualCliOptions) => {
      // The API keys are in this process's environment: the model's code runs elsewhere.
      keepReplsOutOfProcess();
      const path = resolve(log);
      await assertReadable(path);
      const contents = await readLogFile(path);
      reportProblems(path, contents.problems, { out: () => {}, err: (t) => void process.stderr.write(t) }, 'fix the log first');
      const sessionId = contents.header?.sessionId ?? path;
      const baseUrl = o.baseUrl;
      const counterfactuals = new Counterfactuals({
        runsDir: defaultRunsDir(),
        source: () =>
          Promise.resolve({
            sessionId,
            title: path,
            logFile: path,
            format: contents.format === 'rlm-python' ? 'rlm-python' : 'native',
            events: () => Promise.resolve(contents.events),
            setup: null,
          }),
        resolveProfile: (name) =>
          Promise.resolve({
            profile: { name, baseUrl: name, model: o.model ?? 'default', subModel: null, apiKeyRef: null, prices: {} },
            baseUrl: name,
            apiKey: process.env[o.apiKeyEnv ?? 'OPENAI_API_KEY'] ?? null,
          }),
        startSession: () => Promise.reject(new CommandError('bad_request', 'a child run is re-run as a session of its own: use the app')),
        eventsOf: () => Promise.resolve([]),
        connect: () => ({ receive: () => {}, close: () => {} }),
      });
      if (o.list) {
        const records = await counterfactuals.list(sessionId);
        process.stdout.write(
          o.json ? `${JSON.stringify(records)}\n` : records.map(describe).join('') || `none recorded in ${sidecarBeside(path)}\n`,
        );
        return;
      }
      if (!o.call) throw new UsageError('--call ID is required (or --list)');
      if (!baseUrl) throw new UsageError('--base-url URL is required: the endpoint the call is re-run against');
      if (o.prompt !== undefined && o.promptFile !== undefined) throw new UsageError('give --prompt or --prompt-file, not both');
      let prompt = o.prompt;
      if (o.promptFile !== undefined) {
        try {
          prompt = readFileSync(o.promptFile, 'utf8');
        } catch (err) {
          throw new UsageError(`cannot read --prompt-file ${o.promptFile}: ${fileErrorText(err)}`);
        }
      }
      const recorded = contents.events.find((e) => e.type === 'subcall.start' && e.callId === o.call);
      if (recorded?.type !== 'subcall.start') throw new UsageError(`${path}: no sub-call ${o.call}`);
      let record: CounterfactualRecord;
      try {
        record = await counterfactuals.run({
          sessionId,
          callId: o.call,
          prompt: prompt ?? recorded.prompt,
          profile: baseUrl,
          ...(o.model ? { model: o.model } : {}),
        });
      } catch (err) {
        if (err instanceof CommandError) throw new UsageError(err.message);
        throw err;
      }
      process.stdout.write(o.json ? `${JSON.stringify(record)}\n` : describe(record));
      if (record.status !== 'done') process.exitCode = 1;
    });
}
