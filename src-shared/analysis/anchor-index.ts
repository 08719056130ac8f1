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
// (about 1.4 bytes per context character at these settings).

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
/** BASE^4 mod 2^32: four characters' worth of the polynomial. */
const BASE4 = Math.imul(Math.imul(BASE, BASE), Math.imul(BASE, BASE));

/**
 * The polynomial hash of the ANCHOR_CHARS characters at `at`: sum of c[i] * BASE^(15 - i) mod 2^32,
 * the value `roll` keeps. Four quarters of four characters, then combined: the same value as one
 * Horner loop over sixteen characters (arithmetic mod 2^32 is a ring), but the quarters do not
 * wait on each other: the index build's hashing (every character of the context) took about a
 * quarter less CPU.
 */
function hashAt(s: string, at: number): number {
  const q0 = quarter(s, at);
  const q1 = quarter(s, at + 4);
  const q2 = quarter(s, at + 8);
  const q3 = quarter(s, at + 12);
  return (Math.imul((Math.imul((Math.imul(q0, BASE4) + q1) | 0, BASE4) + q2) | 0, BASE4) + q3) | 0;
}

function quarter(s: string, at: number): number {
  const a = (Math.imul(s.charCodeAt(at), BASE) + s.charCodeAt(at + 1)) | 0;
  return (Math.imul((Math.imul(a, BASE) + s.charCodeAt(at + 2)) | 0, BASE) + s.charCodeAt(at + 3)) | 0;
}

const MIX = 0x2c1b3c6d;
/** The long hash from LONG_ANCHORS consecutive anchor hashes. */
function mixHashes(h0: number, h1: number, h2: number, h3: number): number {
  return (Math.imul((Math.imul((Math.imul(h0, MIX) + h1) | 0, MIX) + h2) | 0, MIX) + h3) | 0;
}

function longHashAt(s: string, at: number): number {
  return mixHashes(hashAt(s, at), hashAt(s, at + ANCHOR_CHARS), hashAt(s, at + 2 * ANCHOR_CHARS), hashAt(s, at + 3 * ANCHOR_CHARS));
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

/**
 * Bucket bits for `n` anchors: about one bucket per anchor, at most `maxBits`. Building a chain
 * table is bound by random access to its heads: 2^23 heads (32 MB at 100 MB of context) fall
 * out of the caches and the TLB, 2^20 (4 MB) build about five times faster. The long chains
 * take the cap (they are walked only where the short ones found a place, so a few more links
 * per bucket cost little); the short ones do not (every position of a text that copies nothing
 * walks one, measured 5 times slower at the cap).
 */
function bucketBits(n: number, maxBits: number): number {
  let bits = 4;
  while (bits < maxBits && 1 << bits < n) bits++;
  return bits;
}
const LONG_MAX_BITS = 20;

/**
 * Hash chains over the anchors: `heads[bucket]` is the bucket's first anchor (lowest position)
 * or -1; `links[2a]` the next anchor of a's bucket, `links[2a + 1]` a's hash, so walking a
 * chain and skipping other hashes reads one place per link.
 */
interface Chains {
  heads: Int32Array;
  links: Int32Array;
  shift: number;
}

/** Links are left as allocated: buildChains writes every one it links (a fill of 50 MB per table at 100 MB of context saved). */
function newChains(n: number, bits: number): Chains {
  return { heads: new Int32Array(1 << bits).fill(-1), links: new Int32Array(2 * n), shift: 32 - bits };
}

/**
 * Hashes every anchor and links it into both chains, from the last so that chains run in
 * context order. The long hash of anchor i mixes the hashes of anchors i … i + 3 (they tile
 * the text, STRIDE being ANCHOR_CHARS): no character is read twice. Three passes, each with
 * one pattern of memory access (measured faster than one mixed loop).
 */
function buildChains(context: string, n: number, short: Chains, long: Chains): void {
  const { heads, links, shift } = short;
  const { heads: headsLong, links: linksLong, shift: shiftLong } = long;
  for (let i = 0; i < n; i++) links[2 * i + 1] = hashAt(context, i * STRIDE);
  for (let i = n - 1; i >= 0; i--) {
    const b = bucketOf(links[2 * i + 1]!, shift);
    links[2 * i] = heads[b]!;
    heads[b] = i;
  }
  for (let i = n - LONG_ANCHORS; i >= 0; i--) {
    const hl = mixHashes(links[2 * i + 1]!, links[2 * i + 3]!, links[2 * i + 5]!, links[2 * i + 7]!);
    const bl = bucketOf(hl, shiftLong);
    linksLong[2 * i] = headsLong[bl]!;
    linksLong[2 * i + 1] = hl;
    headsLong[bl] = i;
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
  /** Anchors by their own hash (ANCHOR_CHARS characters). */
  private readonly short: Chains;
  /** Anchors by the hash of the LONG_CHARS characters from them (none for the last LONG_ANCHORS - 1). */
  private readonly long: Chains;

  constructor(context: string) {
    this.context = context;
    const n = context.length >= ANCHOR_CHARS ? Math.floor((context.length - ANCHOR_CHARS) / STRIDE) + 1 : 0;
    this.short = newChains(n, bucketBits(n, 31));
    this.long = newChains(n, bucketBits(n, LONG_MAX_BITS));
    // In a plain function on locals: a loop over fields of `this` in a constructor ran ~10 times slower.
    buildChains(context, n, this.short, this.long);
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
              if (this.scan(text, q, longHashAt(text, q), this.long, LONG_CHARS, floor, expected, look)) {
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
    const { heads, links, shift } = this.short;
    for (let a = heads[bucketOf(h, shift)]!; a !== -1; a = links[2 * a]!) {
      if (links[2 * a + 1] !== h) continue;
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
      if (need === LONG_CHARS) this.scan(text, j + d, longHashAt(text, j + d), this.long, LONG_CHARS, floor, expected, look);
      else this.scan(text, j + d, hh, this.short, ANCHOR_CHARS, floor, expected, look);
      if (look.pos >= 0 && better(look.len, look.pos - look.left, m, expected)) {
        Object.assign(m, look);
        at = j + d;
      }
    }
    return at;
  }

  /**
   * Tries the places in `chains` with hash `h` that match at least `need` characters from `j`
   * (the first MAX_CANDIDATES, in context order); true when one did.
   */
  private scan(text: string, j: number, h: number, chains: Chains, need: number, floor: number, expected: number, m: Match): boolean {
    const ctx = this.context;
    const { heads, links, shift } = chains;
    let tried = 0;
    for (let a = heads[bucketOf(h, shift)]!; a !== -1 && tried < MAX_CANDIDATES; a = links[2 * a]!) {
      // Bucket-mates with another hash are skipped without reading the context.
      if (links[2 * a + 1] !== h) continue;
      const p = a * STRIDE;
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
