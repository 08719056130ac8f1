// Long prompts left out of a native log's first read. A big log is mostly long prompt texts
// (sub-call prompts, messages' content: 60% of the benchmark log), which the tree, the
// metrics and the timeline never look at; decoding, parsing and sending them to the page
// was most of a load. So the parse worker cuts each such string of at least `min` bytes out
// of the raw line before decoding it, leaves a short preview with a marker in its place,
// and notes where the whole string is in the file; the page reads it back when it shows it.
// Only `prompt` and `content` values are cut: code, replies and outputs stay whole, so
// truncation marks, comparisons and the code view never see a preview.

/** Where a left-out string is: byte offsets in the file of its JSON token, quotes included. */
export interface Cut {
  start: number;
  end: number;
}

/** A cut as the parse worker reports it: also the 1-based number of the line it was made in. */
export interface LineCut extends Cut {
  line: number;
}

/** A left-out string inside one event: the path to it, and its bytes in the file. */
export interface Elision extends Cut {
  path: (string | number)[];
}

/**
 * Ends a preview inside the parsed string; the cut's index follows. Not expected in real
 * text (it begins with NUL and SOH), and only an index of a cut actually made is restored.
 */
export const MARK = '\u0000\u0001rlm-elided:';
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

/**
 * Replaces the marked previews in a parsed event by the plain preview and returns where
 * they were (null when the event has none): `cuts` are all the cuts made so far, by index.
 * Only strings are looked into.
 */
export function restoreMarks(event: object, cuts: readonly Cut[]): Elision[] | null {
  let found: Elision[] | null = null;
  const path: (string | number)[] = [];
  const visit = (node: Record<string | number, unknown>, key: string | number): void => {
    const v = node[key];
    if (typeof v === 'string') {
      if (v.length < MARK.length) return;
      const at = v.indexOf(MARK);
      if (at < 0) return;
      const cut = cuts[Number(v.slice(at + MARK.length))];
      if (!cut) return;
      node[key] = v.slice(0, at);
      (found ??= []).push({ path: [...path, key], start: cut.start, end: cut.end });
    } else if (v !== null && typeof v === 'object') {
      path.push(key);
      walk(v as Record<string | number, unknown>);
      path.pop();
    }
  };
  const walk = (node: Record<string | number, unknown>): void => {
    if (Array.isArray(node)) for (let i = 0; i < node.length; i++) visit(node, i);
    else for (const key in node) visit(node, key);
  };
  walk(event as Record<string, unknown>);
  return found;
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

/** The value at `path` inside `target` (undefined where there is none). */
export function getAt(target: object, path: readonly (string | number)[]): unknown {
  let node: unknown = target;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}

/** Sets the string at `path` inside `target` (a left-out text coming back). */
export function setAt(target: object, path: readonly (string | number)[], value: string): void {
  let node = target as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i++) {
    const next = node[path[i] as string | number];
    if (next === null || typeof next !== 'object') return;
    node = next as Record<string | number, unknown>;
  }
  const last = path[path.length - 1];
  if (last !== undefined) node[last] = value;
}
