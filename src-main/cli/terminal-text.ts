// A model's text shown on a terminal: without the control sequences in it. An answer is
// whatever the model wrote, and a terminal obeys what it is sent: OSC 0/2 retitle the window,
// OSC 8 makes links whose target the text hides, OSC 52 writes the clipboard, CSI moves the
// cursor and erases what was printed before, a carriage return overwrites a line. Output to a
// pipe or a file stays byte for byte what the model wrote (scripts read it exactly).

const ESC = 0x1b;
const BEL = 0x07;
const ST = 0x9c;
const CSI = 0x9b;
/** Introducers of a control string (DCS, SOS, OSC, PM, APC), after ESC and as C1 characters. */
const STRING_AFTER_ESC = new Set(['P', 'X', ']', '^', '_'].map((c) => c.charCodeAt(0)));
const STRING_C1 = new Set([0x90, 0x98, 0x9d, 0x9e, 0x9f]);

/** Where a control string that starts its text at `from` ends (after its BEL or ST), or -1 when it does not. */
function endOfControlString(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BEL || c === ST) return i + 1;
    if (c === ESC && text.charCodeAt(i + 1) === 0x5c) return i + 2;
  }
  return -1;
}

/** Where a CSI sequence whose parameters start at `from` ends (after its final byte). */
function endOfCsi(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c >= 0x40 && c <= 0x7e) return i + 1;
    if (c < 0x20 || c > 0x3f) return i;
    i++;
  }
  return i;
}

/** Where the escape or C1 sequence at `at` ends. */
function endOfSequence(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c !== ESC) {
    if (c === CSI) return endOfCsi(text, at + 1);
    if (STRING_C1.has(c)) {
      const end = endOfControlString(text, at + 1);
      return end === -1 ? at + 1 : end;
    }
    return at + 1;
  }
  const next = text.charCodeAt(at + 1);
  if (next === 0x5b) return endOfCsi(text, at + 2);
  if (STRING_AFTER_ESC.has(next)) {
    // Unterminated: only the introducer goes (a terminal would swallow the rest; shown as text it is harmless).
    const end = endOfControlString(text, at + 2);
    return end === -1 ? at + 2 : end;
  }
  // Other escape sequences: intermediates (0x20–0x2f), then one final character.
  let i = at + 1;
  while (i < text.length && text.charCodeAt(i) >= 0x20 && text.charCodeAt(i) <= 0x2f) i++;
  return i < text.length && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x7e ? i + 1 : i;
}

/** True for a character a terminal acts on rather than shows (newline and tab excepted). */
function isControl(c: number): boolean {
  return (c < 0x20 && c !== 0x0a && c !== 0x09) || (c >= 0x7f && c <= 0x9f);
}

/** `text` without escape sequences and control characters, for a terminal; newlines and tabs kept. */
export function forTerminal(text: string): string {
  let out = '';
  let kept = 0;
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i);
    if (!isControl(c)) {
      i++;
      continue;
    }
    out += text.slice(kept, i);
    i = c === ESC || c >= 0x80 ? endOfSequence(text, i) : i + 1;
    kept = i;
  }
  return kept === 0 ? text : out + text.slice(kept);
}

/** What to write for a model's text to `stream`: cleaned for a terminal, exact otherwise. */
export function textFor(stream: { isTTY?: boolean }, text: string): string {
  return stream.isTTY === true ? forTerminal(text) : text;
}
