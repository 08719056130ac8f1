// Sub-call datasets: every `llm_query`/`rlm_query` a policy made (prompt, model, response,
// usage, and the run and iteration it came from), filtered by an expression, for building
// regression sets of the sub-problems a decomposition creates. The filter language is JSONata,
// as `query`'s (docs/queries.md), over the fields below, e.g.
// `kind = "llm" and latencyMs > 1000 and $contains(prompt, /needle/)`.
import jsonata from 'jsonata';
import type { SubcallRecord } from '../../src-shared/trajectory/model-calls.ts';

/** One line of the dataset. */
export interface CallLine extends Omit<SubcallRecord, 'childRunId'> {
  file: string;
  sessionId: string | null;
  childRunId: string | null;
}

/** What `--where` can name: the line's scalar fields plus a few derived ones. */
export const WHERE_FIELDS = [
  'kind',
  'leaf',
  'child',
  'failed',
  'model',
  'prompt',
  'response',
  'error',
  'depth',
  'turn',
  'iteration',
  'block',
  'batchSize',
  'batchIndex',
  'promptChars',
  'responseChars',
  'inputTokens',
  'outputTokens',
  'costUsd',
  'latencyMs',
  'runId',
  'rootRunId',
  'callId',
  'file',
  'labels',
  'runLabels',
  'sessionLabels',
] as const;
type WhereField = (typeof WHERE_FIELDS)[number];

/** Labels from the log's sidecar that apply to a sub-call: its own, its run's and its session's (`"x" in labels`). */
export interface CallLabels {
  labels: string[];
  runLabels: string[];
  sessionLabels: string[];
}

const NO_LABELS: CallLabels = { labels: [], runLabels: [], sessionLabels: [] };

function whereFields(l: CallLine, lab: CallLabels): Record<WhereField, string | number | boolean | string[] | undefined> {
  return {
    ...lab,
    kind: l.kind,
    leaf: l.leaf,
    child: l.childRunId !== null,
    failed: l.error !== null,
    model: l.model,
    prompt: l.prompt,
    response: l.response,
    error: l.error ?? '',
    depth: l.depth,
    turn: l.turn,
    iteration: l.iteration,
    block: l.block,
    batchSize: l.batch?.size ?? 0,
    batchIndex: l.batch?.index ?? -1,
    promptChars: l.prompt.length,
    responseChars: l.response.length,
    inputTokens: l.usage.inputTokens,
    outputTokens: l.usage.outputTokens,
    // Unknown (no price) is absent, not 0: neither `costUsd > 0.01` nor `costUsd < 0.01` holds for it.
    costUsd: l.usage.costUsd ?? undefined,
    latencyMs: l.latencyMs,
    runId: l.runId,
    rootRunId: l.rootRunId,
    callId: l.callId,
    file: l.file,
  };
}

const SAMPLE: CallLine = {
  file: 'sample.rlm.jsonl',
  sessionId: null,
  runId: 'run-0' as CallLine['runId'],
  rootRunId: 'run-0' as CallLine['rootRunId'],
  depth: 0,
  turn: 0,
  iteration: 1,
  block: 0,
  callId: 'call-0' as CallLine['callId'],
  kind: 'llm',
  leaf: false,
  childRunId: null,
  batch: null,
  model: 'm',
  prompt: 'p',
  response: 'r',
  error: null,
  usage: { inputTokens: 1, outputTokens: 1, costUsd: 0 },
  latencyMs: 1,
};

export class WhereError extends Error {
  override name = 'WhereError';
}

const STRING = /("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')/;

/**
 * The JSONata spelling of a filter written in the old filtrex syntax (`==`, `~=`, `not x`), or
 * null when it has none of those. Shown in the error, never run in its place: a condition
 * means one thing.
 */
export function jsonataSpelling(expr: string): string | null {
  const parts = expr.split(STRING);
  for (let i = 0; i < parts.length; i += 2)
    parts[i] = parts[i]!.replace(/==/g, '=').replace(/\bnot\s+([A-Za-z_]\w*)/g, (_, x: string) => `$not(${x})`);
  let out = parts.join('');
  out = out.replace(/([A-Za-z_]\w*)\s*~=\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')/g, (_, f: string, q: string) => {
    const re = q
      .slice(1, -1)
      .replace(/\\(["'\\])/g, '$1')
      .replace(/\//g, '\\/');
    return `$contains(${f}, /${re}/)`;
  });
  return out === expr ? null : out;
}

/** The field names an expression reads (JSONata path steps). */
function namesIn(node: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(node)) for (const n of node) namesIn(n, out);
  else if (typeof node === 'object' && node !== null) {
    const n = node as { type?: unknown; value?: unknown };
    if (n.type === 'name' && typeof n.value === 'string') out.add(n.value);
    for (const v of Object.values(node)) if (typeof v === 'object') namesIn(v, out);
  }
  return out;
}

function truthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.some(truthy);
  return true;
}

function failure(expr: string, err: unknown): WhereError {
  const e = (typeof err === 'object' && err !== null ? err : {}) as { message?: string; position?: number };
  const spelled = jsonataSpelling(expr);
  const hint = spelled
    ? `; --where takes JSONata, as query does (= not ==, $contains(field, /regex/) not ~=, $not(x) not "not x"): --where ${spelled.includes("'") ? JSON.stringify(spelled) : `'${spelled}'`}`
    : '';
  const at = typeof e.position === 'number' ? ` at character ${e.position}` : '';
  return new WhereError(`--where ${JSON.stringify(expr)}${at}: ${e.message ?? String(err)}${hint}`);
}

/**
 * Compiles `--where` (JSONata); a syntax error, an unknown field or an expression that fails
 * on a sample call is reported before any log is read.
 */
export async function compileWhere(expr: string): Promise<(l: CallLine, labels?: CallLabels) => Promise<boolean>> {
  let f: jsonata.Expression;
  try {
    f = jsonata(expr);
  } catch (err) {
    throw failure(expr, err);
  }
  const known = new Set<string>(WHERE_FIELDS);
  const unknown = [...namesIn(f.ast(), new Set())].filter((n) => !known.has(n));
  if (unknown.length > 0)
    throw new WhereError(`--where ${JSON.stringify(expr)}: unknown field "${unknown[0]}"; fields: ${WHERE_FIELDS.join(', ')}`);
  const test = async (fields: object): Promise<boolean> => {
    try {
      return truthy(await f.evaluate(fields));
    } catch (err) {
      throw failure(expr, err);
    }
  };
  await test(whereFields(SAMPLE, NO_LABELS));
  return (l, labels = NO_LABELS) => test(whereFields(l, labels));
}
