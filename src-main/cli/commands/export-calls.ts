// `rlm-studio export-calls LOG|DIR… [--where EXPR] -o calls.jsonl`: every sub-call of the
// logs that matches the filter, one JSON line each (see export/calls.ts).
import type { Command } from 'commander';
import { ModelCallFolder } from '../../../src-shared/trajectory/model-calls.ts';
import { labelsOf, SESSION_TARGET, targetId } from '../../../src-shared/analysis/labels.ts';
import { type CallLabels, type CallLine, compileWhere, WHERE_FIELDS, WhereError } from '../../export/calls.ts';
import { readEvents } from '../../export/read-events.ts';
import { readLabels } from '../../logs/labels-sidecar.ts';
import { UsageError } from '../errors.ts';
import { writeOutput } from '../output-file.ts';
import { logInputs, reportProblems, type Output, processOutput } from '../log-inputs.ts';

export interface ExportCallsOptions {
  /** Absent: stdout. */
  output?: string;
  where?: string;
  json?: boolean;
}

export interface ExportCallsReport {
  logs: number;
  calls: number;
  kept: number;
}

export async function runExportCalls(paths: string[], o: ExportCallsOptions, io: Output = processOutput): Promise<ExportCallsReport> {
  let where: ((l: CallLine, labels?: CallLabels) => Promise<boolean>) | null = null;
  try {
    where = o.where === undefined ? null : await compileWhere(o.where);
  } catch (err) {
    if (err instanceof WhereError) throw new UsageError(err.message);
    throw err;
  }
  const inputs = await logInputs(paths);
  const report: ExportCallsReport = { logs: 0, calls: 0, kept: 0 };
  await writeOutput(o.output, o.json, io, async (sink) => {
    for (const input of inputs) {
      const failed: { err: unknown }[] = [];
      let written: Promise<void> = Promise.resolve();
      let sessionId: string | null = null;
      const labels = where === null ? null : await readLabels(input.path);
      const labelsFor = (s: CallLine): CallLabels | undefined =>
        labels === null
          ? undefined
          : {
              labels: labelsOf(labels, targetId({ kind: 'call', callId: s.callId })),
              runLabels: labelsOf(labels, targetId({ kind: 'run', runId: s.runId })),
              sessionLabels: labelsOf(labels, SESSION_TARGET),
            };
      const folder = new ModelCallFolder({
        subcall: (s) => {
          if (failed.length > 0) return;
          const line: CallLine = { file: input.path, sessionId, ...s };
          report.calls++;
          // In order: each call is tested (JSONata evaluates asynchronously), then written.
          written = written.then(async () => {
            if (failed.length > 0) return;
            try {
              if (where !== null && !(await where(line, labelsFor(line)))) return;
            } catch (err) {
              failed.push({ err });
              return;
            }
            report.kept++;
            await sink.write(`${JSON.stringify(line)}\n`);
          });
        },
      });
      const read = await readEvents(input.path, (e, header) => {
        sessionId = header?.sessionId ?? null;
        folder.push(e);
      });
      folder.flush();
      await written;
      const err = failed[0]?.err;
      if (err !== undefined) throw err instanceof WhereError ? new UsageError(err.message) : err;
      if (read.format === null && !input.explicit) {
        io.err(`rlm-studio: ${input.path}: skipped, not a log in a known format\n`);
        continue;
      }
      reportProblems(input.path, read.problems, io, 'nothing exported');
      report.logs++;
    }
  });
  if (o.json) io.out(`${JSON.stringify(report)}\n`);
  else
    io.err(
      `wrote ${report.kept.toLocaleString('en-US')} of ${report.calls.toLocaleString('en-US')} sub-call(s) from ${report.logs} log(s) to ${o.output ?? 'stdout'}\n`,
    );
  return report;
}

export function registerExportCalls(program: Command): void {
  program
    .command('export-calls')
    .description(
      'Write the sub-calls of logs (either format) as JSON lines: prompt, model, response, usage, and the run and iteration each came from.',
    )
    .argument('<logs...>', 'log files, or folders searched for logs')
    .option('-o, --output <file>', 'output JSONL (never overwritten); stdout when omitted')
    .option(
      '--where <expr>',
      `keep the calls for which the JSONata expression holds (as in query), e.g. 'kind = "llm" and latencyMs > 1000 and $contains(prompt, /needle/)' (labels from LOG.labels.jsonl: '"missed-evidence" in runLabels'). Fields: ${WHERE_FIELDS.join(', ')}`,
    )
    .option('--json', 'print the counts as JSON on stdout')
    .action(async (paths: string[], options: ExportCallsOptions) => {
      await runExportCalls(paths, options);
    });
}
