// JSON as Python's `json.dump` writes it. By default it writes a float that is not finite as
// the bare words NaN, Infinity and -Infinity, which JSON does not have: the reference library
// logs a variable holding float("nan") that way, and JSON.parse refuses the whole line.
import { jsonStringEnd } from '../json-strings.ts';

/** Parses `text` as JSON, reading Python's NaN, Infinity and -Infinity as the strings "nan", "inf" and "-inf" (their repr). */
export function parsePythonJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (!/NaN|Infinity/.test(text)) throw err;
    try {
      return JSON.parse(quoteNonFinite(text));
    } catch {
      throw err; // the line's own error, not one of the rewritten text
    }
  }
}

const WORDS: [string, string][] = [
  ['-Infinity', '"-inf"'],
  ['Infinity', '"inf"'],
  ['NaN', '"nan"'],
];

/** `text` with each bare NaN, Infinity and -Infinity outside strings replaced by its repr as a string. */
function quoteNonFinite(text: string): string {
  const out: string[] = [];
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22) {
      i = jsonStringEnd(text, i) - 1;
      continue;
    }
    if (ch !== 0x2d && ch !== 0x49 && ch !== 0x4e) continue; // '-', 'I', 'N'
    const hit = WORDS.find(([word]) => text.startsWith(word, i));
    if (!hit) continue;
    out.push(text.slice(from, i), hit[1]);
    i += hit[0].length - 1;
    from = i + 1;
  }
  out.push(text.slice(from));
  return out.join('');
}
