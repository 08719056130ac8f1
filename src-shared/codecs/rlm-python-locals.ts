// Shortens the long strings inside a reference log's `locals` in the raw bytes, before the
// line is decoded and parsed. The reference logs every variable after every block, context
// included (65% of the bytes of a needle-search log are two copies of its context per block),
// and the import keeps only the first LOCAL_CHARS characters of each (rlm-python-import.ts),
// so decoding and parsing the rest is wasted. The shortening is exact: the events are the
// same as from the whole line, because
// - a value keeps a prefix of LOCAL_CHARS + 2 UTF-16 units (counted through escapes and UTF-8
//   sequences), more than the LOCAL_CHARS + 1 the import ever reads of a string it cuts, and
//   it is cut only when it is longer than that;
// - a value starting with `<` is left whole (the import drops `<module 'x' …>`-like reprs by
//   their last character);
// - keys, and everything outside `locals`, are never touched.
// A malformed line is passed through as far as it can be read (the JSON parse reports it).
import { LOCAL_CHARS } from './rlm-python-import.ts';

/** Shorter strings are left whole (a cut saves little). */
const MIN_BYTES = 512;
/**
 * Shorter lines are passed through untouched: finding `locals` means walking every string
 * of a line, which in a line of many short strings costs more than parsing what a cut
 * would save (a child-run log's 20–100 KB lines: no gain; a needle search's lines of two
 * context copies per block: 30% less CPU for the whole read).
 */
const MIN_LINE_BYTES = 128 * 1024;
/** UTF-16 units kept: more than the LOCAL_CHARS + 1 the import reads of a string it cuts. */
const PREFIX_UNITS = LOCAL_CHARS + 2;

const QUOTE = 34;
const COLON = 58;
const BACKSLASH = 92;
const NEWLINE = 10;
const LT = 60;
const LOCALS = Uint8Array.from('locals', (c) => c.charCodeAt(0));

/**
 * Files from this size on are worth shortening. Below it a reader's code is still cold when
 * the file ends, and walking the lines' strings costs more than parsing them (CPU of a fresh
 * process reading a 10 MB needle log: 40 → 60 ms; 100 MB: 240 → 170 ms).
 */
export const SHORTEN_LOCALS_FROM_BYTES = 32 * 1024 * 1024;

export class LocalsShortener {
  private scratch = new Uint8Array(0);
  private readonly minLineBytes: number;
  /** Bytes left out so far. */
  saved = 0;

  /** `minLineBytes`: lines shorter than this are passed through (tests look at short ones). */
  constructor(minLineBytes = MIN_LINE_BYTES) {
    this.minLineBytes = minLineBytes;
  }

  /**
   * Whole lines (ending in a newline), with every long string inside a `locals` object cut
   * to its prefix. Returns `lines` itself when nothing was cut; otherwise a view of a buffer
   * that the next call overwrites (decode it before then).
   */
  shorten(lines: Uint8Array): Uint8Array {
    const b = lines;
    const n = b.length;
    let out: Uint8Array | null = null;
    let o = 0;
    let copied = 0;
    let s = 0;
    while (s < n) {
      let e = b.indexOf(NEWLINE, s);
      if (e < 0) e = n;
      if (e - s < this.minLineBytes) {
        s = e + 1;
        continue;
      }
      let depth = 0;
      /** Depth of the `locals` object's members (0: not inside one). */
      let inLocals = 0;
      let p = s;
      for (;;) {
        const q = b.indexOf(QUOTE, p);
        if (q < 0 || q >= e) break;
        // Structure between the last token and this one (no quote there, so no string).
        for (let i = p; i < q; i++) {
          const c = b[i] as number;
          if (c === 123 || c === 91) depth++;
          else if (c === 125 || c === 93) {
            depth--;
            if (inLocals > 0 && depth < inLocals) inLocals = 0;
          }
        }
        let k = q + 1;
        for (;;) {
          k = b.indexOf(QUOTE, k);
          if (k < 0 || k >= e) break;
          let bs = 0;
          while (b[k - 1 - bs] === BACKSLASH) bs++;
          if ((bs & 1) === 0) break;
          k++;
        }
        if (k < 0 || k >= e) break;
        let after = k + 1;
        while (after < e && isSpace(b[after] as number)) after++;
        const isKey = b[after] === COLON;
        if (isKey) {
          if (inLocals === 0 && k - q - 1 === LOCALS.length && same(b, q + 1, LOCALS)) {
            let v = after + 1;
            while (v < e && isSpace(b[v] as number)) v++;
            // Only an object's members: `"locals": null` opens nothing.
            if (b[v] === 123) inLocals = depth + 1;
          }
        } else if (inLocals > 0 && k + 1 - q >= MIN_BYTES && b[q + 1] !== LT) {
          const end = prefixEnd(b, q, k);
          if (end > 0) {
            if (out === null) out = this.room(n);
            out.set(b.subarray(copied, end), o);
            o += end - copied;
            out[o++] = QUOTE;
            copied = k + 1;
          }
        }
        p = k + 1;
      }
      s = e + 1;
    }
    if (out === null) return lines;
    out.set(b.subarray(copied), o);
    o += n - copied;
    this.saved += n - o;
    return out.subarray(0, o);
  }

  /** The scratch buffer, at least `n` bytes (the output is never longer than the input). */
  private room(n: number): Uint8Array {
    if (this.scratch.length < n) this.scratch = new Uint8Array(Math.max(n, this.scratch.length * 2));
    return this.scratch;
  }
}

/**
 * Where the kept prefix of the string token b[open..close] ends: after PREFIX_UNITS UTF-16
 * units, on a whole escape and a whole UTF-8 sequence; or -1 if the string is not longer.
 */
function prefixEnd(b: Uint8Array, open: number, close: number): number {
  let j = open + 1;
  let units = 0;
  while (units < PREFIX_UNITS && j < close) {
    const c = b[j] as number;
    if (c === BACKSLASH) j += b[j + 1] === 117 ? 6 : 2;
    else if (c < 0x80) j++;
    else {
      // A lead byte: 4-byte sequences are two UTF-16 units (a surrogate pair).
      const len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      if (len === 4) units++;
      j += len;
    }
    units++;
  }
  return j < close ? j : -1;
}

function same(b: Uint8Array, at: number, word: Uint8Array): boolean {
  for (let i = 0; i < word.length; i++) if (b[at + i] !== word[i]) return false;
  return true;
}

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 13 || c === NEWLINE;
