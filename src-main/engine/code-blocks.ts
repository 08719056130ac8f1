// Finding the code a reply asks to run, and the paper-era FINAL(...) / FINAL_VAR(...) signals.

/**
 * Bodies of ```repl fenced blocks, in order. Ours: only the lowercase `repl` tag, the tag line
 * holds nothing else, the closing fence starts a line and ends it, and an empty block is an
 * empty body. As the reference's `strip()`, blanks around the body go, so an indented body
 * keeps the indentation of all but its first line. With 'reference' rules, the reference's own
 * pattern: a fence may open mid-line, and the closing one is any "\n```" (text may follow it
 * on its line; an empty block swallows text up to the next fence).
 */
export function findReplBlocks(text: string, rules: 'rlm-studio' | 'reference' = 'rlm-studio'): string[] {
  if (rules === 'reference') return [...text.matchAll(REFERENCE_FENCE)].map((m) => pyStrip(m[1] ?? ''));
  const blocks: string[] = [];
  const fence = /^```repl[ \t]*\r?\n([\s\S]*?)^```[ \t]*$/gm;
  for (const m of text.matchAll(fence)) {
    blocks.push((m[1] ?? '').replace(/\r?\n$/, '').trim());
  }
  return blocks;
}

/**
 * True when the reply's last ```repl fence opens a block that never closes: what a reply cut
 * by the output-token cap inside a block looks like. That block is not among `findReplBlocks`.
 */
export function hasUnclosedReplFence(text: string): boolean {
  let open: string | null = null; // the tag of the block open at this point
  for (const f of text.matchAll(/^```(\w*)[ \t]*$/gm)) {
    const tag = f[1] ?? '';
    if (open === null) open = tag;
    else if (tag === '') open = null; // only a bare fence closes, as findReplBlocks reads it
  }
  return open === 'repl';
}

export type FinalSignal = { kind: 'final'; answer: string } | { kind: 'final_var'; name: string };

/**
 * Python's `\s` (and what `str.strip()` removes): it has \x1c-\x1f and \x85, which JavaScript's
 * `\s` lacks, and lacks \ufeff, which JavaScript's has.
 */
const PY_SPACE = '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
// Python's multiline `^` and `$` know only "\n" as a line end; JavaScript's also \r, \u2028, \u2029.
const LINE_START = '(?<![^\\n])';
const LINE_END = '(?![^\\n])';
const FINAL_VAR_PATTERN = new RegExp(`${LINE_START}[${PY_SPACE}]*FINAL_VAR\\(([\\s\\S]*?)\\)`);
const FINAL_PATTERN = new RegExp(`${LINE_START}[${PY_SPACE}]*FINAL\\(([\\s\\S]*)\\)[${PY_SPACE}]*${LINE_END}`);
const PY_STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'g');
/** The reference's `` ```repl\s*\n(.*?)\n``` `` with DOTALL, `\s` as Python's. */
const REFERENCE_FENCE = new RegExp(`\`\`\`repl[${PY_SPACE}]*\\n([\\s\\S]*?)\\n\`\`\``, 'g');

/**
 * The paper-era end signal written in a reply, as the paper-era reference's
 * `find_final_answer` read it: anywhere in the reply, code blocks included, at the start of a
 * line (after any indentation). `FINAL_VAR(...)` is looked for first; when present it is the
 * signal even if its name turns out not to exist. `FINAL(...)` takes everything up to the last
 * ")" that ends a line, so answers with parentheses (or several lines) stay whole. Lines and
 * blanks are Python's, so odd line ends and spaces are read as the reference read them.
 */
export function findFinalSignal(text: string): FinalSignal | null {
  const v = FINAL_VAR_PATTERN.exec(text);
  if (v) return { kind: 'final_var', name: stripName(v[1] ?? '') };
  const f = FINAL_PATTERN.exec(text);
  if (f) return { kind: 'final', answer: pyStrip(f[1] ?? '') };
  return null;
}

function pyStrip(text: string): string {
  return text.replace(PY_STRIP, '');
}

/** A FINAL_VAR argument as a variable name: the reference strips blanks, then double, then single quotes. */
function stripName(raw: string): string {
  return pyStrip(raw)
    .replace(/^"+|"+$/g, '')
    .replace(/^'+|'+$/g, '');
}
