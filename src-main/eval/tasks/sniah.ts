// S-NIAH: one needle ("the special passcode for the K vault is N") in seeded filler, plus a
// few decoy passcodes for other vaults so the key has to be matched. O(1) work in the size.
import { filler, prng } from '../../corpus/seeded-text.ts';
import { CHARS_PER_TOKEN, type GeneratedTask } from './types.ts';

const KEY_A = ['amber', 'copper', 'silent', 'northern', 'velvet', 'crimson', 'hollow', 'bright', 'distant', 'frozen'];
const KEY_B = ['falcon', 'harbor', 'meadow', 'lantern', 'summit', 'willow', 'comet', 'anchor', 'garden', 'canyon'];

export const SNIAH_QUERY_MARK = 'special passcode for the';

export function sniahTask(sizeTokens: number, seed: number): GeneratedTask {
  const rand = prng(seed * 7919 + 13);
  const chars = sizeTokens * CHARS_PER_TOKEN;
  const keys = new Set<string>();
  while (keys.size < 4) keys.add(`${KEY_A[Math.floor(rand() * KEY_A.length)]}-${KEY_B[Math.floor(rand() * KEY_B.length)]}`);
  const [key, ...decoys] = [...keys] as [string, ...string[]];
  const code = (): string => String(1_000_000 + Math.floor(rand() * 8_999_999));
  const answer = code();
  const facts = [{ at: 0.1 + 0.8 * rand(), line: `The ${SNIAH_QUERY_MARK} ${key} vault is ${answer}.` }];
  for (const d of decoys) facts.push({ at: rand(), line: `The ${SNIAH_QUERY_MARK} ${d} vault is ${code()}.` });
  facts.sort((a, b) => a.at - b.at);
  const budget = Math.max(0, chars - facts.reduce((n, f) => n + f.line.length + 2, 0));
  const parts: string[] = [];
  let used = 0;
  for (const f of facts) {
    const target = Math.floor(budget * f.at);
    parts.push(filler(rand, target - used), `\n${f.line}\n`);
    used = target;
  }
  parts.push(filler(rand, budget - used));
  return {
    kind: 'sniah',
    query: `What is the ${SNIAH_QUERY_MARK} ${key} vault? Reply with the number only.`,
    expected: answer,
    scorer: 'contains',
    context: parts.join(''),
    sizeTokens,
    seed,
  };
}
