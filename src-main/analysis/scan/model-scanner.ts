// A model scanner: one question about one trajectory, asked of a model with the trajectory
// rendered compactly (render-trajectory.ts). The model answers with a JSON object — a verdict,
// an explanation and the ids it cites as evidence — and the call is recorded in a log of its
// own under DIR/scan/<scanner>/, usage and cost included, like any other model call.
import { recordedCall, type LmClient } from '../../eval/recorded-call.ts';
import type { ScanDocument } from './scan-document.ts';
import { renderTrajectory } from './render-trajectory.ts';

export interface ModelReply {
  verdict: boolean;
  explanation: string;
  evidence: string[];
}

function scannerPrompt(question: string, trajectory: string): string {
  return [
    'You are reviewing one trajectory of a Recursive Language Model: a root model that works in a REPL over a long context, may call sub-models (llm_query) and child runs (rlm_query), and submits an answer.',
    'Every run, iteration and sub-call below is shown with its id (run:…, iteration:…#N, call:…).',
    '',
    'TRAJECTORY',
    trajectory,
    'END OF TRAJECTORY',
    '',
    `QUESTION: ${question}`,
    '',
    'Answer with one JSON object and nothing else:',
    '{"verdict": true or false, "explanation": "one or two sentences", "evidence": ["iteration:RUN#N", "call:ID", ...]}',
    '"verdict" is true when the behaviour the question asks about is present in this trajectory. "evidence" lists the ids, exactly as shown above, of the places that show it (empty when the verdict is false).',
  ].join('\n');
}

/** The JSON object of a reply (bare, or in a ```json fence, or the outermost {…}); a string saying what is wrong otherwise. */
export function readModelReply(reply: string): ModelReply | string {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(reply)?.[1];
  const candidates = [fenced, reply.slice(reply.indexOf('{'), reply.lastIndexOf('}') + 1)].filter(
    (c): c is string => c !== undefined && c.trim().startsWith('{'),
  );
  let value: unknown;
  for (const c of candidates) {
    try {
      value = JSON.parse(c);
      break;
    } catch {
      // the next candidate
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return `the reply holds no JSON object {"verdict", "explanation", "evidence"}: ${JSON.stringify(reply.slice(0, 200))}`;
  const o = value as Record<string, unknown>;
  let verdict = o['verdict'];
  if (typeof verdict === 'string' && /^(true|yes|present)$/i.test(verdict.trim())) verdict = true;
  if (typeof verdict === 'string' && /^(false|no|absent)$/i.test(verdict.trim())) verdict = false;
  if (typeof verdict !== 'boolean') return `the reply's "verdict" is not true or false: ${JSON.stringify(o['verdict'])}`;
  const explanation = typeof o['explanation'] === 'string' ? o['explanation'] : '';
  const ev = o['evidence'] ?? [];
  if (!Array.isArray(ev)) return `the reply's "evidence" is not a list of ids: ${JSON.stringify(ev).slice(0, 200)}`;
  return { verdict, explanation, evidence: ev.map((e) => (typeof e === 'string' ? e : JSON.stringify(e))) };
}

export interface ModelScanOptions {
  client: LmClient;
  model: string;
  logDir: string;
  key: string;
}

export async function askModel(
  o: ModelScanOptions,
  question: string,
  budgetChars: number,
  doc: ScanDocument,
): Promise<{ reply: ModelReply | null; error: string | null; call: Awaited<ReturnType<typeof recordedCall>> }> {
  const call = await recordedCall(
    { client: o.client, model: o.model, logDir: o.logDir, key: o.key, runPrefix: 'scan' },
    scannerPrompt(question, renderTrajectory(doc, budgetChars)),
  );
  if (call.answer === null) return { reply: null, error: `the scanner's call failed: ${call.why}`, call };
  const reply = readModelReply(call.answer);
  if (typeof reply === 'string') return { reply: null, error: reply, call };
  return { reply, error: null, call };
}
