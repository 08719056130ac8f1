// Appends a session's events to its native log as they happen. Each event is one write(2)
// straight to the file, so a process killed at any moment leaves every event before the
// kill on disk, at worst followed by one partial line that readers tolerate.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { encodeLine } from '../../src-shared/codecs/native-lines.ts';
import type { LogHeader, TrajectoryEvent } from '../../src-shared/events.ts';

export class NativeLogFile {
  readonly path: string;
  private fd: number | null;

  /** Creates the file; refuses to overwrite an existing one (logs are never rewritten). */
  constructor(path: string, header: LogHeader) {
    mkdirSync(dirname(path), { recursive: true });
    this.path = path;
    this.fd = openSync(path, 'wx');
    writeSync(this.fd, encodeLine(header));
  }

  append(event: TrajectoryEvent): void {
    if (this.fd === null) throw new Error(`log ${this.path} is closed`);
    writeSync(this.fd, encodeLine(event));
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
