// Plain sub-LM calls: answers the prompts that the scenario code builds, correctly and
// deterministically. A task prompt is a header then a body:
//
//   TASK: <name>            first line
//   KEY: value              optional header fields (QUESTION, TITLE, KEY, PART…)
//   free instruction lines  ignored
//   TEXT: | ITEMS: | SECTION:   a line of its own; everything after it is the body
//
// Any other prompt gets a generic reading: the magic number when it holds one, else a summary.

export interface TaskPrompt {
  task: string;
  fields: Record<string, string>;
  body: string;
}

const BODY_MARKERS = new Set(['TEXT:', 'ITEMS:', 'SECTION:']);

export function parseTaskPrompt(prompt: string): TaskPrompt | null {
  const m = /^TASK: *([\w-]+) *(?:\n|$)/.exec(prompt);
  if (!m) return null;
  const fields: Record<string, string> = {};
  let pos = m[0].length;
  while (pos < prompt.length) {
    const nl = prompt.indexOf('\n', pos);
    const line = nl < 0 ? prompt.slice(pos) : prompt.slice(pos, nl);
    pos = nl < 0 ? prompt.length : nl + 1;
    if (BODY_MARKERS.has(line.trim())) return { task: m[1]!, fields, body: prompt.slice(pos) };
    const f = /^([A-Z][A-Z_]*): (.*)$/.exec(line);
    if (f) fields[f[1]!] = f[2]!;
  }
  return { task: m[1]!, fields, body: '' };
}

export function subLmReply(prompt: string): string {
  const t = parseTaskPrompt(prompt);
  if (t) {
    switch (t.task) {
      case 'find-number':
        return findNumber(t.body, t.fields['KEY'] ?? 'magic number') ?? 'NONE';
      case 'count-labels':
        return JSON.stringify(countLabels(t.body));
      case 'summarise':
      case 'summarize':
        return summarise(t.body, t.fields['PART'] ?? null);
      case 'section-report':
        return JSON.stringify(sectionReport(t.fields['QUESTION'] ?? '', t.fields['TITLE'] ?? 'section', t.body));
      default:
        return `I do not know the task "${t.task}". ${summarise(t.body, null)}`;
    }
  }
  const n = findNumber(prompt, 'magic number');
  if (n !== null) return `The magic number is ${n}.`;
  return summarise(prompt, null);
}

/** The number written after `key` (digits, thousands separators dropped), or null. */
export function findNumber(text: string, key: string): string | null {
  const re = new RegExp(`${escapeRegExp(key)}\\D{0,40}?(\\d[\\d,]*)`, 'i');
  const m = re.exec(text);
  return m ? m[1]!.replace(/,/g, '') : null;
}

/** `label: X` occurrences by label (lower-cased), keys sorted so the reply is stable. */
export function countLabels(text: string): Record<string, number> {
  const counts = new Map<string, number>();
  for (const m of text.matchAll(LABEL_RE)) {
    const label = m[1]!.toLowerCase();
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return Object.fromEntries([...counts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Shared with the code the aggregate scenario writes (its `labelRe`), so both read labels alike. */
export const LABEL_PATTERN = String.raw`label:\s*([^\s|,;"'\]]+)`;
const LABEL_RE = new RegExp(LABEL_PATTERN, 'gi');

const STOP = new Set(
  'that this with from have were their there which about would could should these those they them then than into your what when where while also been being because after before other some such only over more most very just each many much does here will shall upon within without between'.split(
    ' ',
  ),
);

/** A two-sentence, deterministic description of a text: size, opening words, frequent terms. */
function summarise(text: string, part: string | null): string {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const words = text.match(/[A-Za-z][A-Za-z'-]*/g) ?? [];
  const freq = new Map<string, number>();
  for (const w of words) {
    const k = w.toLowerCase();
    if (k.length < 4 || STOP.has(k)) continue;
    freq.set(k, (freq.get(k) ?? 0) + 1);
  }
  const top = [...freq.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 5)
    .map(([w]) => w);
  const opening = (lines[0] ?? '').trim().replace(/\s+/g, ' ').slice(0, 80);
  const where = part ? `Part ${part}` : 'The text';
  const terms = top.length > 0 ? ` It is mostly about ${top.join(', ')}.` : '';
  // A stated conclusion is what a reader would repeat, so quote the first one.
  const finding = /^(?:key finding|finding|conclusion|result|summary)s?: *(.+)$/im.exec(text);
  const stated = finding ? ` It states: ${finding[1]!.trim().slice(0, 200)}` : '';
  return `${where} has ${lines.length} lines and ${words.length} words, beginning "${opening}".${terms}${stated}`;
}

export interface SectionReport {
  title: string;
  lines: number;
  counts: Record<string, number>;
  summary: string;
}

/**
 * Terms the question singles out: ALL-CAPS words (ERROR, WARN) and quoted phrases.
 * The child-RLM code in scenarios.ts computes the same in JavaScript; keep them in step.
 */
function keyTerms(question: string): string[] {
  const caps = question.match(/\b[A-Z][A-Z0-9_]+\b/g) ?? [];
  const quoted = [...question.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
  return [...new Set([...caps, ...quoted])];
}

/** What a child RLM submits for `TASK: section-report`; a leaf call answers the same. */
export function sectionReport(question: string, title: string, body: string): SectionReport {
  const lines = body.split('\n').filter((l) => l.trim() !== '');
  const counts: Record<string, number> = {};
  for (const k of keyTerms(question)) counts[k] = lines.filter((l) => l.includes(k)).length;
  return { title, lines: lines.length, counts, summary: summarise(body, null) };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
