// The reference library's logs in ../shared/fixtures/rlm-python (beside the clone in CI),
// and the counts their README states for each.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REFERENCE_FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../../shared/fixtures/rlm-python');

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
