// Building blocks of the JavaScript the scenario policy writes. Templates use String.raw so
// regex backslashes reach the REPL intact; values from the request are interpolated only
// through JSON.stringify (a JS string literal), never spliced in raw.

/** A reply as a model writes it: a sentence of reasoning, then one ```repl block. */
export function replWith(reasoning: string, code: string): string {
  return `${reasoning}\n\n\`\`\`repl\n${code.trim()}\n\`\`\``;
}

export const js = (value: unknown): string => JSON.stringify(value);

/** An expression for the whole context as one string, whatever its shape. */
export const TEXT_EXPR = String.raw`(typeof context === 'string' ? context : Array.isArray(context) ? context.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join('\n') : JSON.stringify(context))`;

/** Turn 1 everywhere: type, size and short samples; never the whole context. */
export function inspectCode(scope: string): string {
  return String.raw`
const kind = Array.isArray(context) ? 'array' : context === null ? 'null' : typeof context;
const text = ${TEXT_EXPR};
print('[${scope}:inspect] type=' + kind + ' chars=' + text.length + (Array.isArray(context) ? ' items=' + context.length : ''));
print('start:', JSON.stringify(text.slice(0, 240)));
const mid = Math.floor(text.length / 2);
print('middle:', JSON.stringify(text.slice(mid, mid + 160)));
`;
}

/** Lines that split a string context into sections: `=== X ===`, markdown headings, `Section 3`… (a pattern both languages read alike). */
export const SECTION_HEADER_PATTERN = String.raw`^(?:={2,}.*|#{1,3} .+|(?:SECTION|Section|CHAPTER|Chapter)\b.*)$`;
/** The same as a JavaScript regex literal, multiline. */
export const SECTION_HEADER_RE = `/${SECTION_HEADER_PATTERN}/gm`;
