// Strings whose characters are copied once, into isolated-vm external copies, and shared from
// there by the host and every isolate. A context larger than V8's longest string arrives as ~1 GB
// of them: a second full copy (host strings, then the isolate's) is what made it slow to load.
import ivm from 'isolated-vm';

interface Shared {
  strings: readonly string[];
  copies: readonly ivm.ExternalCopy<string>[];
}

const sharedOf = new WeakMap<readonly string[], Shared>();

/**
 * Collects strings into external copies, one at a time, so that the text they were made from
 * can go as soon as each is added.
 */
export class SharedStringsBuilder {
  readonly #copies: ivm.ExternalCopy<string>[] = [];

  add(text: string): void {
    this.#copies.push(new ivm.ExternalCopy(text));
  }

  /**
   * The host's array of the strings. Each is an external string over its copy's bytes (no
   * second copy), and loading the array into a REPL hands the isolate the same bytes.
   */
  finish(): string[] {
    const copies = [...this.#copies];
    const strings = copies.map((c) => c.copy());
    sharedOf.set(strings, { strings: [...strings], copies });
    return strings;
  }
}

/**
 * The external copies behind `value` when it is an array `SharedStringsBuilder` made and still
 * holds the same strings (an element compared by identity first, so unchanged arrays cost
 * nothing to check); otherwise undefined and the caller copies as usual.
 */
export function sharedCopies(value: unknown): readonly ivm.ExternalCopy<string>[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const shared = sharedOf.get(value);
  if (!shared || value.length !== shared.strings.length) return undefined;
  for (let i = 0; i < value.length; i++) if (value[i] !== shared.strings[i]) return undefined;
  return shared.copies;
}
