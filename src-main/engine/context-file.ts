// Reading a context file, for every caller that runs completions (the CLI, host workers, re-execution).
import { constants } from 'node:buffer';
import { closeSync, openSync, read as fsRead, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { SandboxValue } from '../sandbox/types.ts';

const MB = 1024 * 1024;

/** When a text file stops being one string, and how it is cut then. */
export interface ContextFileLimits {
  /** Larger text files are an array of strings; at most V8's longest string (in characters). */
  maxStringBytes: number;
  /** Bytes of the file per element of that array, at most. */
  chunkBytes: number;
}

/**
 * A text file up to V8's longest string (2^29 − 24 characters) is one string, as it always was;
 * a larger one could not be, and arrives as an array of strings of up to 16 MiB of the file each.
 * 16 MiB: 64 elements per GB for the model's prompt, and in measurements as fast to load as 4 MiB
 * (64 MiB and more were slower: each element's transient text is fresh memory).
 */
const LIMITS: ContextFileLimits = { maxStringBytes: constants.MAX_STRING_LENGTH, chunkBytes: 16 * MB };

/** A context file that cannot be read or parsed; the message names the file. */
export class ContextFileError extends Error {
  override name = 'ContextFileError';
}

/**
 * Reads a context file: `.json` is parsed, anything else is text. Text larger than V8's longest
 * string becomes an array of strings, each ending at a line break (or, inside a longer line, at
 * a character boundary), which joined are the file's text.
 */
export async function readContextFile(path: string, limits: ContextFileLimits = LIMITS): Promise<SandboxValue> {
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
  const json = path.toLowerCase().endsWith('.json');
  if (size > limits.maxStringBytes) {
    if (json) {
      throw new ContextFileError(
        `context file ${path} (${size} bytes) is too large for a JSON context: JSON is parsed as one string, ` +
          `of at most ${limits.maxStringBytes} bytes; give the text as a text file instead (it arrives as an array of strings)`,
      );
    }
    return readTextChunks(path, limits.chunkBytes);
  }
  const text = (await readWhole(path, size)).toString('utf8');
  if (!json) return text;
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

/**
 * A text file as an array of strings of up to `chunkBytes` bytes each, cut after the last line
 * break (else at the last whole character). Each piece is decoded and copied once, into the memory
 * the sandbox shares (`shared-strings.ts`), while the next piece is read on the thread pool; the
 * two read buffers are reused, so the only fresh memory is the copies themselves.
 */
async function readTextChunks(path: string, chunkBytes: number): Promise<string[]> {
  if (chunkBytes < 4) throw new RangeError(`chunkBytes must be at least 4 (one UTF-8 character), not ${chunkBytes}`);
  // Loaded only for files this large: isolated-vm is the sandbox's, not every caller's.
  const { SharedStringsBuilder } = await import('../sandbox/shared-strings.ts');
  const builder = new SharedStringsBuilder();
  const fd = openSync(path, 'r');
  try {
    let current = Buffer.allocUnsafe(chunkBytes);
    let next = Buffer.allocUnsafe(chunkBytes);
    let position = await readFull(fd, current, 0, chunkBytes, 0);
    let filled = position;
    let atEnd = filled < chunkBytes;
    while (filled > 0) {
      const cut = atEnd ? filled : cutPoint(current, filled);
      const carried = filled - cut;
      current.copy(next, 0, cut, filled);
      const reading = atEnd ? Promise.resolve(0) : readFull(fd, next, carried, chunkBytes - carried, position);
      builder.add(current.toString('utf8', 0, cut));
      const n = await reading;
      position += n;
      atEnd = atEnd || n < chunkBytes - carried;
      filled = carried + n;
      [current, next] = [next, current];
    }
  } finally {
    closeSync(fd);
  }
  return builder.finish();
}

/** Where to end a piece of `buf[0, filled)`: after its last line break, else before an incomplete last character. */
function cutPoint(buf: Buffer, filled: number): number {
  const newline = buf.lastIndexOf(0x0a, filled - 1);
  if (newline >= 0) return newline + 1;
  // The last character's first byte: UTF-8 continuation bytes are 10xxxxxx, at most three in a row.
  let lead = filled - 1;
  while (lead > 0 && lead > filled - 4 && (buf[lead]! & 0xc0) === 0x80) lead--;
  const b = buf[lead]!;
  const length = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
  // A complete last character (or bytes that are not UTF-8 anyway) ends the piece at `filled`.
  return lead + length <= filled || lead === 0 ? filled : lead;
}

/** Reads `length` bytes at `position` into `buf` from `offset`, fewer only at the file's end. */
async function readFull(fd: number, buf: Buffer, offset: number, length: number, position: number): Promise<number> {
  let done = 0;
  while (done < length) {
    const n = await new Promise<number>((res, rej) =>
      fsRead(fd, buf, offset + done, length - done, position + done, (err, bytes) => (err ? rej(err) : res(bytes))),
    );
    if (n === 0) break;
    done += n;
  }
  return done;
}
