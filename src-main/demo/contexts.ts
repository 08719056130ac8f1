// Deterministic, seeded contexts for the built-in demo, the tests and the benchmarks.
import { filler, prng } from '../corpus/seeded-text.ts';

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
    parts.push(
      `## Section ${i + 1}: ${topic}\nThis section is about ${topic}. ${filler(rand, charsPerSection)}\nKey finding: ${topic} affected ${10 + Math.floor(rand() * 90)} customers.`,
    );
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
