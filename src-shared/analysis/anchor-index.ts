// Finds where texts copy a (large) context verbatim. The context is indexed by fixed-length
// anchors sampled every STRIDE characters (a polynomial hash of each); a text is scanned with
// the same hash rolled over every position, and each hit is verified and extended both ways
// by comparing characters, so a reported span is always an exact copy.
//
// Repetitive contexts (filler prose, logs) have thousands of places per anchor. Each anchor
// also keeps the hash of the LONG_CHARS characters from it, so a long copy is placed by the
// candidates that agree on that many characters (few, even in 12-word filler) rather than by
// the first few of thousands that agree on 16.
//
// Minimum span: a copied span of ANCHOR_CHARS + STRIDE - 1 characters always contains a whole
// anchor that starts on a multiple of STRIDE, so every span that long is found, wherever it
// starts; shorter copies are found only by luck of alignment, so they are never reported and
// the result does not depend on where a copy happens to start. 31 characters also keeps
// incidental coincidences (a number, a common phrase) out. Halving it would double the index
// (about 1.25 bytes per context character at these settings).

/** Characters hashed per anchor. */
const ANCHOR_CHARS = 16;
/** Distance between anchor starts in the context. */
const STRIDE = 16;
/** The shortest copy reported; every copy at least this long is found. */
export const MIN_SPAN_CHARS = ANCHOR_CHARS + STRIDE - 1;
/** Anchors per long hash: it covers LONG_ANCHORS * STRIDE characters (the anchors that follow). */
const LONG_ANCHORS = 4;
/** Characters of the second hash that tells apart the places of a repeated anchor. */
const LONG_CHARS = LONG_ANCHORS * STRIDE;
/** Places compared per lookup and chain; the longest match among them wins. */
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

const MIX = 0x2c1b3c6d;
/** The long hash from LONG_ANCHORS consecutive anchor hashes starting at `i`. */
function mixHashes(hashes: Int32Array, i: number): number {
  let h = 0;
  for (let k = 0; k < LONG_ANCHORS; k++) h = (Math.imul(h, MIX) + hashes[i + k]!) | 0;
  return h;
}

const scratch = new Int32Array(LONG_ANCHORS);
function longHashAt(s: string, at: number): number {
  for (let k = 0; k < LONG_ANCHORS; k++) scratch[k] = hashAt(s, at + k * ANCHOR_CHARS);
  return mixHashes(scratch, 0);
}

/**
 * How far `a` from `i` equals `b` from `k`. Long stretches are compared as substrings in
 * growing pieces (the engine compares flat strings a block at a time), the last piece character by character.
 */
function matchRight(a: string, i: number, b: string, k: number): number {
  const limit = Math.min(a.length - i, b.length - k);
  let r = 0;
  // Most candidates differ early: characters first, pieces once a stretch agrees.
  while (r < limit && r < 64 && a.charCodeAt(i + r) === b.charCodeAt(k + r)) r++;
  if (r < 64) return r;
  let piece = 256;
  while (limit - r >= piece) {
    if (a.substring(i + r, i + r + piece) !== b.substring(k + r, k + r + piece)) break;
    r += piece;
    if (piece < 1 << 16) piece *= 2;
  }
  while (r < limit && a.charCodeAt(i + r) === b.charCodeAt(k + r)) r++;
  return r;
}

function bucketOf(h: number, shift: number): number {
  return Math.imul(h, 0x9e3779b1) >>> shift;
}

/** Hashes every anchor and links each into its bucket chains, from the last so that chains run in context order. */
function buildChains(
  context: string,
  shift: number,
  hashes: Int32Array,
  next: Int32Array,
  heads: Int32Array,
  nextLong: Int32Array,
  headsLong: Int32Array,
): void {
  const n = hashes.length;
  // Three passes, each with one pattern of memory access (measured faster than one mixed loop).
  for (let i = 0; i < n; i++) hashes[i] = hashAt(context, i * STRIDE);
  for (let i = n - 1; i >= 0; i--) {
    const b = bucketOf(hashes[i]!, shift);
    next[i] = heads[b]!;
    heads[b] = i;
  }
  // The anchors that follow one make its long hash (they tile the text, STRIDE being
  // ANCHOR_CHARS): no character is read twice.
  for (let i = n - LONG_ANCHORS; i >= 0; i--) {
    const b = bucketOf(mixHashes(hashes, i), shift);
    nextLong[i] = headsLong[b]!;
    headsLong[b] = i;
  }
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
  /** Per anchor, the next anchor (higher position) with a short hash in the same bucket, or -1. */
  private readonly next: Int32Array;
  /** Per anchor, the next anchor with a long hash in the same bucket, or -1. */
  private readonly nextLong: Int32Array;
  /** Per bucket, its first anchor (lowest position), or -1: by short hash, by long hash. */
  private readonly heads: Int32Array;
  private readonly headsLong: Int32Array;
  private readonly shift: number;

  constructor(context: string) {
    this.context = context;
    const n = context.length >= ANCHOR_CHARS ? Math.floor((context.length - ANCHOR_CHARS) / STRIDE) + 1 : 0;
    let bits = 4;
    while (1 << bits < n) bits++;
    this.shift = 32 - bits;
    this.hashes = new Int32Array(n);
    this.next = new Int32Array(n);
    this.nextLong = new Int32Array(n).fill(-1);
    this.heads = new Int32Array(1 << bits).fill(-1);
    this.headsLong = new Int32Array(1 << bits).fill(-1);
    // In a plain function on locals: a loop over fields of `this` in a constructor ran ~10 times slower.
    buildChains(context, this.shift, this.hashes, this.next, this.heads, this.nextLong, this.headsLong);
  }

  private bucket(h: number): number {
    return bucketOf(h, this.shift);
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
      if (this.occurs(text, j, h)) {
        // A copy through here has its anchor on the true place within the next STRIDE
        // positions. Long matches first (their places are few, even where 16 characters repeat
        // thousands of times); the short anchors' places only when there is none.
        let at = this.bestOver(text, j, h, LONG_CHARS, floor, expected, m, look);
        if (m.pos < 0) {
          at = this.bestOver(text, j, h, ANCHOR_CHARS, floor, expected, m, look);
          // A short match may be the start of a long copy whose anchor on its true place lies
          // beyond the STRIDE positions looked at (the text reached this place early, by a
          // stretch that also occurs elsewhere): the long copy wins.
          const end = at - m.left + m.len;
          if (m.len >= MIN_SPAN_CHARS && m.len < LONG_CHARS + STRIDE - 1) {
            for (let q = j + STRIDE; q < end && q + LONG_CHARS <= n; q++) {
              look.len = 0;
              look.pos = -1;
              if (this.scan(text, q, this.headsLong[this.bucket(longHashAt(text, q))]!, this.nextLong, LONG_CHARS, floor, expected, look)) {
                Object.assign(m, look);
                at = q;
                break;
              }
            }
          }
        }
        if (m.len >= MIN_SPAN_CHARS) {
          const start = at - m.left;
          out.push({ textStart: start, textEnd: start + m.len, contextStart: m.pos - m.left });
          expected = m.pos - m.left + m.len;
          floor = j = start + m.len;
          if (j + ANCHOR_CHARS <= n) h = hashAt(text, j);
          continue;
        }
      }
      if (j + ANCHOR_CHARS < n) h = roll(h, text, j);
      j++;
    }
    return out;
  }

  /** Whether the ANCHOR_CHARS characters of the text at `j` (hashing to `h`) are an anchor of the context. */
  private occurs(text: string, j: number, h: number): boolean {
    const ctx = this.context;
    for (let a = this.heads[this.bucket(h)]!; a !== -1; a = this.next[a]!) {
      if (this.hashes[a] !== h) continue;
      const p = a * STRIDE;
      let k = 0;
      while (k < ANCHOR_CHARS && text.charCodeAt(j + k) === ctx.charCodeAt(p + k)) k++;
      if (k === ANCHOR_CHARS) return true;
    }
    return false;
  }

  /**
   * The best match (into `m`) among positions j … j + STRIDE - 1 of the text, by the places
   * that agree on `need` characters (LONG_CHARS: the long hashes; else the anchors); returns
   * the text position it was found at.
   */
  private bestOver(text: string, j: number, h: number, need: number, floor: number, expected: number, m: Match, look: Match): number {
    m.len = 0;
    m.pos = -1;
    let at = j;
    let hh = h;
    for (let d = 0; d < STRIDE && j + d + need <= text.length; d++) {
      if (d > 0) hh = roll(hh, text, j + d - 1);
      look.len = 0;
      look.pos = -1;
      if (need === LONG_CHARS)
        this.scan(text, j + d, this.headsLong[this.bucket(longHashAt(text, j + d))]!, this.nextLong, LONG_CHARS, floor, expected, look);
      else this.scan(text, j + d, this.heads[this.bucket(hh)]!, this.next, ANCHOR_CHARS, floor, expected, look);
      if (look.pos >= 0 && better(look.len, look.pos - look.left, m, expected)) {
        Object.assign(m, look);
        at = j + d;
      }
    }
    return at;
  }

  /** Tries the places of one bucket chain that match at least `need` characters from `j`; true when one did. */
  private scan(text: string, j: number, first: number, next: Int32Array, need: number, floor: number, expected: number, m: Match): boolean {
    const ctx = this.context;
    let tried = 0;
    for (let a = first; a !== -1 && tried < MAX_CANDIDATES; a = next[a]!) {
      const p = a * STRIDE;
      // A cheap look at the first character skips most bucket-mates without a call.
      if (text.charCodeAt(j) !== ctx.charCodeAt(p)) continue;
      tried++;
      const right = matchRight(text, j, ctx, p);
      if (right < need) continue; // a hash collision
      let left = 0;
      while (j - left - 1 >= floor && p - left - 1 >= 0 && text.charCodeAt(j - left - 1) === ctx.charCodeAt(p - left - 1)) left++;
      if (better(left + right, p - left, m, expected)) {
        m.len = left + right;
        m.left = left;
        m.pos = p;
      }
    }
    return m.pos >= 0;
  }
}

interface Match {
  len: number;
  left: number;
  pos: number;
}

/** Whether a match of `len` starting at context position `start` beats `b`: longer first; on a tie the one continuing the previous copy, then the earlier. */
function better(len: number, start: number, b: Match, expected: number): boolean {
  if (b.pos < 0 || len !== b.len) return len > b.len;
  const bs = b.pos - b.left;
  if (bs === expected) return false;
  return start === expected || start < bs;
}

/** The hash of the window one character to the right of the one at `j`. */
function roll(h: number, text: string, j: number): number {
  return (Math.imul(h - Math.imul(text.charCodeAt(j), BASE_OUT), BASE) + text.charCodeAt(j + ANCHOR_CHARS)) | 0;
}
