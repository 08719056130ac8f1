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
 * The paper-era end signal written in the reply text (outside code): `FINAL_VAR(name)` is
 * checked first, then `FINAL(answer)`, each at the start of a line.
 */
export function findFinalSignal(text: string): FinalSignal | null {
  const withoutCode = text.replace(/^```[\s\S]*?^```[ \t]*$/gm, '');
  const v = /^\s*FINAL_VAR\(\s*["'`]?([A-Za-z_$][\w$]*)["'`]?\s*\)/m.exec(withoutCode);
  if (v?.[1]) return { kind: 'final_var', name: v[1] };
  const f = /^\s*FINAL\(([\s\S]*)\)\s*$/m.exec(withoutCode);
  if (f && f[1] !== undefined) {
    // Greedy to the last ")" of the signal's own line, as models wrap answers containing parens.
    const line = f[0].trim();
    const inner = line.slice(line.indexOf('(') + 1, line.lastIndexOf(')'));
    return { kind: 'final', answer: inner.trim() };
  }
  return null;
}
