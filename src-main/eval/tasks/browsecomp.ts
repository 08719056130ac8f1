// BrowseComp-Plus-like: a corpus of documents (a JSON array of {docid, title, text}) and a
// three-hop question: the product's maker (document 1), who acquired the maker (document 2),
// where the acquirer is headquartered (document 3). Other chains are distractors, and some
// documents mention the product without the fact, so search alone is not enough.
import { filler, prng } from '../../corpus/seeded-text.ts';
import { CHARS_PER_TOKEN, type GeneratedTask } from './types.ts';
import type { SandboxValue } from '../../sandbox/types.ts';

export const BROWSE_QUERY_MARK = 'the company that acquired the maker of the product';

const SYL = ['zor', 'vex', 'lum', 'ka', 'tri', 'nol', 'quen', 'dra', 'mi', 'sar', 'bel', 'tox', 'ri', 'val', 'cor', 'nex', 'pha', 'lio'];
const COMPANY_SUFFIX = ['Instruments', 'Labs', 'Industries', 'Systems', 'Works', 'Dynamics', 'Holdings', 'Robotics'];
const PRODUCT_KIND = [
  'handheld scanner',
  'water filter',
  'drone',
  'espresso machine',
  'e-reader',
  'bicycle lock',
  'weather station',
  'solar lantern',
];
const CITIES = [
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
  'Porto',
  'Krakow',
  'Osaka',
  'Seville',
  'Utrecht',
  'Ghent',
];

export interface BrowseDoc {
  docid: string;
  title: string;
  text: string;
}

/** The three fact sentences, shared with the mock sub-LM that extracts them. */
export const FACTS = {
  maker: (product: string, kind: string, maker: string): string => `${product} is a ${kind} manufactured by ${maker}.`,
  acquired: (maker: string, year: number, acquirer: string): string => `In ${year}, ${maker} was acquired by ${acquirer}.`,
  hq: (company: string, city: string): string => `${company} is headquartered in ${city}.`,
};

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export function browsecompTask(sizeTokens: number, seed: number): GeneratedTask {
  const rand = prng(seed * 2_654_435 + 11);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const chars = sizeTokens * CHARS_PER_TOKEN;
  const docChars = 1600;
  const docCount = Math.max(12, Math.round(chars / (docChars + 60)));
  const used = new Set<string>();
  const unique = (make: () => string): string => {
    for (;;) {
      const s = make();
      if (!used.has(s)) {
        used.add(s);
        return s;
      }
    }
  };
  const product = (): string => unique(() => capital(pick(SYL) + pick(SYL) + pick(SYL)));
  const company = (): string => unique(() => `${capital(pick(SYL) + pick(SYL))} ${pick(COMPANY_SUFFIX)}`);

  // Fact documents: 3 per chain; about a sixth of the corpus, at least 3 chains.
  const chains = Math.max(3, Math.floor(docCount / 18));
  const factDocs: { title: string; fact: string }[] = [];
  const chainList: { product: string; maker: string; acquirer: string; city: string }[] = [];
  for (let c = 0; c < chains; c++) {
    const ch = { product: product(), maker: company(), acquirer: company(), city: pick(CITIES) };
    chainList.push(ch);
    factDocs.push(
      { title: `${ch.product} review`, fact: FACTS.maker(ch.product, pick(PRODUCT_KIND), ch.maker) },
      { title: `History of ${ch.maker}`, fact: FACTS.acquired(ch.maker, 1990 + Math.floor(rand() * 34), ch.acquirer) },
      { title: `${ch.acquirer} company profile`, fact: FACTS.hq(ch.acquirer, ch.city) },
    );
  }
  const target = chainList[0]!;
  // Mentions without the fact: the product is named, the maker is not.
  const other = chainList[1]!;
  factDocs.push({ title: 'Buyer guide', fact: `Shoppers often compare ${target.product} with ${other.product} before deciding.` });

  const slots = Array.from({ length: Math.max(docCount, factDocs.length) }, (_, i) => i);
  for (let i = slots.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [slots[i], slots[j]] = [slots[j]!, slots[i]!];
  }
  const docs: BrowseDoc[] = slots.map((_, i) => ({ docid: `d${String(i).padStart(5, '0')}`, title: '', text: '' }));
  factDocs.forEach((f, k) => {
    const d = docs[slots[k]!]!;
    const half = Math.floor(docChars / 2);
    d.title = f.title;
    d.text = `${filler(rand, half)}\n${f.fact}\n${filler(rand, half)}`;
  });
  for (const d of docs) {
    if (d.title !== '') continue;
    d.title = `Notes on ${pick(['travel', 'cooking', 'gardening', 'weather', 'music', 'history', 'sports'])} ${Math.floor(rand() * 1000)}`;
    d.text = filler(rand, docChars);
  }
  return {
    kind: 'browsecomp',
    query: `Using the documents, find the city where ${BROWSE_QUERY_MARK} "${target.product}" has its headquarters. Reply with the city name only.`,
    expected: target.city,
    scorer: 'exact',
    context: docs as unknown as SandboxValue[],
    sizeTokens,
    seed,
  };
}
