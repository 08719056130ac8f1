// Tree-scoped queries: a JSONata expression evaluated against each session's document
// (query-document.ts). What the expression returns says what matched: runs, iterations or
// sub-calls of the document (anything carrying a `target`) match one by one; any other
// truthy value makes the session itself a match; undefined, false, null and empty
// sequences match nothing. Functions `$parent(run)`, `$children(run)`, `$run(id)`,
// `$root(run)` and `$child(call)` walk the tree from a run or a call.
import jsonata from 'jsonata';
import type { CallDoc, IterationDoc, RunDoc, SessionDoc } from './query-document.ts';

export interface QueryMatch {
  file: string;
  sessionId: string | null;
  /** `session`, `run:…`, `iteration:…#n` or `call:…`: the ids labels use. */
  target: string;
  kind: 'session' | 'run' | 'iteration' | 'call';
  /** What matched, in a few words (or the value the expression gave for the session). */
  what: string;
  /** Where to show it: the run and iteration (null for a session, or a run as a whole). */
  at: { runId: string; iteration: number | null } | null;
}

/** A bad expression or one that failed on a document; `position` is a 1-based character. */
export class QueryError extends Error {
  override name = 'QueryError';
  readonly position: number | null;
  constructor(message: string, position: number | null) {
    super(message);
    this.position = position;
  }
}

interface JsonataFailure {
  code?: string;
  position?: number;
  token?: string;
  message?: string;
}

function describeFailure(expr: string, err: unknown, where: string): QueryError {
  const e = (typeof err === 'object' && err !== null ? err : {}) as JsonataFailure;
  const message = e.message ?? String(err);
  const position = typeof e.position === 'number' ? e.position : null;
  if (position === null) return new QueryError(`${where}: ${message}`, null);
  // JSONata's position is the index just after the offending token.
  const at = Math.max(1, Math.min(position, expr.length));
  const caret = `${expr}\n${' '.repeat(at - 1)}^`;
  return new QueryError(`${where} at character ${at}: ${message}${e.code ? ` (${e.code})` : ''}\n${caret}`, at);
}

const MAX_WHAT = 160;

function short(s: string): string {
  return s.length <= MAX_WHAT ? s : `${s.slice(0, MAX_WHAT - 1)}…`;
}

type Matchable = SessionDoc | RunDoc | IterationDoc | CallDoc;

function isDocNode(v: unknown): v is Matchable {
  return typeof v === 'object' && v !== null && typeof (v as { target?: unknown }).target === 'string';
}

function kindOf(target: string): QueryMatch['kind'] {
  if (target.startsWith('run:')) return 'run';
  if (target.startsWith('iteration:')) return 'iteration';
  if (target.startsWith('call:')) return 'call';
  return 'session';
}

function placeOf(node: Matchable): QueryMatch['at'] {
  if ('runs' in node) return null;
  if ('promptChars' in node || 'replyChars' in node) return { runId: node.run, iteration: node.iteration };
  return { runId: node.id, iteration: null };
}

function describe(node: Matchable): string {
  if ('runs' in node) return `session (${node.runs.length} runs)`;
  if ('promptChars' in node) {
    return `${node.kind}${node.leaf ? ' (leaf)' : ''} call in ${node.run} iteration ${node.iteration}, prompt ${node.promptChars} chars${node.error ? `, error ${short(node.error)}` : ''}`;
  }
  if ('replyChars' in node) return `iteration ${node.iteration} of ${node.run}: ${node.blocks.length} blocks, ${node.subcalls} sub-calls`;
  return `run depth ${node.depth}, ${node.stopReason ?? 'not ended'}, ${node.iterationCount} iterations`;
}

export interface CompiledQuery {
  readonly source: string;
  /** Matches in one session's document, in document order, each target once. */
  run(doc: SessionDoc): Promise<QueryMatch[]>;
}

/** Parses the expression now, so a syntax error is reported before any log is read. */
export function compileQuery(source: string): CompiledQuery {
  if (source.trim() === '') throw new QueryError('the query is empty', null);
  let expression: jsonata.Expression;
  try {
    expression = jsonata(source);
  } catch (err) {
    throw describeFailure(source, err, 'bad query');
  }
  return {
    source,
    async run(doc) {
      const byId = new Map(doc.runs.map((r) => [r.id, r]));
      const bindings = {
        run: (id: string) => byId.get(id),
        parent: (r: RunDoc | undefined) => (r?.parent != null ? byId.get(r.parent) : undefined),
        children: (r: RunDoc | undefined) => (r ? r.children.map((id) => byId.get(id)).filter((c) => c !== undefined) : []),
        root: (r: RunDoc | undefined) => (r ? byId.get(r.root) : undefined),
        child: (c: CallDoc | undefined) => (c?.child != null ? byId.get(c.child) : undefined),
      };
      let value: unknown;
      try {
        value = await expression.evaluate(doc, bindings);
      } catch (err) {
        throw describeFailure(source, err, `query failed on ${doc.file}`);
      }
      return matchesOf(doc, value);
    },
  };
}

function truthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.some(truthy);
  return true;
}

function matchesOf(doc: SessionDoc, value: unknown): QueryMatch[] {
  const items = Array.isArray(value) ? (value as unknown[]) : [value];
  const out: QueryMatch[] = [];
  const seen = new Set<string>();
  const values: unknown[] = [];
  for (const item of items) {
    if (isDocNode(item)) {
      if (seen.has(item.target)) continue;
      seen.add(item.target);
      out.push({
        file: doc.file,
        sessionId: doc.sessionId,
        target: item.target,
        kind: kindOf(item.target),
        what: describe(item),
        at: placeOf(item),
      });
    } else {
      values.push(item);
    }
  }
  // The session matches on any truthy value, and shows them all: `runs.errors` is [0, 2, 0], not [2].
  if (values.some(truthy) && !seen.has(doc.target)) {
    const value = values.length === 1 ? values[0] : values;
    const what = value === true ? 'session' : short(JSON.stringify(value) ?? String(value));
    out.unshift({ file: doc.file, sessionId: doc.sessionId, target: doc.target, kind: 'session', what, at: null });
  }
  return out;
}
