// Questions whose label (TREC-coarse style) follows from their wording, for the OOLONG-like
// tasks. The label is never written in the data: a reader (a sub-LM) has to classify each
// question. `labelQuestion` is the exact inverse of the generator, so the mock sub-LM can
// play a perfect labeller and the scorer has an exact ground truth.

export const LABELS = ['description', 'entity', 'human', 'location', 'number', 'abbreviation'] as const;
export type QuestionLabel = (typeof LABELS)[number];

const NOUNS = [
  'harbor',
  'bridge',
  'lantern',
  'river',
  'festival',
  'library',
  'engine',
  'orchard',
  'tower',
  'canal',
  'market',
  'observatory',
  'railway',
  'glacier',
  'vineyard',
  'lighthouse',
];
const PLACES = [
  'Lisbon',
  'Kyoto',
  'Oslo',
  'Quito',
  'Nairobi',
  'Tallinn',
  'Perth',
  'Valparaiso',
  'Hanoi',
  'Reykjavik',
  'Cusco',
  'Tbilisi',
  'Dakar',
  'Bergen',
];
const ADJS = ['oldest', 'largest', 'famous', 'quiet', 'ancient', 'northern', 'tallest', 'hidden', 'busiest', 'first'];
const ROLES = ['mayor', 'engineer', 'poet', 'captain', 'architect', 'painter', 'explorer', 'judge'];
const ABBRS = ['NASA', 'UNESCO', 'FIFA', 'WHO', 'OPEC', 'NATO', 'CERN', 'IMF', 'UEFA', 'ASEAN', 'OECD', 'ESA'];

/** Slots: {n} noun, {p} place, {a} adjective, {r} role, {x} abbreviation. */
const TEMPLATES: Record<QuestionLabel, string[]> = {
  location: ['Where is the {n} of {p}?', 'Which country is home to the {a} {n}?', 'In which city was the first {n} built?'],
  human: ['Who designed the {n} of {p}?', 'Who was the first {r} of {p}?', 'Which {r} wrote about the {a} {n}?'],
  number: ['How many {n}s are there in {p}?', 'What year was the {n} of {p} opened?', 'How tall is the {a} {n}?'],
  description: ['Why is the {n} of {p} so {a}?', 'What does a {r} do with a {n}?', 'How does the {a} {n} work?'],
  entity: ['What kind of {n} is used in {p}?', 'Which {a} animal lives near the {n}?', 'What is the name of the {a} {n} in {p}?'],
  abbreviation: ['What does {x} stand for?', 'What is the full form of {x}?', 'What is {x} short for?'],
};

const SLOT_WORDS: Record<string, readonly string[]> = { n: NOUNS, p: PLACES, a: ADJS, r: ROLES, x: ABBRS };

export function makeQuestion(label: QuestionLabel, rand: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  return pick(TEMPLATES[label]).replace(/\{([a-z])\}/g, (_, s: string) => pick(SLOT_WORDS[s] ?? ['?']));
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

// Each template as an anchored regular expression whose slots accept only their own word list.
const MATCHERS: { label: QuestionLabel; re: RegExp }[] = LABELS.flatMap((label) =>
  TEMPLATES[label].map((t) => {
    const src = t
      .split(/(\{[a-z]\})/)
      .map((part) => {
        const slot = /^\{([a-z])\}$/.exec(part);
        return slot ? `(?:${(SLOT_WORDS[slot[1]!] ?? []).map(escapeRe).join('|')})` : escapeRe(part);
      })
      .join('');
    return { label, re: new RegExp(`^${src}$`) };
  }),
);

/** The label of a generated question, or null for text that is not one. */
export function labelQuestion(question: string): QuestionLabel | null {
  const q = question.trim();
  for (const m of MATCHERS) if (m.re.test(q)) return m.label;
  return null;
}
