// Whether a context file is the one a log was made from, as far as the log can tell: its
// type, and its size where the log's description of it can be recomputed exactly.
import type { ContextMeta } from '../../src-shared/events.ts';
import { describeContext } from '../engine/context-meta.ts';
import type { SandboxValue } from '../sandbox/types.ts';
import type { ComparisonTerms } from './compare.ts';

const PYTHON_TYPE: Record<ContextMeta['type'], string> = { string: 'str', array: 'list', object: 'dict' };
const JS_TYPE: Record<ContextMeta['type'], string> = { string: 'string', array: 'array', object: 'object' };

/** Python's `len` of a string: code points, not UTF-16 units. */
function codePoints(s: string): number {
  let surrogates = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) surrogates++;
  }
  return s.length - surrogates;
}

function typeOf(value: SandboxValue): ContextMeta['type'] {
  return describeContext(value).type;
}

/**
 * The reference's character count (RLM-SPEC §4.2) where it is the plain length of strings:
 * a str, or a list or dict whose items are all strings; null where it depends on Python's JSON.
 */
function referenceChars(value: SandboxValue): number | null {
  if (typeof value === 'string') return codePoints(value);
  const items = Array.isArray(value) ? value : value !== null && typeof value === 'object' ? Object.values(value) : null;
  if (items === null || !items.every((x): x is string => typeof x === 'string')) return null;
  return items.reduce((n, s) => n + codePoints(s), 0);
}

/** Null when the context fits the log's description of it; else what does not fit, in words. */
export function contextMismatch(recorded: ContextMeta, value: SandboxValue, terms: ComparisonTerms): string | null {
  // An imported log whose metadata message could not be read says nothing of its context.
  if (recorded.totalChars === 0 && recorded.chunkLengths.length === 0) return null;
  const names = terms === 'native' ? JS_TYPE : PYTHON_TYPE;
  const type = typeOf(value);
  if (type !== recorded.type) return `the log's context is a ${names[recorded.type]}, this file gives a ${names[type]}`;
  const chars = terms === 'native' ? describeContext(value).totalChars : referenceChars(value);
  if (chars !== null && chars !== recorded.totalChars) {
    return `the log's context is a ${names[recorded.type]} of ${recorded.totalChars.toLocaleString('en-US')} characters, this file gives ${chars.toLocaleString('en-US')}`;
  }
  return null;
}
