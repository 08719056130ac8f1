// Seeded randomness and filler prose: the raw material of the demo's contexts and the
// evaluation tasks, the same for the same seed on every machine.

/** A small seeded PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['alpha', 'river', 'stone', 'lantern', 'quiet', 'harbor', 'copper', 'meadow', 'signal', 'orbit', 'willow', 'ember'];

export function filler(rand: () => number, chars: number): string {
  const parts: string[] = [];
  let n = 0;
  while (n < chars) {
    const sentence = `${Array.from({ length: 6 + Math.floor(rand() * 8) }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ')}.`;
    parts.push(sentence);
    n += sentence.length + 1;
  }
  return parts.join(rand() < 0.5 ? ' ' : '\n').slice(0, chars);
}
