// Finding the code a reply asks to run, and the paper-era FINAL(...) / FINAL_VAR(...) signals.

/**
 * Bodies of ```repl fenced blocks, in order. Like the reference: only the lowercase `repl`
 * tag, the tag line holds nothing else, and the closing fence starts a line. Unlike the
 * reference, an empty block is an empty body instead of swallowing text up to the next
 * fence, and indentation common to the body is kept as written (JavaScript doesn't care).
 */
export function findReplBlocks(text: string): string[] {
  const blocks: string[] = [];
  const fence = /^```repl[ \t]*\r?\n([\s\S]*?)^```[ \t]*$/gm;
  for (const m of text.matchAll(fence)) {
    blocks.push((m[1] ?? '').replace(/\r?\n$/, '').trim());
  }
  return blocks;
}

export type FinalSignal = { kind: 'final'; answer: string } | { kind: 'final_var'; name: string };

/**
 * The paper-era end signal written in a reply, as the paper-era reference's
 * `find_final_answer` read it: anywhere in the reply, code blocks included, at the start of a
 * line (after any indentation). `FINAL_VAR(...)` is looked for first; when present it is the
 * signal even if its name turns out not to exist. `FINAL(...)` takes everything up to the last
 * ")" that ends a line, so answers with parentheses (or several lines) stay whole.
 */
export function findFinalSignal(text: string): FinalSignal | null {
  const v = /^\s*FINAL_VAR\(([\s\S]*?)\)/m.exec(text);
  if (v) return { kind: 'final_var', name: stripName(v[1] ?? '') };
  const f = /^\s*FINAL\(([\s\S]*)\)\s*$/m.exec(text);
  if (f) return { kind: 'final', answer: (f[1] ?? '').trim() };
  return null;
}

/** A FINAL_VAR argument as a variable name: the reference strips blanks, then double, then single quotes. */
function stripName(raw: string): string {
  return raw
    .trim()
    .replace(/^"+|"+$/g, '')
    .replace(/^'+|'+$/g, '');
}
