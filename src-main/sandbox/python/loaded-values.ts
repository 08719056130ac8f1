// What a Python REPL loads into every interpreter it starts: its contexts (`context_N`), its
// histories (`history_N`) and, under compaction, each `appendHistory` call in turn. Kept here,
// with the memory each takes, so that a fresh interpreter (after a limit, a crash or a
// replacement) gets all of them again in the order they first loaded. Both Python REPLs keep
// theirs here; each supplies only how a value crosses into its interpreter.
import { jsonTextOf } from '../json-source.ts';
import type { SandboxValue } from '../types.ts';

/** One value as an interpreter loads it, named as the code sees it. */
export type LoadedValue =
  /** Text, or JSON text that Python parses (`json` true). */
  | { kind: 'context'; name: string; index: number; json: boolean; text: string }
  /** A history's messages as JSON, set as `history_{index}`. */
  | { kind: 'history'; name: string; index: number; json: string }
  /** One `appendHistory` call's messages as JSON, added to compaction's `history`. */
  | { kind: 'append'; name: 'history'; json: string };

interface Kept<V> {
  value: V;
  /** Room the value needs in the interpreter's memory beyond its own. */
  bytes: number;
}

export type LoadedContext = Extract<LoadedValue, { kind: 'context' }>;
type History = Extract<LoadedValue, { kind: 'history' | 'append' }>;

export class LoadedValues {
  readonly #contexts = new Map<number, Kept<LoadedContext>>();
  readonly #histories = new Map<number, Kept<History>>();
  readonly #appends: Kept<History>[] = [];

  /** Keeps context `index` (replacing one of that index); the value to load now. */
  addContext(index: number, value: SandboxValue): LoadedValue {
    const json = typeof value !== 'string';
    // A parsed file's own text when there is one: Python's json keeps what JavaScript's numbers lost.
    const text = json ? jsonTextOf(value) : value;
    const context: LoadedContext = { kind: 'context', name: `context_${index}`, index, json, text };
    // Reading a text context holds the bytes sent, the bytes read and the str at once; parsed
    // JSON takes several times its text in Python objects.
    this.#contexts.set(index, { value: context, bytes: Buffer.byteLength(text, 'utf8') * (json ? 8 : 4) });
    return context;
  }

  /** Keeps history `index` (replacing one of that index); the value to load now. */
  addHistory(index: number, messages: SandboxValue): LoadedValue {
    const history = { kind: 'history', name: `history_${index}`, index, json: JSON.stringify(messages) } as const;
    this.#histories.set(index, { value: history, bytes: history.json.length * 8 });
    return history;
  }

  /** Keeps one more `appendHistory` call; the value to load now. */
  appendHistory(messages: SandboxValue[]): LoadedValue {
    const append = { kind: 'append', name: 'history', json: JSON.stringify(messages) } as const;
    this.#appends.push({ value: append, bytes: append.json.length * 8 });
    return append;
  }

  /** Room every kept value needs in an interpreter's memory, beyond the interpreter's own. */
  roomBytes(): number {
    let bytes = 0;
    for (const kept of [...this.#contexts.values(), ...this.#histories.values(), ...this.#appends]) bytes += kept.bytes;
    return bytes;
  }

  /** Every kept value in the order a fresh interpreter loads them: contexts and histories by index, then the appends in turn. */
  all(): LoadedValue[] {
    return [...byIndex(this.#contexts), ...byIndex(this.#histories), ...this.#appends.map((kept) => kept.value)];
  }

  clear(): void {
    this.#contexts.clear();
    this.#histories.clear();
    this.#appends.length = 0;
  }
}

function byIndex<V>(map: Map<number, Kept<V>>): V[] {
  return [...map.keys()].sort((x, y) => x - y).map((index) => map.get(index)!.value);
}
