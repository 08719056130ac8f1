// OOLONG-like tasks over dated question records ("Date: … || User: … || Instance: …").
// The label of each record follows from its wording only, so every record has to be read
// (O(n) work): `oolong` asks how many records get one label; `oolong-pairs` asks for every
// pair of users where one asked a question of label A and the other one of label B
// (O(n²) in users, scored by F1 over the pairs).
import { prng } from '../../corpus/seeded-text.ts';
import { LABELS, makeQuestion, type QuestionLabel } from './questions.ts';
import { CHARS_PER_TOKEN, type GeneratedTask } from './types.ts';

export const OOLONG_QUERY_MARK = 'Classify each question into exactly one of these labels';
export const PAIRS_QUERY_MARK = 'List every pair of user IDs';

interface RecordSet {
  lines: string[];
  /** Per record: user id and true label. */
  truth: { user: number; label: QuestionLabel }[];
}

function dateOf(rand: () => number): string {
  const d = new Date(Date.UTC(2021, 0, 1) + Math.floor(rand() * 1000) * 86_400_000);
  return d.toISOString().slice(0, 10);
}

/**
 * Records until the text reaches `chars`. Users ask from a personal subset of labels
 * (1–3 of them), so "has a question labelled X" is selective and the pair set stays sparse.
 */
function records(chars: number, rand: () => number, userCount: number): RecordSet {
  const users = Array.from({ length: userCount }, (_, i) => {
    const id = 10_000 + i * 37 + Math.floor(rand() * 30);
    const n = 1 + Math.floor(rand() * 3);
    const labels = new Set<QuestionLabel>();
    while (labels.size < n) labels.add(LABELS[Math.floor(rand() * LABELS.length)]!);
    return { id, labels: [...labels] };
  });
  const lines: string[] = [];
  const truth: RecordSet['truth'] = [];
  let size = 0;
  while (size < chars) {
    const u = users[Math.floor(rand() * users.length)]!;
    const label = u.labels[Math.floor(rand() * u.labels.length)]!;
    const line = `Date: ${dateOf(rand)} || User: ${u.id} || Instance: ${makeQuestion(label, rand)}`;
    lines.push(line);
    truth.push({ user: u.id, label });
    size += line.length + 1;
  }
  return { lines, truth };
}

const labelList = LABELS.join(', ');
const PREAMBLE = `The context lists questions, one record per line (date, user and the question). ${OOLONG_QUERY_MARK}: ${labelList}.`;

/** ~75 characters a record; users grow with √records so pairs stay in the thousands. */
function userCountFor(chars: number): number {
  return Math.max(8, Math.min(150, Math.round(Math.sqrt(chars / 75) / 1.5)));
}

export function oolongTask(sizeTokens: number, seed: number): GeneratedTask {
  const rand = prng(seed * 104_729 + 7);
  const chars = sizeTokens * CHARS_PER_TOKEN;
  const set = records(chars, rand, userCountFor(chars));
  const present = LABELS.filter((l) => set.truth.some((t) => t.label === l));
  const label = present[Math.floor(rand() * present.length)]!;
  return {
    kind: 'oolong',
    query: `${PREAMBLE} In the data, how many records should be classified as "${label}"? Answer with the number only.`,
    expected: set.truth.filter((t) => t.label === label).length,
    scorer: 'numeric',
    context: set.lines.join('\n'),
    sizeTokens,
    seed,
  };
}

/** Every unordered pair {u, v}, u ≠ v, with u in A and v in B (or the other way round), as "lo,hi". */
export function qualifyingPairs(withA: ReadonlySet<number>, withB: ReadonlySet<number>): string[] {
  const out = new Set<string>();
  for (const u of withA) {
    for (const v of withB) {
      if (u === v) continue;
      out.add(u < v ? `${u},${v}` : `${v},${u}`);
    }
  }
  return [...out].sort();
}

export function oolongPairsTask(sizeTokens: number, seed: number): GeneratedTask {
  const rand = prng(seed * 15_485_863 + 3);
  const chars = sizeTokens * CHARS_PER_TOKEN;
  const set = records(chars, rand, userCountFor(chars));
  const a = LABELS[Math.floor(rand() * LABELS.length)]!;
  let b = a;
  while (b === a) b = LABELS[Math.floor(rand() * LABELS.length)]!;
  const withA = new Set(set.truth.filter((t) => t.label === a).map((t) => t.user));
  const withB = new Set(set.truth.filter((t) => t.label === b).map((t) => t.user));
  return {
    kind: 'oolong-pairs',
    query: `${PREAMBLE} ${PAIRS_QUERY_MARK} where one user has at least one question labelled "${a}" and the other user has at least one question labelled "${b}". Write one pair per line as "smaller ID,larger ID" and nothing else.`,
    expected: qualifyingPairs(withA, withB),
    scorer: 'pairs-f1',
    context: set.lines.join('\n'),
    sizeTokens,
    seed,
  };
}
