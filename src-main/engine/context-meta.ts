import type { ContextMeta } from '../../src-shared/events.ts';
import type { SandboxValue } from '../sandbox/types.ts';

/** Whose rules count the lengths: ours (UTF-16 units, `JSON.stringify`) or the reference library's. */
export type LengthRules = 'rlm-studio' | 'reference';

function chunkLength(v: SandboxValue): number {
  return typeof v === 'string' ? v.length : (JSON.stringify(v)?.length ?? 0);
}

/** Python's `len` of a string: code points. */
function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Characters of a JSON string literal as Python's `json.dumps` writes it (ASCII only, escapes). */
function pyStringLength(s: string): number {
  let n = 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22 || c === 0x5c || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x08 || c === 0x0c) n += 2;
    else if (c >= 0x20 && c <= 0x7e) n += 1;
    else n += 6; // \uXXXX, each UTF-16 unit (a pair for a character outside the BMP)
  }
  return n;
}

/** `len(json.dumps(value))` with Python's defaults: `", "` and `": "` separators, ASCII escapes. */
export function pyJsonLength(v: unknown): number {
  if (v === null || v === undefined) return 4;
  if (typeof v === 'string') return pyStringLength(v);
  if (typeof v === 'boolean') return v ? 4 : 5;
  if (typeof v === 'number') return Number.isFinite(v) ? String(v).length : v > 0 ? 8 : v < 0 ? 9 : 3;
  if (Array.isArray(v)) return v.length === 0 ? 2 : 2 + v.reduce((a: number, x) => a + pyJsonLength(x), 0) + 2 * (v.length - 1);
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 0) return 2;
    return 2 + entries.reduce((a, [k, x]) => a + pyStringLength(k) + 2 + pyJsonLength(x), 0) + 2 * (entries.length - 1);
  }
  return String(v).length;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A chunk's length as the reference's `len(...)` of it: code points, an array's items, else its text. */
function pyLen(v: unknown): number {
  if (typeof v === 'string') return codePoints(v);
  if (Array.isArray(v)) return v.length;
  if (isPlainObject(v)) return Object.keys(v).length;
  return String(v).length;
}

/**
 * The reference's per-chunk lengths: a dict's values (a string's code points, else the length
 * of its `json.dumps`); a list of dicts with `content` by that content, other dicts by their
 * `json.dumps`, anything else by `len`; an empty list is one chunk of 0.
 */
function referenceChunkLengths(value: unknown[] | Record<string, unknown>): number[] {
  if (!Array.isArray(value)) return Object.values(value).map((v) => (typeof v === 'string' ? codePoints(v) : pyJsonLength(v)));
  if (value.length === 0) return [0];
  const first: unknown = value[0];
  if (isPlainObject(first)) {
    if ('content' in first) {
      return value.map((item) => {
        const c = isPlainObject(item) ? item.content : undefined;
        return typeof c === 'string' ? codePoints(c) : c === undefined ? 0 : pyJsonLength(c);
      });
    }
    return value.map(pyJsonLength);
  }
  return value.map(pyLen);
}

const described = new WeakMap<object, ContextMeta>();

/**
 * A stand-in for a context this process never holds, only describes: the sandbox process reads
 * it from its file (engine/sandbox-process), and only REPLs there can be given it (by identity).
 */
export function describedContext(meta: ContextMeta): SandboxValue {
  const stand = Object.freeze({});
  described.set(stand, meta);
  return stand;
}

/**
 * Type, total characters and per-chunk lengths of a context, as the model is told: by our
 * rules, or the reference library's (`QueryMetadata`). A context described from its file keeps
 * the lengths it was described with.
 */
export function describeContext(value: SandboxValue, rules: LengthRules = 'rlm-studio'): ContextMeta {
  const known = typeof value === 'object' && value !== null ? described.get(value) : undefined;
  if (known) return known;
  let chunkLengths: number[];
  let type: ContextMeta['type'];
  const reference = rules === 'reference';
  if (typeof value === 'string') {
    type = 'string';
    chunkLengths = [reference ? codePoints(value) : value.length];
  } else if (Array.isArray(value)) {
    type = 'array';
    chunkLengths = reference ? referenceChunkLengths(value) : value.map(chunkLength);
  } else if (value !== null && typeof value === 'object') {
    type = 'object';
    chunkLengths = reference ? referenceChunkLengths(value) : Object.values(value).map(chunkLength);
  } else {
    type = 'string';
    chunkLengths = [String(value).length];
  }
  return { type, totalChars: chunkLengths.reduce((a, b) => a + b, 0), chunkLengths };
}
