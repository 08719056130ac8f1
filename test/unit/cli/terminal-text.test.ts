import { describe, expect, it } from 'vitest';
import { forTerminal, textFor } from '../../../src-main/cli/terminal-text.ts';

const ESC = '\u001b';
const BEL = '\u0007';

describe('forTerminal: a model’s text without what a terminal would obey', () => {
  it.each([
    ['OSC 0/2 window title (BEL)', `${ESC}]0;pwned${BEL}answer`, 'answer'],
    ['OSC 2 title (ST)', `${ESC}]2;pwned${ESC}\\answer`, 'answer'],
    ['OSC 8 link keeps its visible text', `see ${ESC}]8;;https://evil.example/${ESC}\\docs${ESC}]8;;${ESC}\\ now`, 'see docs now'],
    ['OSC 52 clipboard', `${ESC}]52;c;cm0gLXJmIH4=${BEL}ok`, 'ok'],
    ['CSI colour, cursor moves and erase', `${ESC}[31mred${ESC}[0m ${ESC}[2J${ESC}[1;1H${ESC}[?25lx`, 'red x'],
    ['C1 CSI and OSC', `\u009b31mred \u009d0;t\u0007x`, 'red x'],
    ['carriage return, backspace, bell, DEL', `secret\rshown\b!${BEL}\u007f`, 'secretshown!'],
    ['charset and keypad escapes', `${ESC}(0q${ESC}=z${ESC}c`, 'qz'],
    ['an unterminated OSC drops only its introducer', `${ESC}]0;rest of the answer`, '0;rest of the answer'],
  ])('%s', (_, input, shown) => {
    expect(forTerminal(input)).toBe(shown);
  });

  it('keeps newlines, tabs and any printable text (Unicode included) as they are', () => {
    const text = 'line 1\n\tline 2 — ünïcødé 漢字 😀\r\nend';
    expect(forTerminal(text)).toBe('line 1\n\tline 2 — ünïcødé 漢字 😀\nend');
    expect(forTerminal('plain')).toBe('plain');
  });

  it('only for a terminal: a pipe gets the text exactly', () => {
    const text = `${ESC}]0;t${BEL}a`;
    expect(textFor({ isTTY: true }, text)).toBe('a');
    expect(textFor({ isTTY: false }, text)).toBe(text);
    expect(textFor({}, text)).toBe(text);
  });
});
