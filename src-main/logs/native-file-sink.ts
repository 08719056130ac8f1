// Appends a session's events to its native log as they happen. Each event is one write(2)
// straight to the file, so a process killed at any moment leaves every event before the
// kill on disk, at worst followed by one partial line that readers tolerate. A write that
// fails (a full disk, a size limit) ends the file there: nothing is appended after a line it
// may have cut short.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { encodeLine } from '../../src-shared/codecs/native-lines.ts';
import type { LogHeader, TrajectoryEvent } from '../../src-shared/events.ts';
import { fileErrorText } from '../../src-shared/file-errors.ts';

/** The log could not be written; the events before the one that failed are in it. */
export class LogWriteError extends Error {
  override name = 'LogWriteError';
}

export class NativeLogFile {
  readonly path: string;
  private fd: number | null;
  /** Set by a write that failed: the file ends there. */
  private failed: LogWriteError | null = null;

  /** Creates the file; refuses to overwrite an existing one (logs are never rewritten). */
  constructor(path: string, header: LogHeader) {
    mkdirSync(dirname(path), { recursive: true });
    this.path = path;
    this.fd = openSync(path, 'wx');
    writeSync(this.fd, encodeLine(header));
  }

  append(event: TrajectoryEvent): void {
    if (this.failed) throw this.failed;
    if (this.fd === null) throw new Error(`log ${this.path} is closed`);
    const line = Buffer.from(encodeLine(event));
    try {
      // A short write (the disk filled up mid-line) is followed by one that says why.
      for (let at = 0; at < line.length;) at += writeSync(this.fd, line, at);
    } catch (err) {
      const why = fileErrorText(err, true);
      this.failed = new LogWriteError(`cannot write to the log ${this.path}: ${why}; the events before this one are in it`, { cause: err });
      this.close();
      throw this.failed;
    }
  }

  close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }
}

export function nativeLogName(sessionId: string, when: Date): string {
  const stamp = when.toISOString().replace(/[:.]/g, '-').replace('T', '_').slice(0, 19);
  return `${stamp}_${sessionId.slice(0, 8)}.rlm.jsonl`;
}

/** Why a folder could not be made for logs, in words: EEXIST and ENOTDIR mean a file stands where it (or one above it) should be. */
export function folderProblem(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'EEXIST' || code === 'ENOTDIR' ? 'a file is in the way; name a folder' : (err as Error).message;
}
