// Policies for the OOLONG-like eval tasks (src-main/eval/tasks/oolong.ts). Inspect; then
// split the records into chunks, have sub-LMs label every question in one batch (JSON
// number → label, failed chunks retried once), and aggregate in code: a count of one label
// (`oolong`), or every pair of users with labels A and B (`oolong-pairs`). 2 root calls.
import { hasTag, lastTag, type Classified } from '../policy.ts';
import { js, replWith, TEXT_EXPR } from './code.ts';
import { submitPy } from './code-py.ts';
import { OOLONG_INSPECT_PY, oolongCountPy, oolongLabellingPy, PAIRS_PARTIAL_PY, pairsPy } from './eval-py.ts';

/** The labels listed in the query ("…labels: a, b, c."), lower-cased. */
function queryLabels(query: string): string[] {
  const m = /labels: ([^.]+)\./i.exec(query);
  return m
    ? m[1]!
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter((s) => s !== '')
    : [];
}

/** The quoted labels of the query in order: the one to count, or A and B of the pairs. */
function quotedLabels(query: string): string[] {
  return [...query.matchAll(/labell?ed "([^"]+)"|classified as "([^"]+)"/gi)].map((m) => (m[1] ?? m[2] ?? '').toLowerCase());
}

const INSPECT = String.raw`
const text = ${TEXT_EXPR};
const records = text.split('\n').filter((l) => l.trim() !== '');
print('[oolong:inspect] records=' + records.length + ' chars=' + text.length);
for (const r of records.slice(0, 3)) print('sample:', JSON.stringify(r.slice(0, 160)));
`;

/** Labels every record into `labelOf` (null where no sub-LM answered). */
function labellingCode(labels: string[]): string {
  return String.raw`
const labels = ${js(labels)};
const questionOf = (l) => { const i = l.indexOf('Instance: '); return i >= 0 ? l.slice(i + 10) : l; };
const nChunks = Math.max(4, Math.min(256, Math.ceil(text.length / 60000)));
const per = Math.ceil(records.length / nChunks);
const starts = [];
for (let i = 0; i < records.length; i += per) starts.push(i);
const promptFor = (s) => 'TASK: label-questions\nLABELS: ' + labels.join(', ') + '\nClassify each numbered question with exactly one label. Reply with only a JSON object mapping each number to its label.\nITEMS:\n' + records.slice(s, s + per).map((l, k) => (s + k) + ': ' + questionOf(l)).join('\n');
const labelOf = new Array(records.length).fill(null);
const take = (reply) => {
  const s = String(reply);
  const obj = JSON.parse(s.slice(s.indexOf('{'), s.lastIndexOf('}') + 1));
  for (const [k, v] of Object.entries(obj)) labelOf[Number(k)] = String(v).trim().toLowerCase();
};
let failed = [];
(await llm_query_batched(starts.map(promptFor))).forEach((r, i) => { try { take(r); } catch (e) { failed.push(starts[i]); } });
if (failed.length > 0) {
  print('retrying', failed.length, 'chunk(s)');
  const again = await llm_query_batched(failed.map(promptFor));
  const still = [];
  again.forEach((r, j) => { try { take(r); } catch (e) { still.push(failed[j]); } });
  failed = still;
}
const tally = {};
for (const l of labelOf) tally[l ?? 'unlabelled'] = (tally[l ?? 'unlabelled'] || 0) + 1;
print('chunks:', starts.length, 'failed:', failed.length, 'tally:', JSON.stringify(tally));
`;
}

export function oolongTurn(c: Classified): string {
  const python = c.language === 'python';
  const partial = lastTag(c, 'oolong', 'count');
  if (partial !== null) {
    return replWith(
      `Some chunks could not be labelled, but the count over the rest is ${partial}; submitting it.`,
      python ? submitPy(partial) : `answer.content = ${js(partial)};\nanswer.ready = true;`,
    );
  }
  if (!hasTag(c, 'oolong', 'inspect'))
    return replWith('Let me look at the records first: how many there are and a few samples.', python ? OOLONG_INSPECT_PY : INSPECT);
  const query = c.query ?? '';
  const asked = quotedLabels(query)[0] ?? '';
  return replWith(
    `The label of each question is not written down, so every record has to be read. I will have sub-LMs label the questions in chunks, in one batch, then count "${asked}" in code.`,
    python
      ? `${oolongLabellingPy(queryLabels(query))}${oolongCountPy(asked)}`
      : String.raw`${labellingCode(queryLabels(query))}
const count = labelOf.filter((l) => l === ${js(asked)}).length;
print('[oolong:count]', count);
if (failed.length === 0) {
  answer.content = String(count);
  answer.ready = true;
}`,
  );
}

export function pairsTurn(c: Classified): string {
  const python = c.language === 'python';
  const partial = lastTag(c, 'pairs', 'count');
  if (partial !== null) {
    return replWith(
      'Some chunks could not be labelled; submitting the pairs found from the rest.',
      python ? PAIRS_PARTIAL_PY : `answer.content = pairs.join('\\n');\nanswer.ready = true;`,
    );
  }
  if (!hasTag(c, 'oolong', 'inspect'))
    return replWith('Let me look at the records first: how many there are and a few samples.', python ? OOLONG_INSPECT_PY : INSPECT);
  const query = c.query ?? '';
  const [a = '', b = ''] = quotedLabels(query);
  return replWith(
    `I need each user's labels, which means labelling every question: sub-LMs label them in chunks in one batch, then code collects the users with "${a}" and with "${b}" and forms the pairs.`,
    python
      ? `${oolongLabellingPy(queryLabels(query))}${pairsPy(a, b)}`
      : String.raw`${labellingCode(queryLabels(query))}
const withA = new Set();
const withB = new Set();
records.forEach((l, i) => {
  const u = (/User: (\d+)/.exec(l) || [])[1];
  if (u === undefined) return;
  if (labelOf[i] === ${js(a)}) withA.add(Number(u));
  if (labelOf[i] === ${js(b)}) withB.add(Number(u));
});
const pairSet = new Set();
for (const u of withA) for (const v of withB) if (u !== v) pairSet.add(u < v ? u + ',' + v : v + ',' + u);
const pairs = [...pairSet].sort();
print('users with A:', withA.size, 'with B:', withB.size);
print('[pairs:count]', pairs.length);
print('first pairs:', pairs.slice(0, 5).join(' '));
if (failed.length === 0) {
  answer.content = pairs.join('\n');
  answer.ready = true;
}`,
  );
}
