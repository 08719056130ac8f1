// The JSON text a context value was parsed from. JavaScript keeps every number as a double,
// so `2.0` parses to 2 and integers beyond 2^53 lose digits; Python's `json` keeps both (a
// float, an exact int), as the reference library's REPL does when it loads a JSON context.
// The Python REPL therefore parses a context's own text when there is one, rather than the
// text JavaScript would write back from the value.

import { jsonStringEnd } from '../../src-shared/json-strings.ts';
import type { SandboxValue } from './types.ts';

/** Held only as long as the parsed value is: an object or array, by identity. */
const sources = new WeakMap<object, string>();

/** Parses `text` as a context value and remembers the text it came from. Throws as JSON.parse. */
export function parseJsonContext(text: string): SandboxValue {
  const value = JSON.parse(text) as SandboxValue;
  if (typeof value === 'object' && value !== null) sources.set(value, text);
  return value;
}

/**
 * The text `value` was parsed from by `parseJsonContext`; undefined for values made any other
 * way (a caller's own object) and for a top-level number, string, boolean or null, which have
 * no identity to remember them by.
 */
export function jsonSourceOf(value: SandboxValue): string | undefined {
  return typeof value === 'object' && value !== null ? sources.get(value) : undefined;
}

/** The JSON text of a context value: the text it was parsed from, else JavaScript's. */
export function jsonTextOf(value: SandboxValue): string {
  return jsonSourceOf(value) ?? JSON.stringify(value);
}

/**
 * The text of member `key` of the JSON object `text` (the last one when the key repeats, as
 * JSON.parse keeps the last); undefined when `text` is not an object or has no such member.
 * `text` must be valid JSON (parse it first): this only finds where values start and end.
 */
export function memberTextOf(text: string, key: string): string | undefined {
  let found: string | undefined;
  let i = skipBlanks(text, 0);
  if (text[i] !== '{') return undefined;
  i = skipBlanks(text, i + 1);
  while (text[i] === '"') {
    const keyEnd = jsonStringEnd(text, i);
    const name = JSON.parse(text.slice(i, keyEnd)) as string;
    const start = skipBlanks(text, skipBlanks(text, keyEnd) + 1);
    const end = valueEnd(text, start);
    if (name === key) found = text.slice(start, end);
    i = skipBlanks(text, end);
    if (text[i] === ',') i = skipBlanks(text, i + 1);
  }
  return found;
}

function skipBlanks(text: string, i: number): number {
  while (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r') i++;
  return i;
}

/** The index after the value that starts at `i`. */
function valueEnd(text: string, i: number): number {
  if (text[i] === '"') return jsonStringEnd(text, i);
  if (text[i] !== '{' && text[i] !== '[') {
    let j = i;
    while (j < text.length && !',}] \t\n\r'.includes(text[j] ?? '')) j++;
    return j;
  }
  let depth = 0;
  let j = i;
  while (j < text.length) {
    const c = text[j];
    if (c === '"') {
      j = jsonStringEnd(text, j);
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    j++;
    if (depth === 0) return j;
  }
  return j;
}
