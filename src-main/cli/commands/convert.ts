// `rlm-studio convert IN --to native|rlm-python [-o OUT]`: streams a log of any supported
// format into the other. Never overwrites OUT. Writes everything readable; damaged input
// still exits non-zero naming the line and the problem.
import { Option, type Command } from 'commander';
import { UsageError } from '../errors.ts';
import { type Sink, writeOutput } from '../output-file.ts';
import { readLog } from '../../logs/read-log.ts';
import { assertReadable, processOutput, reportProblems, type Output } from '../log-inputs.ts';
import type { ReadProblem } from '../../../src-shared/codecs/lines.ts';
import { makeHeader, encodeLine } from '../../../src-shared/codecs/native-lines.ts';
import { RlmPythonExporter } from '../../../src-shared/codecs/rlm-python-export.ts';
import { parsePyTimestamp } from '../../../src-shared/codecs/rlm-python-format.ts';
import { createTrajectoryState } from '../../../src-shared/trajectory/reducer.ts';
import { asSessionId, type LogHeader } from '../../../src-shared/events.ts';

export type ConvertTarget = 'native' | 'rlm-python';

export async function runConvert(
  input: string,
  options: { to: ConvertTarget; output?: string },
  io: Output = processOutput,
): Promise<{ events: number }> {
  if (options.to !== 'native' && options.to !== 'rlm-python')
    throw new UsageError(`--to must be native or rlm-python, got "${String(options.to)}"`);
  await assertReadable(input);
  const problems: ReadProblem[] = [];
  let known = false;
  const convert = async (sink: Sink): Promise<number> => {
    let header: LogHeader | null = null;
    let exporter: RlmPythonExporter | null = null;
    let events = 0;
    for await (const item of readLog(input)) {
      switch (item.kind) {
        case 'format':
          known = true;
          break;
        case 'header':
          header = item.header;
          break;
        case 'metadata': {
          const ms = parsePyTimestamp(item.metadata.timestamp);
          const when = ms === null ? new Date(0) : new Date(ms);
          header = makeHeader(asSessionId(`rlm-python-${when.toISOString()}`), when);
          break;
        }
        case 'problem':
          problems.push(item.problem);
          break;
        case 'event': {
          if (events === 0) {
            header ??= makeHeader(asSessionId(`converted-${item.event.ts}`), new Date(Date.parse(item.event.ts) - item.event.t || 0));
            if (options.to === 'native') await sink.write(encodeLine(header));
            else exporter = new RlmPythonExporter(createTrajectoryState(header));
          }
          events++;
          if (options.to === 'native') await sink.write(encodeLine(item.event));
          else for (const line of (exporter as RlmPythonExporter).push(item.event)) await sink.write(line);
          break;
        }
      }
    }
    if (exporter) for (const line of exporter.end()) await sink.write(line);
    // Nothing read is an error, raised here so that no output file is kept (a retry with the same -o would be refused).
    if (events === 0) {
      if (!known) reportProblems(input, problems, io, 'nothing converted');
      if (!problems.some((p) => p.severity === 'error'))
        problems.push({ line: null, severity: 'error', message: 'no events could be read' });
      reportProblems(input, problems, io, 'nothing converted');
    }
    return events;
  };
  const events = await writeOutput(options.output, false, io, convert);
  reportProblems(input, problems, io, `wrote the ${events} event(s) that could be read to ${options.output ?? 'stdout'}`);
  return { events };
}

export function registerConvert(program: Command): void {
  program
    .command('convert')
    .description('Convert a log between the native format and the reference library (RLMLogger) JSONL.')
    .argument('<in>', 'input log (format detected from content)')
    .addOption(new Option('--to <format>', 'output format').choices(['native', 'rlm-python']).makeOptionMandatory())
    .option('-o, --output <file>', 'output file (never overwritten); stdout when omitted')
    .action(async (input: string, options: { to: ConvertTarget; output?: string }) => {
      await runConvert(input, options);
    });
}
