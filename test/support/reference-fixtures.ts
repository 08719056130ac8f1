// The reference library's logs (written by it, kept outside this repository in the workplace's
// shared/fixtures/rlm-python), and the counts their README states for each.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the fixtures are: $RLM_REFERENCE_FIXTURES, else `shared/` beside the clone, else the
 * workplace's own copy (a clone placed elsewhere on the machine). Missing everywhere, every
 * file that reads them fails at once, naming the places looked in, rather than test by test.
 */
function findFixtures(): string {
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  const env = process.env['RLM_REFERENCE_FIXTURES'];
  const tried = env ? [resolve(env)] : [join(repo, '../shared/fixtures/rlm-python'), '/work/shared/fixtures/rlm-python'];
  const found = tried.find((dir) => existsSync(join(dir, 'c_recursive.jsonl')));
  if (found) return found;
  throw new Error(
    `the reference library's log fixtures are not in ${tried.join(' nor ')}; set RLM_REFERENCE_FIXTURES to the folder that holds c_recursive.jsonl`,
  );
}

export const REFERENCE_FIXTURES = findFixtures();

/** From the fixtures README: runs, max depth, iterations, code blocks, leaf calls, child runs. */
export const README_COUNTS: Record<string, [number, number, number, number, number, number]> = {
  a_needle: [1, 0, 3, 4, 0, 0],
  b_aggregate: [1, 0, 5, 5, 8, 0],
  c_recursive: [4, 1, 13, 13, 6, 3],
  d_max_iterations: [1, 0, 4, 2, 0, 0],
  e_code_errors: [1, 0, 4, 4, 0, 0],
  g_openai_http: [1, 0, 3, 3, 1, 0],
  'paper-8467a58/a_needle': [1, 0, 3, 4, 0, 0],
  'paper-8467a58/c_recursive': [4, 1, 13, 13, 6, 3],
};
