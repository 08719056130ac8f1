// Shortens the long strings inside a reference log line's `locals` before the line is parsed.
// The reference logs every variable after every block, context included (65% of the bytes
// of a needle-search log are two copies of its context per block), and the import keeps only
// the first LOCAL_CHARS characters of each (rlm-python-import.ts), so parsing the rest is
// wasted. Each `"locals": {` is found with a native search, and only the tokens inside it are
// walked (a string's end with a native search too). The shortening is exact for the lines
// the reference writes: the events are the same as from the whole line, because
// - a value keeps a prefix of LOCAL_CHARS + 2 UTF-16 units (an escape is one unit), more than
//   the LOCAL_CHARS + 1 the import ever reads of a string it cuts, and it is cut only when it
//   is longer than that;
// - a value starting with `<` is left whole (the import drops `<module 'x' …>`-like reprs by
//   their last character);
// - keys, and everything outside `locals`, are never touched.
// A line that is not valid JSON may become valid when its bad part is cut away, so such a
// line can be read where a whole parse would have refused it (the reference never writes one).

/** Characters of a variable's value the import keeps from `locals` (see rlm-python-import.ts). */
export const LOCAL_CHARS = 200;
/** Shorter strings are left whole (a cut saves little). */
const MIN_CHARS = 512;
/** UTF-16 units kept: more than the LOCAL_CHARS + 1 the import reads of a string it cuts. */
const PREFIX_UNITS = LOCAL_CHARS + 2;
/** How the reference writes the key (json.dumps' default separators). */
const LOCALS_KEY = '"locals": {';

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;
const LT = 60;

/** `text` with the long values inside every `locals` object cut (itself when there are none). */
export function shortenLocals(text: string): string {
  let at = text.indexOf(LOCALS_KEY);
  if (at < 0) return text;
  const parts: string[] = [];
  let copied = 0;
  while (at >= 0) {
    // The key's quote is unescaped, so it is a key at some depth, not text inside a string.
    let p = at + LOCALS_KEY.length;
    let depth = 1;
    while (depth > 0) {
      const c = text.charCodeAt(p);
      if (Number.isNaN(c)) return text;
      if (c === QUOTE) {
        const close = stringEnd(text, p);
        if (close < 0) return text;
        let after = close + 1;
        while (isSpace(text.charCodeAt(after))) after++;
        if (text.charCodeAt(after) !== COLON && close - p + 1 >= MIN_CHARS && text.charCodeAt(p + 1) !== LT) {
          const end = prefixEnd(text, p, close);
          if (end > 0) {
            parts.push(text.slice(copied, end), '"');
            copied = close + 1;
          }
        }
        p = close + 1;
      } else {
        if (c === 123 || c === 91) depth++;
        else if (c === 125 || c === 93) depth--;
        p++;
      }
    }
    at = text.indexOf(LOCALS_KEY, p);
  }
  if (copied === 0) return text;
  parts.push(text.slice(copied));
  return parts.join('');
}

/** The index of the quote that closes the string opening at `open`, or -1. */
function stringEnd(text: string, open: number): number {
  let k = open + 1;
  for (;;) {
    k = text.indexOf('"', k);
    if (k < 0) return -1;
    let bs = 0;
    while (text.charCodeAt(k - 1 - bs) === BACKSLASH) bs++;
    if ((bs & 1) === 0) return k;
    k++;
  }
}

/** Where the kept prefix of the string token text[open..close] ends (a whole escape), or -1 if it is not longer. */
function prefixEnd(text: string, open: number, close: number): number {
  let j = open + 1;
  for (let units = 0; units < PREFIX_UNITS && j < close; units++) {
    j += text.charCodeAt(j) === BACKSLASH ? (text.charCodeAt(j + 1) === 117 ? 6 : 2) : 1;
  }
  return j < close ? j : -1;
}

const isSpace = (c: number): boolean => c === 32 || c === 9 || c === 13 || c === 10;
