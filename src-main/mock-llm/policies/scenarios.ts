// The built-in policy: plays a competent RLM so demos and end-to-end tests run without a
// real model. The scenario is chosen by keywords in the query (see ../README.md); the step
// within it by the `[scenario:step] value` lines its own code printed earlier, which the
// REPL output carries back (and a compaction summary keeps), not by counting turns — so a
// failed block, a compaction or a longer turn budget does not derail it.
import { MARKERS } from '../../lm/prompt-markers.ts';
import { classify, lastReplError, lastTag, hasTag } from '../policy.ts';
import type { Classified, Policy, PolicyRequest } from '../policy.ts';
import { inspectCode, js, replWith, SECTION_HEADER_RE, TEXT_EXPR } from './code.ts';
import * as PY from './code-py.ts';
import { LABEL_PATTERN, subLmReply } from './sub-lm.ts';

export type ScenarioName = 'needle' | 'aggregate' | 'recursive' | 'recover' | 'never' | 'variables' | 'default' | 'child';

/** Keyword rules, first match wins. A run without a query is a child RLM. */
export function scenarioFor(query: string | null): ScenarioName {
  if (query === null) return 'child';
  const q = query.toLowerCase();
  if (q.includes('never finish')) return 'never';
  if (q.includes('which variables')) return 'variables';
  if (q.includes('recover')) return 'recover';
  if (q.includes('magic number')) return 'needle';
  if (q.includes('recursive') || q.includes('per section')) return 'recursive';
  if (q.includes('how many') || /\bcount/.test(q)) return 'aggregate';
  return 'default';
}

export const scenariosPolicy: Policy = (req: PolicyRequest): string => {
  const c = classify(req);
  switch (c.kind) {
    case 'sub':
      // The prompt is the last user message; a client that adds its own system message is tolerated.
      return subLmReply(c.lastUser || req.messages.map((m) => m.content).join('\n\n'));
    case 'final':
      return finalAnswer(c);
    case 'compaction':
      return compactionSummary(c);
    case 'rlm':
      return rlmTurn(c);
  }
};

function rlmTurn(c: Classified): string {
  const scenario = scenarioFor(c.query);
  switch (scenario) {
    case 'needle':
      return needle(c);
    case 'aggregate':
      return aggregate(c);
    case 'recursive':
      return recursive(c);
    case 'recover':
      return recover(c);
    case 'never':
      return never(c);
    case 'variables':
      return variables(c);
    case 'default':
      return generic(c, 'default');
    case 'child':
      return child(c);
  }
}

const LOOK_FIRST = 'Let me look at the context first: its type, its size and a couple of short samples, without printing all of it.';

/** The turn-1 inspection in the session's language. */
function inspect(c: Classified, scope: string): string {
  return c.language === 'python' ? PY.inspectCodePy(scope) : inspectCode(scope);
}

/** Code that submits `content` as the answer, in the session's language. */
function submit(c: Classified, content: string): string {
  return c.language === 'python' ? PY.submitPy(content) : `answer.content = ${js(content)};\nanswer.ready = true;`;
}

// ---- 1. needle: regex over the string, a sub-LM confirms the window, submit the number.

function needle(c: Classified): string {
  const candidate = lastTag(c, 'needle', 'candidate');
  if (candidate !== null) {
    if (/^\d+$/.test(candidate)) {
      return replWith(
        `The search found ${candidate} right after "magic number", and the sub-LM read the same number from the text around the hit, so I am confident. Submitting it.`,
        submit(c, candidate),
      );
    }
    return replWith(
      'Neither the regular expression nor the chunked sub-LM scan found a magic number, so I will say so rather than guess.',
      submit(c, 'I could not find a magic number in the context.'),
    );
  }
  if (!hasTag(c, 'needle', 'inspect')) return replWith(LOOK_FIRST, inspect(c, 'needle'));
  return replWith(
    'The context is far too long to read, and the number should follow the words "magic number". I will search for that with a regular expression, then have a sub-LM read a window around the first hit to confirm it.',
    c.language === 'python'
      ? PY.NEEDLE_SEARCH_PY
      : String.raw`
const hay = ${TEXT_EXPR};
const hits = [];
for (const m of hay.matchAll(/magic number\D{0,40}?(\d[\d,]*)/gi)) {
  hits.push({ at: m.index, value: m[1].replace(/,/g, '') });
  if (hits.length >= 10) break;
}
print('regex hits:', hits.length, JSON.stringify(hits.slice(0, 5)));
let candidate = 'NONE';
if (hits.length > 0) {
  const hit = hits[0];
  const around = hay.slice(Math.max(0, hit.at - 400), hit.at + 400);
  const read = String(await llm_query('TASK: find-number\nKEY: magic number\nReply with the number only, or NONE.\nTEXT:\n' + around)).trim();
  print('sub-LM reading of the window:', read);
  candidate = /^\d+$/.test(read) ? read : hit.value;
} else {
  // No literal hit: let sub-LMs read the whole text in large pieces.
  const pieces = [];
  for (let i = 0; i < hay.length; i += 400000) pieces.push(hay.slice(i, i + 400000));
  const reads = await llm_query_batched(pieces.map((p) => 'TASK: find-number\nKEY: magic number\nReply with the number only, or NONE.\nTEXT:\n' + p));
  const found = reads.map((r) => String(r).trim()).find((r) => /^\d+$/.test(r));
  if (found) candidate = found;
}
print('[needle:candidate]', candidate);
`,
  );
}

// ---- 2. aggregate: chunk the labelled items, count per chunk with sub-LMs, sum in code.

function aggregate(c: Classified): string {
  const total = lastTag(c, 'aggregate', 'total');
  if (total !== null) {
    return replWith(`Some chunks failed twice, but the sum over the chunks that worked is ${total}. Submitting that.`, submit(c, total));
  }
  const labelsSeen = lastTag(c, 'aggregate', 'labels');
  if (labelsSeen === null) {
    return replWith(
      'Let me look at the items first: how many there are, a few samples, and which labels appear.',
      c.language === 'python'
        ? PY.AGGREGATE_INSPECT_PY
        : String.raw`
const kind = Array.isArray(context) ? 'array' : typeof context;
const toItem = (x) => (typeof x === 'string' ? x : JSON.stringify(x));
let items;
if (Array.isArray(context)) {
  items = context.map(toItem);
} else if (typeof context === 'string') {
  let parsed = null;
  if (context.trimStart().startsWith('[')) {
    try { parsed = JSON.parse(context); } catch (e) { parsed = null; }
  }
  items = Array.isArray(parsed) ? parsed.map(toItem) : context.split('\n').filter((l) => l.trim() !== '');
} else {
  items = Object.values(context).map(toItem);
}
const totalChars = items.reduce((n, s) => n + s.length, 0);
print('[aggregate:inspect] type=' + kind + ' items=' + items.length + ' chars=' + totalChars);
for (const it of items.slice(0, 3)) print('sample:', JSON.stringify(it.slice(0, 200)));
const labelRe = new RegExp(${js(LABEL_PATTERN)}, 'i');
const seen = new Set();
for (const it of items.slice(0, 5000)) {
  const m = labelRe.exec(it);
  if (m) seen.add(m[1].toLowerCase());
}
print('[aggregate:labels]', [...seen].sort().join(', '));
`,
    );
  }
  const labels = labelsSeen
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const asked = askedLabel(c.query ?? '', labels);
  const what = asked === null ? 'all labelled items' : `items labelled "${asked}"`;
  return replWith(
    `Each item carries its label, and the query asks for ${what}. Counting is easy to get wrong by eye, so I will split the items into chunks, have sub-LMs count labels per chunk in one batch, and sum their JSON replies in code.`,
    c.language === 'python'
      ? PY.aggregateCountPy(asked)
      : String.raw`
const nChunks = Math.max(1, Math.min(items.length, Math.max(8, Math.ceil(totalChars / 200000)), 64));
const per = Math.ceil(items.length / nChunks);
const chunks = [];
for (let i = 0; i < items.length; i += per) chunks.push(items.slice(i, i + per));
const prompts = chunks.map((ch) => 'TASK: count-labels\nCount the items below by their label. Reply with only a JSON object mapping each label to its count.\nITEMS:\n' + ch.join('\n'));
const totals = {};
const addReply = (r) => {
  const s = String(r);
  const obj = JSON.parse(s.slice(s.indexOf('{'), s.lastIndexOf('}') + 1));
  for (const [k, v] of Object.entries(obj)) totals[k] = (totals[k] || 0) + Number(v);
};
let failed = [];
const replies = await llm_query_batched(prompts);
replies.forEach((r, i) => { try { addReply(r); } catch (e) { failed.push(i); } });
if (failed.length > 0) {
  print('retrying', failed.length, 'failed chunk(s)');
  const again = await llm_query_batched(failed.map((i) => prompts[i]));
  const still = [];
  again.forEach((r, j) => { try { addReply(r); } catch (e) { still.push(failed[j]); } });
  failed = still;
}
const asked = ${js(asked)};
const count = asked === null ? Object.values(totals).reduce((a, b) => a + b, 0) : (totals[asked] || 0);
print('chunks:', chunks.length, 'failed:', failed.length, 'totals:', JSON.stringify(totals));
print('[aggregate:total]', count);
if (failed.length === 0) {
  answer.content = String(count);
  answer.ready = true;
}
`,
  );
}

/** The label the query names (as a whole word), earliest in the query; null when none. */
export function askedLabel(query: string, labels: string[]): string | null {
  const q = query.toLowerCase();
  let best: { label: string; at: number } | null = null;
  for (const label of labels) {
    const m = new RegExp(`(^|[^\\w-])${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w-])`).exec(q);
    if (m && (best === null || m.index < best.at || (m.index === best.at && label.length > best.label.length))) {
      best = { label, at: m.index };
    }
  }
  return best?.label ?? null;
}

// ---- 3. recursive: sections → child RLMs (rlm_query_batched) → combine their JSON reports.

function recursive(c: Classified): string {
  if (!hasTag(c, 'recursive', 'inspect')) {
    return replWith(
      'Let me look at the context and split it into its sections; each section will get its own child RLM.',
      c.language === 'python'
        ? PY.RECURSIVE_SPLIT_PY
        : String.raw`
const kind = Array.isArray(context) ? 'array' : typeof context;
const text = ${TEXT_EXPR};
const asBody = (x) => (typeof x === 'string' ? x : JSON.stringify(x));
let sections;
if (Array.isArray(context)) {
  sections = context.map((x, i) => ({ title: 'item ' + (i + 1), body: asBody(x) }));
} else if (typeof context === 'object' && context !== null) {
  sections = Object.entries(context).map(([k, v]) => ({ title: k, body: asBody(v) }));
} else {
  const starts = [...text.matchAll(${SECTION_HEADER_RE})].map((m) => m.index);
  if (starts.length >= 2) {
    sections = starts.map((s, i) => {
      const body = text.slice(s, i + 1 < starts.length ? starts[i + 1] : text.length);
      return { title: body.split('\n')[0].replace(/^[=#\s]+|[=#\s]+$/g, '') || 'section ' + (i + 1), body };
    });
    if (text.slice(0, starts[0]).trim() !== '') sections.unshift({ title: 'preamble', body: text.slice(0, starts[0]) });
  } else {
    const n = Math.min(8, Math.max(2, Math.ceil(text.length / 50000)));
    const lines = text.split('\n');
    const per = Math.ceil(lines.length / n);
    sections = [];
    for (let i = 0; i < lines.length; i += per) sections.push({ title: 'part ' + (sections.length + 1), body: lines.slice(i, i + per).join('\n') });
  }
}
if (sections.length > 16) {
  // Too many small pieces: group them so each child gets a meaningful share.
  const per = Math.ceil(sections.length / 16);
  const grouped = [];
  for (let i = 0; i < sections.length; i += per) {
    const g = sections.slice(i, i + per);
    grouped.push({ title: g.length === 1 ? g[0].title : g[0].title + ' to ' + g[g.length - 1].title, body: g.map((s) => s.body).join('\n') });
  }
  sections = grouped;
}
print('[recursive:inspect] type=' + kind + ' chars=' + text.length + ' sections=' + sections.length);
for (const s of sections.slice(0, 20)) print('-', JSON.stringify(s.title.slice(0, 80)), s.body.length, 'chars');
`,
    );
  }
  return replWith(
    'Each section needs its own careful reading, so I will hand every section, with the question, to a child RLM in one batch and combine their reports in code.',
    c.language === 'python'
      ? PY.recursiveCombinePy(c.query ?? '')
      : String.raw`
const question = ${js(c.query ?? '')};
const childPrompts = sections.map((s) => 'TASK: section-report\nQUESTION: ' + question + '\nTITLE: ' + s.title + '\nSECTION:\n' + s.body);
const reports = await rlm_query_batched(childPrompts);
const parsed = reports.map((r, i) => {
  const s = String(r);
  try {
    return JSON.parse(s.slice(s.indexOf('{'), s.lastIndexOf('}') + 1));
  } catch (e) {
    return { title: sections[i].title, error: s.slice(0, 200) };
  }
});
for (const p of parsed) print(JSON.stringify(p).slice(0, 300));
const terms = [...new Set(parsed.flatMap((p) => Object.keys(p.counts || {})))];
const countOf = (p, t) => (p.counts && p.counts[t]) || 0;
let combined;
if (terms.length > 0) {
  const t = terms[0];
  const best = parsed.reduce((a, b) => (countOf(b, t) > countOf(a, t) ? b : a));
  const total = parsed.reduce((n, p) => n + countOf(p, t), 0);
  combined = 'Section "' + best.title + '" has the most ' + t + ' lines: ' + countOf(best, t) + ' (of ' + total + ' in all). Per section: ' + parsed.map((p) => p.title + ': ' + countOf(p, t)).join('; ') + '.';
} else {
  combined = parsed.map((p) => p.title + ': ' + (p.summary || p.error || '')).join('\n');
}
print('[recursive:combined]', combined.split('\n')[0].slice(0, 300));
answer.content = combined;
answer.ready = true;
`,
  );
}

// ---- A child RLM: no query; its context is the prompt its parent built.

function child(c: Classified): string {
  const head = lastTag(c, 'child', 'head');
  if (head === null) {
    return replWith(
      'I have no separate question: my context is the prompt my parent gave me. Let me read its first lines to see what is asked.',
      c.language === 'python'
        ? PY.CHILD_HEAD_PY
        : String.raw`
const kind = Array.isArray(context) ? 'array' : typeof context;
const text = ${TEXT_EXPR};
const firstLines = text.split('\n', 4);
print('[child:inspect] type=' + kind + ' chars=' + text.length);
print('[child:head]', firstLines[0].slice(0, 120));
print('next lines:', JSON.stringify(firstLines.slice(1).join('\n').slice(0, 300)));
`,
    );
  }
  if (head.startsWith('TASK: section-report')) {
    return replWith(
      'My context is a section-report task: a question, a title and one section. I will count the lines that mention the key terms of the question in code, ask a sub-LM for a short summary, and submit the report as JSON.',
      c.language === 'python'
        ? PY.CHILD_SECTION_REPORT_PY
        : String.raw`
const bodyAt = text.indexOf('\nSECTION:\n');
const header = bodyAt >= 0 ? text.slice(0, bodyAt) : text.split('\n', 3).join('\n');
const body = bodyAt >= 0 ? text.slice(bodyAt + '\nSECTION:\n'.length) : text;
const q = (/^QUESTION: (.*)$/m.exec(header) || [])[1] || '';
const title = (/^TITLE: (.*)$/m.exec(header) || [])[1] || 'section';
const keyTerms = [...new Set([...(q.match(/\b[A-Z][A-Z0-9_]+\b/g) || []), ...[...q.matchAll(/"([^"]+)"/g)].map((m) => m[1])])];
const bodyLines = body.split('\n').filter((l) => l.trim() !== '');
const counts = {};
for (const k of keyTerms) counts[k] = bodyLines.filter((l) => l.includes(k)).length;
const summary = String(await llm_query('TASK: summarise\nSummarise this text in one or two sentences.\nTEXT:\n' + body)).trim();
const report = { title, lines: bodyLines.length, counts, summary };
print('[child:report]', JSON.stringify(report).slice(0, 300));
answer.content = JSON.stringify(report);
answer.ready = true;
`,
    );
  }
  if (head.startsWith('TASK: ')) {
    return replWith(
      `My context is a self-contained task (${head.slice(6).trim()}); a sub-LM can answer it directly, so I will pass it on and submit the reply.`,
      c.language === 'python'
        ? PY.CHILD_PASS_ON_PY
        : String.raw`
const reply = String(await llm_query(text));
print('[child:reply]', reply.slice(0, 200));
answer.content = reply;
answer.ready = true;
`,
    );
  }
  return generic(c, 'child');
}

// ---- 4. recover: turn 2 throws, turn 3 reads the error, fixes it and submits.

function recover(c: Classified): string {
  if (!hasTag(c, 'recover', 'inspect')) return replWith(LOOK_FIRST, inspect(c, 'recover'));
  if (!hasTag(c, 'recover', 'attempt')) {
    return replWith(
      'Let me pull out the header line and normalise it before going further.',
      c.language === 'python'
        ? PY.RECOVER_ATTEMPT_PY
        : String.raw`
print('[recover:attempt] looking for the header line');
const lines = text.split('\n');
const headerLine = lines.find((l) => l.startsWith('#!header'));
print('header:', headerLine.trim());
`,
    );
  }
  const error = lastReplError(c);
  const missed = c.language === 'python' ? 'next() gave None' : 'find() returned undefined';
  const reasoning = error
    ? `The block failed with "${error}": there is no "#!header" line, so ${missed}. I will fall back to the first non-empty line, then summarise the text and submit.`
    : 'The header step went through. I will summarise the text and submit.';
  return replWith(
    reasoning,
    c.language === 'python'
      ? PY.RECOVER_FIX_PY
      : String.raw`
const lines2 = text.split('\n');
const headerLine2 = lines2.find((l) => l.startsWith('#!header')) ?? lines2.find((l) => l.trim() !== '') ?? '';
print('[recover:fixed] header=' + JSON.stringify(headerLine2.trim().slice(0, 120)));
const overview = String(await llm_query('TASK: summarise\nSummarise this text in one or two sentences.\nTEXT:\n' + text.slice(0, 400000))).trim();
print('overview:', overview);
answer.content = 'After recovering from an error (no header line; used the first line instead): first line ' + JSON.stringify(headerLine2.trim().slice(0, 120)) + '. ' + overview;
answer.ready = true;
`,
  );
}

// ---- 5. never: explores forever; the final-answer request gets a plain-text guess.

function never(c: Classified): string {
  if (!hasTag(c, 'never', 'inspect')) return replWith(LOOK_FIRST, inspect(c, 'never'));
  const step = c.tags.filter((t) => t.scope === 'never' && t.step === 'explore').length + 1;
  const fraction = (step * 37) % 100;
  return replWith(
    `I am not sure yet. Let me look at another part of the context, around ${fraction}% of the way in.`,
    c.language === 'python'
      ? PY.neverExplorePy(step, fraction)
      : String.raw`
const at${step} = Math.floor(text.length * ${fraction} / 100);
print('[never:explore] step ${step} at ' + at${step});
print(JSON.stringify(text.slice(at${step}, at${step} + 200)));
`,
  );
}

// ---- 6. default: inspect, summarise chunks in one batch, submit the combined summary.

function generic(c: Classified, scope: 'default' | 'child'): string {
  if (!hasTag(c, scope, 'inspect')) return replWith(LOOK_FIRST, inspect(c, scope));
  const question = c.query;
  return replWith(
    'That is more than I want to read in one go. I will split it into a few large chunks, have sub-LMs summarise them in one batch, and combine the summaries.',
    c.language === 'python'
      ? PY.genericSummaryPy(scope, question)
      : String.raw`
const question = ${js(question)};
const size = Math.min(400000, Math.max(2000, Math.ceil(text.length / 8)));
const chunks = [];
for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
if (chunks.length === 0) chunks.push('');
const prompts = chunks.map((ch, i) => 'TASK: summarise\n' + (question ? 'QUESTION: ' + question + '\n' : '') + 'PART: ' + (i + 1) + ' of ' + chunks.length + '\nSummarise this part in one or two sentences.\nTEXT:\n' + ch);
const summaries = (await llm_query_batched(prompts)).map((s) => String(s).trim());
summaries.forEach((s, i) => print('part ' + (i + 1) + ':', s.slice(0, 200)));
const combined = 'The context (' + text.length + ' characters, read in ' + chunks.length + (chunks.length === 1 ? ' part' : ' parts') + '): ' + summaries.join(' ');
print('[${scope}:combined]', combined.slice(0, 200));
answer.content = combined;
answer.ready = true;
`,
  );
}

// ---- variables: what a multi-turn session's REPL holds (context_N, history_N), in one block.

function variables(c: Classified): string {
  return replWith(
    'A multi-turn session keeps one REPL: I will list the context_N and history_N variables it holds and the start of the newest context, and submit that.',
    c.language === 'python'
      ? PY.VARIABLES_PY
      : String.raw`
const names = Object.keys(globalThis).filter((n) => /^(context|history)_\d+$/.test(n)).sort();
const newest = names.filter((n) => n.startsWith('context_')).at(-1);
const value = globalThis[newest];
const head = (typeof value === 'string' ? value : JSON.stringify(value)).slice(0, 40);
print('[variables:names]', names.join(', '));
answer.content = names.join(', ') + ' | ' + newest + ' starts: ' + head;
answer.ready = true;
`,
  );
}

// ---- The last-chance answer and the compaction summary.

function finalAnswer(c: Classified): string {
  const candidate = lastTag(c, 'needle', 'candidate');
  if (candidate !== null && /^\d+$/.test(candidate)) return candidate;
  const total = lastTag(c, 'aggregate', 'total');
  if (total !== null) return total;
  for (const scope of ['recursive', 'default', 'child']) {
    const combined = lastTag(c, scope, 'combined');
    if (combined !== null) return combined;
  }
  const explored = c.tags.filter((t) => t.step === 'explore').length;
  const inspected = c.tags.find((t) => t.step === 'inspect')?.value;
  const seen = inspected ? ` The context is ${inspected.replace(/^type=/, 'a ').replace(/ chars=(\d+)/, ' of $1 characters')}.` : '';
  return `I ran out of turns before I could verify an answer.${seen} I looked at ${explored + (inspected ? 1 : 0)} part(s) of it; my best guess is that the answer is not stated in the parts I read, so I cannot give a definite one.`;
}

function compactionSummary(c: Classified): string {
  const scenario = scenarioFor(c.query);
  const tagLines = c.tags.map((t) => `[${t.scope}:${t.step}] ${t.value}`);
  const parts = [
    c.query === null ? 'I am a child RLM; my context is the prompt my parent passed.' : `${MARKERS.query}${c.query}`,
    `So far I have taken ${c.assistantTurns} turn(s) working on it (${scenario} approach). The REPL keeps every variable I defined (text, and the ones listed by SHOW_VARS()).`,
    tagLines.length > 0
      ? `Intermediate results, exactly as printed:\n${tagLines.join('\n')}`
      : 'No intermediate results have been printed yet.',
    'Next I will continue from these results without redoing finished steps.',
  ];
  return parts.join('\n\n');
}
