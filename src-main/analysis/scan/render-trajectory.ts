// A compact text of one trajectory for a model scanner: every run, iteration and sub-call
// under the id it can be cited by (run:…, iteration:…#n, call:…), with the texts (replies,
// code, outputs, prompts, responses) cut to a common length chosen so the whole fits the
// budget. The structure is always kept whole; only when even that is too long is the middle
// of the rendering left out, saying so.
import type { CallDoc, RunDoc } from '../../../src-shared/analysis/query-document.ts';
import type { ScanDocument } from './scan-document.ts';

const MIN_CAP = 60;
const START_CAP = 4000;

function cut(text: string, cap: number): string {
  const t = text.trim();
  if (t.length <= cap) return t;
  const half = Math.floor((cap - 30) / 2);
  return `${t.slice(0, half)} […${t.length - 2 * half} chars cut…] ${t.slice(-half)}`;
}

function indent(text: string, pad: string): string {
  return text.replace(/\n/g, `\n${pad}`);
}

function callLine(c: CallDoc, cap: number): string {
  const head = `CALL ${c.target} (${c.kind === 'rlm' ? `rlm_query${c.child ? `, child ${c.child}` : ''}` : 'llm_query'}, model ${c.model}, block ${c.block})`;
  const result = c.error !== null ? `error: ${cut(c.error, cap)}` : `response: ${cut(c.response ?? '', cap)}`;
  return `${head}\n  prompt: ${indent(cut(c.prompt, cap), '    ')}\n  ${indent(result, '    ')}`;
}

function renderRun(r: RunDoc, cap: number): string {
  const lines = [
    `RUN ${r.target} depth ${r.depth}${r.parent ? `, child of run:${r.parent}` : ''}, model ${r.model ?? '?'}, ${r.iterationCount} iteration(s), stopped: ${r.stopReason ?? 'not ended'}`,
  ];
  if (r.query) lines.push(`  query: ${indent(cut(r.query, cap), '    ')}`);
  if (r.contextChars !== null) lines.push(`  context: ${r.contextChars} chars`);
  for (const it of r.iterations) {
    lines.push(`  ITERATION ${it.target}`);
    lines.push(`    reply: ${indent(cut(it.reply, cap), '      ')}`);
    for (const b of it.blocks) {
      lines.push(`    block ${b.block} code: ${indent(cut(b.code, cap), '      ')}`);
      if (b.stdout.trim() !== '') lines.push(`    block ${b.block} output: ${indent(cut(b.stdout, cap), '      ')}`);
      if (b.error !== null) lines.push(`    block ${b.block} raised: ${cut(b.error, cap)}`);
      for (const c of r.subcalls)
        if (c.iteration === it.iteration && c.block === b.block) lines.push(`    ${indent(callLine(c, cap), '    ')}`);
    }
  }
  lines.push(`  answer: ${r.answer === null ? '(none)' : indent(cut(r.answer, cap), '    ')}`);
  return lines.join('\n');
}

function renderAll(doc: ScanDocument, cap: number): string {
  const head = `SESSION ${doc.sessionId ?? ''} (${doc.runs.length} run(s), ${doc.calls.length} sub-call(s))${doc.context ? `, root context ${doc.context.chars} chars` : ''}`;
  return [head, ...doc.runs.map((r) => renderRun(r, cap))].join('\n');
}

/** The trajectory as text within `budget` characters. */
export function renderTrajectory(doc: ScanDocument, budget: number): string {
  let cap = START_CAP;
  let text = renderAll(doc, cap);
  while (text.length > budget && cap > MIN_CAP) {
    cap = Math.max(MIN_CAP, Math.floor(cap / 2));
    text = renderAll(doc, cap);
  }
  if (text.length <= budget) return text;
  const keep = Math.floor((budget - 80) / 2);
  return `${text.slice(0, keep)}\n[… ${text.length - 2 * keep} characters of the trajectory left out …]\n${text.slice(-keep)}`;
}
