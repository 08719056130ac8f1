// Sub-call datasets: every `llm_query`/`rlm_query` a policy made (prompt, model, response,
// usage, and the run and iteration it came from), filtered by an expression, for building
// regression sets of the sub-problems a decomposition creates. The filter language is
// filtrex's: safe (no access to anything but the fields), e.g.
// `kind == "llm" and latencyMs > 1000 and prompt ~= "needle"`.
import { compileExpression } from 'filtrex';
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

function whereFields(l: CallLine, lab: CallLabels): Record<WhereField, string | number | boolean | string[]> {
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
    costUsd: l.usage.costUsd ?? 0,
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

/** Compiles `--where`; a syntax error or an unknown field is reported before any log is read. */
export function compileWhere(expr: string): (l: CallLine, labels?: CallLabels) => boolean {
  const known = new Set<string>(WHERE_FIELDS);
  let f: (o: object) => unknown;
  try {
    f = compileExpression(expr, {
      customProp: (name: string, get: (n: string) => unknown) => {
        if (!known.has(name)) throw new WhereError(`unknown field "${name}"; fields: ${WHERE_FIELDS.join(', ')}`);
        return get(name);
      },
    });
  } catch (err) {
    throw new WhereError(`--where ${JSON.stringify(expr)}: ${err instanceof Error ? err.message : String(err)}`);
  }
  // Names are looked up only when evaluated: one evaluation on a sample record reports an
  // unknown name (or a type error) now rather than in the middle of the logs.
  const check = f(whereFields(SAMPLE, NO_LABELS));
  if (check instanceof Error) throw new WhereError(`--where ${JSON.stringify(expr)}: ${check.message}`);
  return (l, labels = NO_LABELS) => {
    const v = f(whereFields(l, labels));
    if (v instanceof Error) throw new WhereError(`--where ${JSON.stringify(expr)}: ${v.message}`);
    return Boolean(v);
  };
}
