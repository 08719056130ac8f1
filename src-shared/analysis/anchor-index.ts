// Finds where texts copy a (large) context verbatim. The context is indexed by fixed-length
// anchors sampled every STRIDE characters (a polynomial hash of each); a text is scanned with
// the same hash rolled over every position, and each hit is verified and extended both ways
// by comparing characters, so a reported span is always an exact copy.
//
// Minimum span: a copied span of ANCHOR_CHARS + STRIDE - 1 characters always contains a whole
// anchor that starts on a multiple of STRIDE, so every span that long is found, wherever it
// starts; shorter copies are found only by luck of alignment, so they are never reported and
// the result does not depend on where a copy happens to start. 31 characters also keeps
// incidental coincidences (a number, a common phrase) out. Halving it would double the index
// (about 1.2 bytes per context character at these settings).

/** Characters hashed per anchor. */
const ANCHOR_CHARS = 16;
/** Distance between anchor starts in the context. */
const STRIDE = 16;
/** The shortest copy reported; every copy at least this long is found. */
export const MIN_SPAN_CHARS = ANCHOR_CHARS + STRIDE - 1;
/**
 * Context positions tried per anchor hit. A context that repeats itself (filler prose) has
 * many positions per anchor; the longest extension among the first this many wins.
 */
const MAX_CANDIDATES = 64;

const BASE = 0x01000193;
/** BASE^(ANCHOR_CHARS-1) mod 2^32, to take the outgoing character out of a rolled hash. */
const BASE_OUT = (() => {
  let p = 1;
  for (let i = 1; i < ANCHOR_CHARS; i++) p = Math.imul(p, BASE);
  return p;
})();

function hashAt(s: string, at: number): number {
  let h = 0;
  for (let i = 0; i < ANCHOR_CHARS; i++) h = (Math.imul(h, BASE) + s.charCodeAt(at + i)) | 0;
  return h;
}

/** One exact copy: `text[textStart, textEnd)` equals `context[contextStart, contextStart + length)`. */
export interface CopiedSpan {
  textStart: number;
  textEnd: number;
  contextStart: number;
}

export class AnchorIndex {
  readonly context: string;
  private readonly hashes: Int32Array;
  /** Per anchor, the next anchor (higher position) in the same bucket, or -1. */
  private readonly next: Int32Array;
  /** Per bucket, its first anchor (lowest position), or -1. */
  private readonly heads: Int32Array;
  private readonly shift: number;

  constructor(context: string) {
    this.context = context;
    const n = context.length >= ANCHOR_CHARS ? Math.floor((context.length - ANCHOR_CHARS) / STRIDE) + 1 : 0;
    let bits = 4;
    while (1 << bits < n * 2) bits++;
    this.shift = 32 - bits;
    this.hashes = new Int32Array(n);
    this.next = new Int32Array(n);
    this.heads = new Int32Array(1 << bits).fill(-1);
    // Inserted from the last anchor so that each bucket's chain runs in context order.
    for (let i = n - 1; i >= 0; i--) {
      const h = hashAt(context, i * STRIDE);
      this.hashes[i] = h;
      const b = this.bucket(h);
      this.next[i] = this.heads[b]!;
      this.heads[b] = i;
    }
  }

  private bucket(h: number): number {
    return Math.imul(h, 0x9e3779b1) >>> this.shift;
  }

  /**
   * The copies of the context in `text` of at least MIN_SPAN_CHARS characters, in text order
   * and not overlapping in the text. Where a copy matches several places of the context, the
   * longest match wins, then the one continuing the previous copy, then the earliest.
   */
  find(text: string): CopiedSpan[] {
    const out: CopiedSpan[] = [];
    const n = text.length;
    if (n < MIN_SPAN_CHARS || this.context.length < MIN_SPAN_CHARS) return out;
    const m: Match = { len: 0, left: 0, pos: -1 };
    const look: Match = { len: 0, left: 0, pos: -1 };
    let floor = 0; // text before this is already part of a reported copy
    let expected = -1; // the context position that would continue the previous copy
    let j = 0;
    let h = hashAt(text, 0);
    while (j + ANCHOR_CHARS <= n) {
      this.bestAt(text, j, h, floor, expected, m);
      if (m.len >= MIN_SPAN_CHARS) {
        // The anchor on the true place of this copy may start up to STRIDE - 1 characters
        // later (a repeated passage can match elsewhere first): take the best of them.
        let at = j;
        let hh = h;
        for (let d = 1; d < STRIDE && j + d + ANCHOR_CHARS <= n; d++) {
          hh = roll(hh, text, j + d - 1);
          this.bestAt(text, j + d, hh, floor, expected, look);
          if (better(look, m, expected)) {
            Object.assign(m, look);
            at = j + d;
          }
        }
        const start = at - m.left;
        out.push({ textStart: start, textEnd: start + m.len, contextStart: m.pos - m.left });
        expected = m.pos - m.left + m.len;
        floor = j = start + m.len;
        if (j + ANCHOR_CHARS <= n) h = hashAt(text, j);
        continue;
      }
      if (j + ANCHOR_CHARS < n) h = roll(h, text, j);
      j++;
    }
    return out;
  }

  /** The longest match of the context around text position `j` (whose window hashes to `h`), into `m`. */
  private bestAt(text: string, j: number, h: number, floor: number, expected: number, m: Match): void {
    const ctx = this.context;
    const n = text.length;
    m.len = 0;
    m.pos = -1;
    let tried = 0;
    for (let a = this.heads[this.bucket(h)]!; a !== -1 && tried < MAX_CANDIDATES; a = this.next[a]!) {
      if (this.hashes[a] !== h) continue;
      tried++;
      const p = a * STRIDE;
      let right = 0;
      while (j + right < n && p + right < ctx.length && text.charCodeAt(j + right) === ctx.charCodeAt(p + right)) right++;
      if (right < ANCHOR_CHARS) continue; // a hash collision
      let left = 0;
      while (j - left - 1 >= floor && p - left - 1 >= 0 && text.charCodeAt(j - left - 1) === ctx.charCodeAt(p - left - 1)) left++;
      const c = { len: left + right, left, pos: p };
      if (better(c, m, expected)) Object.assign(m, c);
    }
  }
}

interface Match {
  len: number;
  left: number;
  pos: number;
}

/** Longer first; on a tie the one continuing the previous copy, then the earlier in the context. */
function better(a: Match, b: Match, expected: number): boolean {
  if (b.pos < 0 || a.len !== b.len) return a.len > b.len;
  const as = a.pos - a.left;
  const bs = b.pos - b.left;
  if (bs === expected) return false;
  return as === expected || as < bs;
}

/** The hash of the window one character to the right of the one at `j`. */
function roll(h: number, text: string, j: number): number {
  return (Math.imul(h - Math.imul(text.charCodeAt(j), BASE_OUT), BASE) + text.charCodeAt(j + ANCHOR_CHARS)) | 0;
}
