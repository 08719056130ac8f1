// Reading a context file, for every caller that runs completions (the CLI, host workers, re-execution).
import { constants, isAscii } from 'node:buffer';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { fileErrorText } from '../../src-shared/file-errors.ts';
import type { ContextMeta } from '../../src-shared/events.ts';
import { parseJsonContext } from '../sandbox/json-source.ts';
import type { SandboxValue } from '../sandbox/types.ts';
import { JsonArrayError, readFull, readJsonStrings, readTextChunks } from './large-context-file.ts';

const MB = 1024 * 1024;

/** When a file stops being read as one string, and how it is cut then. */
export interface ContextFileLimits {
  /** Larger files are an array of strings (`large-context-file.ts`); at most V8's longest string. */
  maxStringBytes: number;
  /** Bytes of a text file per element of that array, at most; also the first window for JSON. */
  chunkBytes: number;
  /** Bytes per read of a file read as one string (`readText`); 4 MiB unless a test cuts finer. */
  pieceBytes?: number;
}

/**
 * A text file up to V8's longest string (2^29 − 24 characters) is one string, as it always was;
 * a larger one could not be, and arrives as an array of strings of up to 16 MiB of the file each
 * (a JSON file that large must be an array of strings, read element by element).
 * 16 MiB: 64 elements per GB for the model's prompt, and in measurements as fast to load as 4 MiB
 * (64 MiB and more were slower: each element's transient text is fresh memory).
 */
const LIMITS: ContextFileLimits = { maxStringBytes: constants.MAX_STRING_LENGTH, chunkBytes: 16 * MB };

export interface ContextFileOptions {
  /**
   * The text as one flat string, read whole and decoded at once, for a consumer that encodes
   * it to bytes: the Python REPL, a queue's store. By default it is joined from pieces
   * (`readText`), which the JavaScript REPL copies into its isolate as they are; encoding such
   * a string first flattens it into one more copy (a 40 MB Python run's second request came
   * 111 ms later that way, the copy being made after the first model call was out).
   */
  flat?: boolean;
  limits?: ContextFileLimits;
}

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
export async function readContextFile(path: string, options: ContextFileOptions = {}): Promise<SandboxValue> {
  const limits = options.limits ?? LIMITS;
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
  const text =
    size === 0
      ? (await readFile(path)).toString('utf8') // sizeless files (procfs, pipes) are read to their end
      : options.flat === true
        ? await readWhole(path, size)
        : await readText(path, size, limits.pieceBytes ?? PIECE_BYTES);
  if (!json) return text;
  try {
    return parseJsonContext(text);
  } catch (err) {
    throw new ContextFileError(`context file ${path} (${size} bytes) is not valid JSON: ${(err as Error).message}`);
  }
}

/**
 * The file's text, its bytes read in one read on the thread pool and decoded at once.
 * `readFile` reads 512 KB at a time, each chunk waiting for the main thread, which is busy
 * starting up meanwhile (importing the SDK): a 40 MB context took ~0.1 s that way. Opening is
 * synchronous (microseconds) so that the read is the only wait.
 */
async function readWhole(path: string, size: number): Promise<string> {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(size);
    const n = await readFull(fd, buf, 0, size, 0);
    return asText(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
}

/**
 * Bytes per read of a file read as one string. With malloc on huge pages (sandbox/huge-pages.ts),
 * 4 MiB read and loaded a 100 MB ASCII file fastest: 80-93 ms against 79-205 (2 MiB), 163-178
 * (8 MiB) and 297-314 ms (1 MiB). Text that must be decoded is as fast in 1 or 4 MiB pieces.
 */
const PIECE_BYTES = 4 * MB;

/**
 * Bytes as text. ASCII bytes are their own characters, and as latin1 Node copies them into a
 * string outside V8's heap (above ~1 MB; malloc'd, so on huge pages) instead of decoding them
 * into it: a 100 MB ASCII file read in 25-37 ms against 343-376 ms, and its copy into an isolate
 * is no slower. Other bytes are decoded as UTF-8.
 */
function asText(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/**
 * A file's text, read through two reused buffers (the next piece is read on the thread pool
 * while this one becomes text) and joined the way V8 joins long strings, without copying them.
 * First-touching fresh memory is what costs here (0.6-13 µs per 4 KiB page on this kind of
 * machine): reading the whole file into one buffer and then decoding it touched twice the file's
 * size, this touches it once (a 40 MB file read and copied into an isolate: 265-290 against
 * 400-425 ms). A piece that is all ASCII is its own text (`asText`); `StringDecoder` decodes the
 * others and carries a character cut between two pieces, and a sequence left incomplete before
 * an ASCII piece ends as one U+FFFD, so the text is the whole file's `toString('utf8')`,
 * invalid bytes and a byte order mark included.
 */
async function readText(path: string, size: number, pieceBytes: number): Promise<string> {
  // Opening is synchronous (microseconds) so that the reads are the only waits.
  const fd = openSync(path, 'r');
  let reading: Promise<number> = Promise.resolve(0);
  try {
    const decoder = new StringDecoder('utf8');
    let current = Buffer.allocUnsafe(Math.min(pieceBytes, size));
    let next = Buffer.allocUnsafe(current.length);
    let at = 0;
    let text = '';
    // As many bytes as the file had when it was stat'ed, as one read of them all would.
    const readAt = (buf: Buffer): Promise<number> =>
      at < size ? readFull(fd, buf, 0, Math.min(buf.length, size - at), at) : Promise.resolve(0);
    reading = readAt(current);
    for (;;) {
      const n = await reading;
      if (n === 0) break;
      at += n;
      reading = readAt(next);
      const piece = current.subarray(0, n);
      text += isAscii(piece) ? decoder.end() + piece.toString('latin1') : decoder.write(piece);
      [current, next] = [next, current];
    }
    return text + decoder.end();
  } finally {
    await reading.catch(() => 0); // never close the file under a read in flight
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
