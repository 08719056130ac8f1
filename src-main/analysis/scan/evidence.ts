// Checking the places a finding cites against the log: a model may cite an id it was never
// shown, or mistype one. Valid ids are kept as evidence; the rest are kept apart, never linked.
import { parseTarget, targetId } from '../../../src-shared/analysis/labels.ts';
import type { SessionDoc } from '../../../src-shared/analysis/query-document.ts';

/** Every target id the document holds: session, runs, iterations, sub-calls. */
export function targetsOf(doc: SessionDoc): Set<string> {
  const out = new Set<string>([doc.target]);
  for (const r of doc.runs) {
    out.add(r.target);
    for (const it of r.iterations) out.add(it.target);
  }
  for (const c of doc.calls) out.add(c.target);
  return out;
}

/** A cited id in the form labels use (a bare run id is read as `run:ID`, whitespace trimmed). */
function normalise(id: string): string {
  const t = id.trim();
  const parsed = parseTarget(t);
  return 'error' in parsed ? t : targetId(parsed);
}

export function checkEvidence(cited: readonly string[], known: ReadonlySet<string>): { evidence: string[]; invalid: string[] } {
  const evidence: string[] = [];
  const invalid: string[] = [];
  for (const raw of cited) {
    const id = normalise(raw);
    if (known.has(id)) {
      if (!evidence.includes(id)) evidence.push(id);
    } else if (known.has(`run:${id}`)) {
      if (!evidence.includes(`run:${id}`)) evidence.push(`run:${id}`);
    } else if (!invalid.includes(raw)) invalid.push(raw.slice(0, 1000));
  }
  return { evidence, invalid };
}

/** The run, iteration and sub-call a target points at, for opening it. */
export function placeOf(doc: SessionDoc, target: string): { runId: string | null; iteration: number | null; callId: string | null } {
  const t = parseTarget(target);
  if ('error' in t || t.kind === 'session') return { runId: null, iteration: null, callId: null };
  if (t.kind === 'run') return { runId: t.runId, iteration: null, callId: null };
  if (t.kind === 'iteration') return { runId: t.runId, iteration: t.iteration, callId: null };
  const call = doc.calls.find((c) => c.id === t.callId);
  return { runId: call?.run ?? null, iteration: call?.iteration ?? null, callId: t.callId };
}
