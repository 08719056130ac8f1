// Deterministic, seeded contexts for the built-in demo, the tests and the benchmarks.

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

/** A long text with one "magic number" sentence hidden at a seeded position. */
export function needleContext(chars: number, seed: number): { text: string; answer: string } {
  const rand = prng(seed);
  const answer = String(1_000_000 + Math.floor(rand() * 8_999_999));
  const at = Math.floor(chars * (0.2 + 0.6 * rand()));
  const text = `${filler(rand, at)}\nThe magic number is ${answer}.\n${filler(rand, chars - at)}`;
  return { text, answer };
}

const TOPICS = ['shipping delays', 'billing errors', 'login failures', 'slow search', 'mobile crashes', 'data export'];

/** A report made of titled sections, each about one topic, for recursive per-section work. */
export function reportContext(sections: number, charsPerSection: number, seed: number): { text: string; topics: string[] } {
  const rand = prng(seed);
  const topics: string[] = [];
  const parts: string[] = [];
  for (let i = 0; i < sections; i++) {
    const topic = TOPICS[i % TOPICS.length]!;
    topics.push(topic);
    parts.push(`## Section ${i + 1}: ${topic}\nThis section is about ${topic}. ${filler(rand, charsPerSection)}\nKey finding: ${topic} affected ${10 + Math.floor(rand() * 90)} customers.`);
  }
  return { text: parts.join('\n\n'), topics };
}

const LABELS = ['billing', 'bug', 'praise', 'question', 'spam'];

/** Support tickets, one string each ending in `|| label: X`, for counting with batched calls. */
export function ticketsContext(count: number, seed: number): { items: string[]; counts: Record<string, number> } {
  const rand = prng(seed);
  const counts: Record<string, number> = {};
  const items = Array.from({ length: count }, (_, i) => {
    const label = LABELS[Math.floor(rand() * LABELS.length)]!;
    counts[label] = (counts[label] ?? 0) + 1;
    return `Ticket ${i + 1}: ${filler(rand, 60 + Math.floor(rand() * 120))} || label: ${label}`;
  });
  return { items, counts };
}
