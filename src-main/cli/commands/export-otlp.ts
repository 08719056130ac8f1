// `rlm-studio export-otlp LOG|DIR… (--endpoint URL | -o traces.json)`: the logs as
// OpenTelemetry traces (GenAI conventions, see export/otlp.ts), sent to a collector over
// OTLP/HTTP or written as OTLP/JSON.
import { basename } from 'node:path';
import type { Command } from 'commander';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { OtlpSpanFolder } from '../../export/otlp.ts';
import { collectorExporter, OtlpTargetError, otlpJson, parseHeaders, sendSpans, tracesUrl } from '../../export/otlp-transport.ts';
import { readEvents } from '../../export/read-events.ts';
import { UsageError } from '../errors.ts';
import { assertAbsent, writeWhole } from '../output-file.ts';
import { logInputs, reportProblems, type Output, processOutput } from '../log-inputs.ts';

export interface ExportOtlpOptions {
  endpoint?: string;
  output?: string;
  header?: string[];
  /** Commander's `--no-content`: true unless given. */
  content?: boolean;
  json?: boolean;
}

export interface ExportOtlpReport {
  logs: number;
  traces: number;
  spans: number;
}

export async function runExportOtlp(paths: string[], o: ExportOtlpOptions, io: Output = processOutput): Promise<ExportOtlpReport> {
  if ((o.endpoint === undefined) === (o.output === undefined))
    throw new UsageError('give either --endpoint URL (a collector) or -o FILE (OTLP/JSON), not both or neither');
  let headers: Record<string, string>;
  try {
    headers = parseHeaders(o.header ?? []);
    if (o.endpoint !== undefined) tracesUrl(o.endpoint);
  } catch (err) {
    if (err instanceof OtlpTargetError) throw new UsageError(err.message);
    throw err;
  }
  if (o.output !== undefined && Object.keys(headers).length > 0) throw new UsageError('--header goes with --endpoint');
  const inputs = await logInputs(paths);
  if (o.output !== undefined) await assertAbsent(o.output);
  const report: ExportOtlpReport = { logs: 0, traces: 0, spans: 0 };
  const all: ReadableSpan[] = [];
  const exporter = o.endpoint === undefined ? null : collectorExporter({ endpoint: o.endpoint, headers });
  try {
    for (const input of inputs) {
      const spans: ReadableSpan[] = [];
      let folder: OtlpSpanFolder | null = null;
      const read = await readEvents(input.path, (e, header) => {
        folder ??= new OtlpSpanFolder(header?.sessionId ?? basename(input.path), (s) => spans.push(s), { content: o.content !== false });
        folder.push(e);
      });
      (folder as OtlpSpanFolder | null)?.flush();
      if (read.format === null && !input.explicit) {
        io.err(`rlm-studio: ${input.path}: skipped, not a log in a known format\n`);
        continue;
      }
      reportProblems(input.path, read.problems, io, 'nothing exported');
      report.logs++;
      report.spans += spans.length;
      report.traces += new Set(spans.map((s) => s.spanContext().traceId)).size;
      if (exporter !== null) {
        try {
          await sendSpans(exporter, spans);
        } catch (err) {
          // Not bad input: the collector is down or refused (exit 1).
          throw new Error(
            `${tracesUrl(o.endpoint!)}: the collector did not take the spans of ${input.path}: ${err instanceof Error ? err.message : String(err)}`,
            { cause: err },
          );
        }
      } else all.push(...spans);
    }
  } finally {
    await exporter?.shutdown();
  }
  if (o.output !== undefined) await writeWhole(o.output, (sink) => sink.write(`${otlpJson(all)}\n`));
  const where = o.output ?? tracesUrl(o.endpoint!);
  if (o.json) io.out(`${JSON.stringify(report)}\n`);
  else
    io.err(
      `${o.output === undefined ? 'sent' : 'wrote'} ${report.spans.toLocaleString('en-US')} span(s) in ${report.traces} trace(s) from ${report.logs} log(s) to ${where}\n`,
    );
  return report;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function registerExportOtlp(program: Command): void {
  program
    .command('export-otlp')
    .description(
      'Send logs (either format) to an OpenTelemetry collector as traces (GenAI conventions: an agent span per run, a chat span per model request, a tool span per REPL block), or write them as OTLP/JSON.',
    )
    .argument('<logs...>', 'log files, or folders searched for logs')
    .option('--endpoint <url>', 'OTLP/HTTP collector, e.g. http://localhost:4318 (/v1/traces is added unless the URL ends with it)')
    .option('-o, --output <file>', 'write OTLP/JSON (an ExportTraceServiceRequest) to this file instead (never overwritten)')
    .option('--header <name=value>', 'HTTP header for the collector, e.g. Authorization=Basic … (repeatable)', collect)
    .option('--no-content', 'leave prompts, replies, code and outputs out of the spans (counts, models and times only)')
    .option('--json', 'print the counts as JSON on stdout')
    .action(async (paths: string[], options: ExportOtlpOptions) => {
      await runExportOtlp(paths, options);
    });
}
