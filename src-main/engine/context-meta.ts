import type { ContextMeta } from '../../src-shared/events.ts';
import type { SandboxValue } from '../sandbox/types.ts';

function chunkLength(v: SandboxValue): number {
  return typeof v === 'string' ? v.length : (JSON.stringify(v)?.length ?? 0);
}

/** Type, total characters and per-chunk lengths of a context, as the model is told. */
export function describeContext(value: SandboxValue): ContextMeta {
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
