// Finding where a string ends in JSON text, for scanners that look at the text between strings
// (codecs/python-json.ts quotes bare NaN outside them; the sandbox finds an object member's text):
// a quote preceded by an odd run of backslashes is escaped, any other ends the string.

/** The index just after the string whose opening quote is at `at`; `text.length` if it never closes. */
export function jsonStringEnd(text: string, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return text.length;
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}
