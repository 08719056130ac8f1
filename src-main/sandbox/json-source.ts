// The JSON text a context value was parsed from. JavaScript keeps every number as a double,
// so `2.0` parses to 2 and integers beyond 2^53 lose digits; Python's `json` keeps both (a
// float, an exact int), as the reference library's REPL does when it loads a JSON context.
// The Python REPL therefore parses a context's own text when there is one, rather than the
// text JavaScript would write back from the value.

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
