// Context files too large for one string (V8's longest is 2^29 − 24 characters): a text file as
// an array of pieces of its text, a JSON array of strings element by element. Either way each
// string is decoded and copied once, into the memory the sandbox shares (`shared-strings.ts`), so
// that loading it into the JavaScript REPL copies nothing more.
import { closeSync, openSync, read as fsRead } from 'node:fs';
import { canHostIsolates } from '../sandbox/isolate-host.ts';

/** A large JSON file that is not an array of strings; the message says where. */
export class JsonArrayError extends Error {
  override name = 'JsonArrayError';
}

/**
 * A text file as an array of strings of up to `chunkBytes` bytes each, cut after the last line
 * break (else at the last whole character). Each piece is decoded and copied once, into the memory
 * the sandbox shares (`shared-strings.ts`), while the next piece is read on the thread pool; the
 * two read buffers are reused, so the only fresh memory is the copies themselves.
 */
export async function readTextChunks(path: string, chunkBytes: number): Promise<string[]> {
  if (chunkBytes < 4) throw new RangeError(`chunkBytes must be at least 4 (one UTF-8 character), not ${chunkBytes}`);
  const builder = await stringsBuilder();
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
      try {
        builder.add(current.toString('utf8', 0, cut));
      } catch (err) {
        await reading.catch(() => 0); // not closing the file under a read in flight
        throw err;
      }
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

interface StringsBuilder {
  add(text: string): void;
  finish(): string[];
}

/**
 * Where the strings go: into memory the sandbox shares when the REPLs run in this process
 * (isolated-vm, loaded only for files this large); else plain strings, and the sandbox process
 * reads the file again itself (engine/sandbox-process).
 */
async function stringsBuilder(): Promise<StringsBuilder> {
  if (canHostIsolates()) return new (await import('../sandbox/shared-strings.ts')).SharedStringsBuilder();
  const strings: string[] = [];
  return { add: (text) => void strings.push(text), finish: () => strings };
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
export async function readFull(fd: number, buf: Buffer, offset: number, length: number, position: number): Promise<number> {
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

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isSpace = (b: number): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/**
 * A JSON file whose top level is an array of strings, as that array, read element by element
 * through a window of `chunkBytes` (grown while one element does not fit, up to
 * `maxElementBytes`). Elements without escapes are decoded straight from the bytes; those with
 * escapes go through JSON.parse, one element at a time. Unlike JSON.parse, a raw control
 * character inside a string is let through (checking every byte for one would cost as much as the
 * rest of the read).
 */
export async function readJsonStrings(path: string, chunkBytes: number, maxElementBytes: number): Promise<string[]> {
  const builder = await stringsBuilder();
  const fd = openSync(path, 'r');
  try {
    let win = Buffer.allocUnsafe(chunkBytes);
    let filled = 0;
    /** File offset of win[0]. */
    let base = 0;
    let atEnd = false;
    let i = 0;
    /** Keeps win[keep, filled), reads more after it; false when the file has ended. */
    const more = async (keep: number): Promise<boolean> => {
      if (atEnd) return false;
      if (keep > 0) {
        win.copy(win, 0, keep, filled);
        filled -= keep;
        base += keep;
        i -= keep;
      }
      if (filled === win.length) {
        if (win.length >= maxElementBytes + 2) throw new JsonArrayError(`a string at byte ${base} is longer than V8's longest string`);
        const wider = Buffer.allocUnsafe(Math.min(win.length * 2, maxElementBytes + 2));
        win.copy(wider, 0, 0, filled);
        win = wider;
      }
      const want = win.length - filled;
      const n = await readFull(fd, win, filled, want, base + filled);
      filled += n;
      if (n < want) atEnd = true;
      return n > 0;
    };
    /** The next byte that is not white space (at index i), or -1 at the file's end. */
    const next = async (): Promise<number> => {
      for (;;) {
        while (i < filled && isSpace(win[i]!)) i++;
        if (i < filled) return win[i]!;
        if (!(await more(i))) return -1;
      }
    };
    const where = (): string => `byte ${base + i}`;
    const describe = (b: number): string => (b < 0 ? 'the end of the file' : `'${String.fromCharCode(b)}' at ${where()}`);

    let b = await next();
    if (b !== 0x5b) throw new JsonArrayError(`a JSON context this large must be an array of strings; it starts with ${describe(b)}`);
    i++;
    b = await next();
    if (b === 0x5d) {
      i++;
    } else {
      for (let index = 0; ; index++) {
        if (b !== QUOTE)
          throw new JsonArrayError(
            `element ${index} is not a string (${describe(b)}); a JSON context this large must be an array of strings`,
          );
        builder.add(await readString());
        b = await next();
        if (b === 0x5d) {
          i++;
          break;
        }
        if (b !== 0x2c) throw new JsonArrayError(`expected ',' or ']' after element ${index}, found ${describe(b)}`);
        i++;
        b = await next();
      }
    }
    b = await next();
    if (b !== -1) throw new JsonArrayError(`unexpected ${describe(b)} after the array`);
    return builder.finish();

    /** The string whose opening quote is at i; leaves i after its closing quote. */
    async function readString(): Promise<string> {
      let from = i + 1;
      for (;;) {
        const q = win.subarray(0, filled).indexOf(QUOTE, from);
        if (q < 0) {
          const scanned = from - i;
          if (!(await more(i))) throw new JsonArrayError(`the file ends inside the string that starts at byte ${base + i}`);
          from = i + Math.max(1, scanned);
          continue;
        }
        let k = q - 1;
        while (win[k] === BACKSLASH) k--;
        if ((q - 1 - k) % 2 === 1) {
          from = q + 1; // an escaped quote
          continue;
        }
        const escape = win.subarray(0, q).indexOf(BACKSLASH, i + 1);
        const start = i;
        i = q + 1;
        if (escape < 0) return win.toString('utf8', start + 1, q);
        try {
          return JSON.parse(win.toString('utf8', start, q + 1)) as string;
        } catch (err) {
          throw new JsonArrayError(`the string at byte ${base + start} is not valid JSON: ${(err as Error).message}`);
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}
