import type { ContextMeta } from '../../src-shared/events.ts';
import type { SandboxValue } from '../sandbox/types.ts';

function chunkLength(v: SandboxValue): number {
  return typeof v === 'string' ? v.length : (JSON.stringify(v)?.length ?? 0);
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

/** Type, total characters and per-chunk lengths of a context, as the model is told. */
export function describeContext(value: SandboxValue): ContextMeta {
  const known = typeof value === 'object' && value !== null ? described.get(value) : undefined;
  if (known) return known;
  let chunkLengths: number[];
  let type: ContextMeta['type'];
  if (typeof value === 'string') {
    type = 'string';
    chunkLengths = [value.length];
  } else if (Array.isArray(value)) {
    type = 'array';
    chunkLengths = value.map(chunkLength);
  } else if (value !== null && typeof value === 'object') {
    type = 'object';
    chunkLengths = Object.values(value).map(chunkLength);
  } else {
    type = 'string';
    chunkLengths = [String(value).length];
  }
  return { type, totalChars: chunkLengths.reduce((a, b) => a + b, 0), chunkLengths };
}
