// Reading a context file, for every caller that runs completions (the CLI, host workers, re-execution).
import { constants, isAscii } from 'node:buffer';
import { closeSync, openSync, read as fsRead, readSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileErrorText } from '../../src-shared/file-errors.ts';
import type { ContextMeta } from '../../src-shared/events.ts';
import { parseJsonContext } from '../sandbox/json-source.ts';
import type { SandboxValue } from '../sandbox/types.ts';
import { JsonArrayError, readJsonStrings, readTextChunks } from './large-context-file.ts';

const MB = 1024 * 1024;

/** When a file stops being read as one string, and how it is cut then. */
export interface ContextFileLimits {
  /** Larger files are an array of strings (`large-context-file.ts`); at most V8's longest string. */
  maxStringBytes: number;
  /** Bytes of a text file per element of that array, at most; also the first window for JSON. */
  chunkBytes: number;
}

/**
 * A text file up to V8's longest string (2^29 − 24 characters) is one string, as it always was;
 * a larger one could not be, and arrives as an array of strings of up to 16 MiB of the file each
 * (a JSON file that large must be an array of strings, read element by element).
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
 * a character boundary), which joined are the file's text; JSON that large must be an array of
 * strings (`large-context-file.ts`).
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
    throw new ContextFileError(`cannot read context file ${path}: ${fileErrorText(err)}`);
  }
  const json = path.toLowerCase().endsWith('.json');
  if (size > limits.maxStringBytes) {
    if (!json) return readTextChunks(path, limits.chunkBytes);
    try {
      return await readJsonStrings(path, limits.chunkBytes, constants.MAX_STRING_LENGTH);
    } catch (err) {
      if (err instanceof JsonArrayError) throw new ContextFileError(`context file ${path} (${size} bytes): ${err.message}`);
      throw err;
    }
  }
  const text = (await readWhole(path, size)).toString('utf8');
  if (!json) return text;
  try {
    return parseJsonContext(text);
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
 * What a text file (not `.json`) gives as a context, without decoding it: when every byte is
 * ASCII its characters are its bytes. Null for any other file (the caller reads it). For a
 * process that only describes the context while its REPLs read the file themselves
 * (engine/sandbox-process): scanning a 40 MB file through one reused 1 MiB buffer takes ~5 ms,
 * reading and decoding it ~70 ms (its string is fresh memory). Synchronous: the reads come
 * from the page cache, and it runs before the first model call, which waits for it anyway.
 */
export function describeAsciiTextFile(path: string, limits: ContextFileLimits = LIMITS): ContextMeta | null {
  if (path.toLowerCase().endsWith('.json')) return null;
  let fd: number;
  let size: number;
  try {
    const s = statSync(path);
    if (!s.isFile() || s.size === 0 || s.size > limits.maxStringBytes) return null;
    size = s.size;
    fd = openSync(path, 'r');
  } catch {
    return null; // `readContextFile` names the problem
  }
  try {
    // A UTF-8 byte order mark is not ASCII: such a file is read as usual (the mark is dropped).
    const buf = Buffer.allocUnsafe(Math.min(size, 1 << 20));
    let at = 0;
    while (at < size) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, size - at), at);
      if (n === 0 || !isAscii(buf.subarray(0, n))) return null;
      at += n;
    }
    return { type: 'string', totalChars: size, chunkLengths: [size] };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}
