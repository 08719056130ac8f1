// Appending one JSON line to an append-only sidecar. A file whose last append was cut off (a
// kill, a full disk) ends without a newline; the next line then starts a line of its own
// instead of being glued onto the fragment and lost with it.
import { appendFileSync, closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { appendFile, open } from 'node:fs/promises';

const NEWLINE = 0x0a;

/** Appends `line` (which ends with a newline) to `path`, after a newline if the file lacks a final one. */
export async function appendLine(path: string, line: string): Promise<void> {
  let torn = false;
  const file = await open(path, 'r').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (file) {
    try {
      const { size } = await file.stat();
      if (size > 0) torn = (await file.read(Buffer.alloc(1), 0, 1, size - 1)).buffer[0] !== NEWLINE;
    } finally {
      await file.close();
    }
  }
  await appendFile(path, torn ? `\n${line}` : line, 'utf8');
}

/** `appendLine` for synchronous callers. */
export function appendLineSync(path: string, line: string): void {
  let torn = false;
  let fd: number | null = null;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (fd !== null) {
    try {
      const { size } = fstatSync(fd);
      const last = Buffer.alloc(1);
      if (size > 0) torn = readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== NEWLINE;
    } finally {
      closeSync(fd);
    }
  }
  appendFileSync(path, torn ? `\n${line}` : line, 'utf8');
}
