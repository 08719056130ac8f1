// Exact scorers. Each returns a score in [0, 1] and whether the answer counts as correct.
import type { Expected, ScorerName } from './types.ts';

export interface Score {
  score: number;
  correct: boolean;
  /** One short line on how the score came about. */
  detail: string;
}

/** Lower case, collapsed whitespace, surrounding quotes and trailing punctuation dropped. */
export function normalizeAnswer(s: string): string {
  return s
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^["'`“”‘’]+|["'`“”‘’.!?;:,]+$/g, '')
    .trim();
}

const asText = (e: Expected): string => (Array.isArray(e) ? e.join('\n') : String(e));

const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;

/**
 * Whether `want` occurs in `text` as a whole token: no letter or digit (any script) just
 * before or after it. Searched with indexOf, not a RegExp built per answer (compiling one
 * with Unicode properties was about 1 ms per scored session).
 */
export function containsToken(text: string, want: string): boolean {
  if (want === '') return false;
  for (let at = text.indexOf(want); at >= 0; at = text.indexOf(want, at + 1)) {
    if (!isLetterOrDigit(codePointBefore(text, at)) && !isLetterOrDigit(text.codePointAt(at + want.length))) return true;
  }
  return false;
}

function codePointBefore(text: string, at: number): number | undefined {
  if (at === 0) return undefined;
  const low = text.charCodeAt(at - 1);
  if (low >= 0xdc00 && low <= 0xdfff && at >= 2) {
    const high = text.charCodeAt(at - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.codePointAt(at - 2);
  }
  return low;
}

const isLetterOrDigit = (cp: number | undefined): boolean => cp !== undefined && LETTER_OR_DIGIT.test(String.fromCodePoint(cp));

/** Unordered numeric pairs written "a,b" (any order inside, duplicates dropped) as "lo,hi". */
export function parsePairs(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/(\d+)\s*,\s*(\d+)/g)) {
    const a = Number(m[1]);
    const b = Number(m[2]);
    if (a === b) continue;
    out.add(a < b ? `${a},${b}` : `${b},${a}`);
  }
  return out;
}

export function scoreAnswer(scorer: ScorerName, expected: Expected, answer: string | null): Score {
  const got = answer ?? '';
  switch (scorer) {
    case 'exact': {
      const ok = normalizeAnswer(got) === normalizeAnswer(asText(expected));
      return { score: ok ? 1 : 0, correct: ok, detail: ok ? 'exact match' : 'no exact match' };
    }
    case 'contains': {
      const ok = containsToken(normalizeAnswer(got), normalizeAnswer(asText(expected)));
      return { score: ok ? 1 : 0, correct: ok, detail: ok ? 'expected value found' : 'expected value not found' };
    }
    case 'numeric': {
      // OOLONG's numeric score: 0.75^|error|, so near misses earn partial credit.
      const want = Number(expected);
      const m = /-?\d[\d,]*(?:\.\d+)?/.exec(got);
      if (!m) return { score: 0, correct: false, detail: 'no number in the answer' };
      const n = Number(m[0].replace(/,/g, ''));
      const err = Math.abs(n - want);
      return { score: 0.75 ** err, correct: err === 0, detail: `answered ${n}, expected ${want}` };
    }
    case 'pairs-f1': {
      const want = parsePairs(asText(expected));
      const have = parsePairs(got);
      let hit = 0;
      for (const p of have) if (want.has(p)) hit++;
      if (want.size === 0 && have.size === 0) return { score: 1, correct: true, detail: 'no pairs expected, none given' };
      const precision = have.size === 0 ? 0 : hit / have.size;
      const recall = want.size === 0 ? 0 : hit / want.size;
      const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
      return {
        score: f1,
        correct: f1 === 1,
        detail: `${hit} of ${want.size} pairs found, ${have.size - hit} wrong (P ${precision.toFixed(3)}, R ${recall.toFixed(3)})`,
      };
    }
  }
}
