// Long prompts left out of a native log's first read. A big log is mostly long prompt texts
// (sub-call prompts, messages' content: 60% of the benchmark log), which the tree, the
// metrics and the timeline never look at; decoding, parsing and sending them to the page
// was most of a load. So the parse worker cuts each such string of at least `min` bytes out
// of the raw line before decoding it, leaves a short preview with a marker in its place,
// and notes where the whole string is in the file; the page reads it back when it shows it.
// Only `prompt` and `content` values are cut: code, replies and outputs stay whole, so
// truncation marks, comparisons and the code view never see a preview.
import { MARK, type LineCut } from '../lib/elision.ts';

const MARK_BYTES = new TextEncoder().encode(JSON.stringify(MARK).slice(1, -1));

/** The keys whose long string values are left out (ChatMessage.content, subcall.start.prompt). */
const KEYS = ['content', 'prompt'].map((k) => new TextEncoder().encode(k));

const QUOTE = 34;
const COLON = 58;
const BACKSLASH = 92;
const NEWLINE = 10;

export class Elider {
  readonly cuts: LineCut[] = [];
  /** Lines seen so far (every input is whole lines from the start of the file). */
  private lines = 0;
  private scratch = new Uint8Array(0);
  private readonly min: number;
  private readonly previewBytes: number;

  /** Strings of at least `min` bytes (≥ 128) are left out, each with a preview of up to 240 bytes. */
  constructor(min: number) {
    if (!(min >= 128)) throw new Error(`elision threshold ${min} is below 128 bytes`);
    this.min = min;
    // The marked preview must be shorter than what it replaces (the output fits the input).
    this.previewBytes = Math.min(240, Math.floor(min / 4));
  }

  /**
   * Whole lines (ending in a newline) found at byte offset `at` of the file, with every long
   * string replaced by its marked preview. Returns `lines` itself when nothing was cut;
   * otherwise a view of a buffer that the next call overwrites (decode it before then).
   * A malformed line is passed through as far as it can be read (the JSON parse reports it).
   */
  lighten(lines: Uint8Array, at: number): Uint8Array {
    const b = lines;
    const n = b.length;
    const min = this.min;
    let out: Uint8Array | null = null;
    let o = 0;
    let copied = 0;
    // From quote to quote with indexOf (native, fast), line by line: a string never holds a
    // raw newline, so an unterminated one ends with its (malformed) line.
    let s = 0;
    while (s < n) {
      let e = b.indexOf(NEWLINE, s);
      if (e < 0) e = n;
      this.lines++;
      // A line shorter than a cut holds none (most lines: 81% of the quotes of the benchmark log).
      if (e - s < min) {
        s = e + 1;
        continue;
      }
      let p = s;
      for (;;) {
        const q = b.indexOf(QUOTE, p);
        if (q < 0 || q >= e) break;
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
        if (k + 1 - q >= min && keyAllowed(b, q, s)) {
          if (out === null) out = this.room(n);
          out.set(b.subarray(copied, q), o);
          o += q - copied;
          o = this.writePreview(b, q, k, out, o);
          copied = k + 1;
          this.cuts.push({ start: at + q, end: at + k + 1, line: this.lines });
        }
        p = k + 1;
      }
      s = e + 1;
    }
    if (out === null) return lines;
    out.set(b.subarray(copied), o);
    o += n - copied;
    return out.subarray(0, o);
  }

  /** `"preview<MARK>k"` for the string token b[open..close]. */
  private writePreview(b: Uint8Array, open: number, close: number, out: Uint8Array, o: number): number {
    const limit = Math.min(close, open + 1 + this.previewBytes);
    let j = open + 1;
    // Whole escapes only: a preview never ends inside `\"` or `\u00e9`.
    while (j < limit) j += b[j] === BACKSLASH ? (b[j + 1] === 117 ? 6 : 2) : 1;
    if (j > close) j = close;
    // Whole UTF-8 sequences only: back off continuation bytes.
    while (j < close && j > open + 1 && ((b[j] as number) & 0xc0) === 0x80) j--;
    out.set(b.subarray(open, j), o);
    o += j - open;
    out.set(MARK_BYTES, o);
    o += MARK_BYTES.length;
    const k = String(this.cuts.length);
    for (let d = 0; d < k.length; d++) out[o++] = k.charCodeAt(d);
    out[o++] = QUOTE;
    return o;
  }

  /** The scratch buffer, at least `n` bytes (the output is never longer than the input). */
  private room(n: number): Uint8Array {
    if (this.scratch.length < n) this.scratch = new Uint8Array(Math.max(n, this.scratch.length * 2));
    return this.scratch;
  }
}

/** Whether the string token opening at `q` is the value of one of `KEYS` (a JSON string key before it, within its line). */
function keyAllowed(b: Uint8Array, q: number, lineStart: number): boolean {
  let i = q - 1;
  while (i >= lineStart && isSpace(b[i] as number)) i--;
  if (b[i] !== COLON) return false;
  i--;
  while (i >= lineStart && isSpace(b[i] as number)) i--;
  if (b[i] !== QUOTE) return false;
  const keyEnd = i;
  for (const key of KEYS) {
    const from = keyEnd - key.length;
    if (from - 1 < lineStart || b[from - 1] !== QUOTE) continue;
    let same = true;
    for (let j = 0; j < key.length && same; j++) same = b[from + j] === key[j];
    if (same) return true;
  }
  return false;
}

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 13;
