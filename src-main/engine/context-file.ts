// Reading a context file, for every caller that runs completions (the CLI, host workers, re-execution).
import { closeSync, openSync, read as fsRead, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { SandboxValue } from '../sandbox/types.ts';

/** A context file that cannot be read or parsed; the message names the file. */
export class ContextFileError extends Error {
  override name = 'ContextFileError';
}

/** Reads a context file: `.json` is parsed, anything else is text. */
export async function readContextFile(path: string): Promise<SandboxValue> {
  let size: number;
  try {
    // Synchronous (microseconds): an async stat would wait for the busy main thread before the
    // read could even start.
    const s = statSync(path);
    if (!s.isFile()) throw new ContextFileError(`context file ${path} is not a file`);
    size = s.size;
  } catch (err) {
    if (err instanceof ContextFileError) throw err;
    throw new ContextFileError(`cannot read context file ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const text = (await readWhole(path, size)).toString('utf8');
  if (!path.toLowerCase().endsWith('.json')) return text;
  try {
    return JSON.parse(text) as SandboxValue;
  } catch (err) {
    throw new ContextFileError(`context file ${path} (${size} bytes) is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * The file's bytes in one read on the thread pool. `readFile` reads 512 KB at a time, each
 * chunk waiting for the main thread, which is busy starting up meanwhile (importing the SDK):
 * a 40 MB context took ~0.1 s that way. Opening is synchronous (microseconds) so that the
 * read is the only wait.
 */
async function readWhole(path: string, size: number): Promise<Buffer> {
  if (size === 0) return readFile(path); // sizeless files (procfs, pipes) are read to their end
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(size);
    let at = 0;
    while (at < size) {
      const n = await new Promise<number>((res, rej) => fsRead(fd, buf, at, size - at, at, (err, bytes) => (err ? rej(err) : res(bytes))));
      if (n === 0) break;
      at += n;
    }
    return at < size ? buf.subarray(0, at) : buf;
  } finally {
    closeSync(fd);
  }
}
