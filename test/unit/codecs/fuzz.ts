// Small deterministic helpers for fuzzing readers.
// The same seeded generator the demo contexts use.
export { prng as rng } from '../../../src-main/corpus/seeded-text.ts';

/** Flips `count` random bytes (any value, including newlines and quotes). */
export function flipBytes(text: string, count: number, rand: () => number): string {
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < count; i++) {
    const at = Math.floor(rand() * bytes.length);
    bytes[at] = Math.floor(rand() * 256);
  }
  return new TextDecoder().decode(bytes);
}

/** Splits text into random-sized chunks. */
export function chunks(text: string, rand: () => number, max = 500): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const n = 1 + Math.floor(rand() * max);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}
