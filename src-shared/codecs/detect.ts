// Which log format a file holds, from its content (never its name), and one incremental
// reader for any supported format that yields our events.
import { NATIVE_FORMAT, type LogHeader, type TrajectoryEvent } from '../events.ts';
import type { ReadProblem } from './lines.ts';
import { NativeReader } from './native.ts';
import type { RlmPythonMetadata } from './rlm-python-format.ts';
import { RlmPythonReader } from './rlm-python-import.ts';

export type LogFormat = 'native' | 'rlm-python';

/** How much of the start of a file detection looks at. */
export const DETECT_PREFIX_CHARS = 8192;

/**
 * Detects the format from the start of a file. Only the first non-blank line's opening
 * keys are looked at (a reference-library line can be megabytes; its `type` comes first).
 * Returns null when the text is not one of ours; 'undecided' when more text is needed.
 */
export function detectFormat(prefix: string, complete = false): LogFormat | null | 'undecided' {
  const start = prefix.replace(/^[\s\uFEFF]+/, '');
  if (start === '') return complete ? null : 'undecided';
  if (!start.startsWith('{')) return null;
  const nl = start.indexOf('\n');
  const head = (nl >= 0 ? start.slice(0, nl) : start).slice(0, DETECT_PREFIX_CHARS);
  if (new RegExp(`"format"\\s*:\\s*"${NATIVE_FORMAT}"`).test(head)) return 'native';
  if (/^\{\s*"type"\s*:\s*"(metadata|iteration)"/.test(head)) return 'rlm-python';
  if (
    /"type"\s*:\s*"(run\.start|run\.end|iteration\.(start|end)|model\.(reply|error)|block\.(start|end)|subcall\.(start|end)|compaction|repl\.reset|limit)"/.test(
      head,
    ) &&
    /"seq"\s*:/.test(head)
  ) {
    return 'native';
  }
  if (/"type"\s*:\s*"(metadata|iteration)"/.test(head) || /"code_blocks"\s*:/.test(head)) return 'rlm-python';
  if (nl < 0 && head.length < DETECT_PREFIX_CHARS && !complete) return 'undecided';
  return null;
}

export type LogItem =
  | { kind: 'format'; format: LogFormat }
  | { kind: 'header'; header: LogHeader; line: number }
  | { kind: 'metadata'; metadata: RlmPythonMetadata; line: number }
  | { kind: 'event'; event: TrajectoryEvent; line: number }
  | { kind: 'problem'; problem: ReadProblem };

/** Reads any supported format, chunk by chunk. */
export class AnyLogReader {
  private format: LogFormat | null = null;
  private inner: NativeReader | RlmPythonReader | null = null;
  private buffered: string[] = [];
  private bufferedChars = 0;
  private failed = false;

  get detected(): LogFormat | null {
    return this.format;
  }

  /** Error-severity problems so far (from the inner reader). */
  get errors(): number {
    return (this.inner?.errors ?? 0) + (this.failed ? 1 : 0);
  }

  push(chunk: string): LogItem[] {
    if (this.failed) return [];
    if (this.inner) return this.inner.push(chunk);
    this.buffered.push(chunk);
    this.bufferedChars += chunk.length;
    return this.tryDetect(false);
  }

  end(): LogItem[] {
    if (this.failed) return [];
    const out: LogItem[] = [];
    if (!this.inner) out.push(...this.tryDetect(true));
    if (this.inner) out.push(...this.inner.end());
    return out;
  }

  private tryDetect(complete: boolean): LogItem[] {
    const prefix = this.buffered.join('');
    const found = detectFormat(
      prefix.length > DETECT_PREFIX_CHARS * 4 ? prefix.slice(0, DETECT_PREFIX_CHARS * 4) : prefix,
      complete || this.bufferedChars > DETECT_PREFIX_CHARS * 4,
    );
    if (found === 'undecided') return [];
    if (found === null) {
      this.failed = true;
      const empty = prefix.trim() === '';
      return [
        {
          kind: 'problem',
          problem: {
            line: empty ? null : 1,
            severity: 'error',
            message: empty
              ? 'the file is empty'
              : `not a log this reader knows: expected an ${NATIVE_FORMAT} header or a reference-library (RLMLogger) JSONL line, found ${JSON.stringify(prefix.trimStart().slice(0, 60))}`,
          },
        },
      ];
    }
    this.format = found;
    this.inner = found === 'native' ? new NativeReader() : new RlmPythonReader();
    this.buffered = [];
    this.bufferedChars = 0;
    return [{ kind: 'format', format: found }, ...this.inner.push(prefix)];
  }
}
