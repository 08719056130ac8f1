// Streams the events of one log of any supported format to a callback, collecting the
// problems the readers found, for the exporters that read many logs one after another.
import type { LogFormat } from '../../src-shared/codecs/detect.ts';
import type { ReadProblem } from '../../src-shared/codecs/lines.ts';
import type { LogHeader, TrajectoryEvent } from '../../src-shared/events.ts';
import { readLogBatches } from '../logs/read-log.ts';

export interface LogRead {
  format: LogFormat | null;
  header: LogHeader | null;
  events: number;
  problems: ReadProblem[];
}

export async function readEvents(path: string, onEvent: (e: TrajectoryEvent, header: LogHeader | null) => void): Promise<LogRead> {
  const out: LogRead = { format: null, header: null, events: 0, problems: [] };
  for await (const batch of readLogBatches(path)) {
    for (const item of batch) {
      if (item.kind === 'event') {
        out.events++;
        onEvent(item.event, out.header);
      } else if (item.kind === 'format') out.format = item.format;
      else if (item.kind === 'header') out.header = item.header;
      else if (item.kind === 'problem') out.problems.push(item.problem);
    }
  }
  return out;
}
