// The page's half of reading a native log. The parse worker reads the file and cuts the long
// prompts out; the page decodes and parses the rest itself. Objects are only usable on the
// thread that made them: a worker's parsed events reach the page by structured clone, which
// cost the two threads more than the parsing (for 100 MB: ~0.5 s to serialise in the worker,
// ~0.6 s to deserialise in the page, against ~0.5 s for JSON.parse where the events are to
// live); and bytes are transferred, not copied, where a string would be copied twice.
// Reference-library logs, which need a whole conversion, are parsed in the worker and sent
// as events.
import { NativeReader } from '../../src-shared/codecs/native.ts';
import { formatProblem } from '../../src-shared/codecs/lines.ts';
import type { LogHeader, TrajectoryEvent } from '../../src-shared/events.ts';
import { restoreMarks, type Cut, type Elision, type LineCut } from './elision.ts';

/** What one piece of text gave. `elided`: which events (by index) had strings left out, and where they are. */
export interface TextBatch {
  header: LogHeader | null;
  events: TrajectoryEvent[];
  elided: [number, Elision[]][];
  problems: string[];
}

export class NativeTextReader {
  private readonly reader = new NativeReader();
  /** Every cut the worker made, by the index its marker names. */
  private readonly cuts: Cut[] = [];
  /** Lines that hold cuts not yet found in a parsed event. */
  private readonly cutLines = new Set<number>();
  /** Whether any text came (a log parsed in the worker sends none, and has nothing to end here). */
  private started = false;

  private readonly atStart = new TextDecoder();
  private readonly later = new TextDecoder('utf-8', { ignoreBOM: true });

  /**
   * Whole lines of the log, in order, as UTF-8, with the cuts made in them. Decoded on their
   * own (a newline byte is never inside a UTF-8 sequence), a BOM dropped only at the start.
   */
  read(bytes: Uint8Array, cuts: readonly LineCut[] = []): TextBatch {
    const text = (this.started ? this.later : this.atStart).decode(bytes);
    this.started = true;
    for (const c of cuts) {
      this.cuts.push({ start: c.start, end: c.end });
      this.cutLines.add(c.line);
    }
    return this.take(this.reader.push(text));
  }

  /** The end of the file: an unterminated last line, and the problems' summaries. */
  end(): TextBatch {
    return this.take(this.started ? this.reader.end() : []);
  }

  private take(items: ReturnType<NativeReader['push']>): TextBatch {
    const out: TextBatch = { header: null, events: [], elided: [], problems: [] };
    for (const item of items) {
      if (item.kind === 'header') out.header = item.header;
      else if (item.kind === 'problem') out.problems.push(formatProblem(item.problem));
      else {
        if (this.cutLines.delete(item.line)) {
          const left = restoreMarks(item.event, this.cuts);
          if (left) out.elided.push([out.events.length, left]);
        }
        out.events.push(item.event);
      }
    }
    return out;
  }
}
