// The reference log's raw JSON values, read defensively: messages, answers, usage, the
// context and query stated in the first messages, tracebacks, `locals`, metadata, and one
// iteration entry. Nothing here emits events (rlm-python-run-writer.ts does).
import { type ChatMessage, type ContextMeta, type ContextType, type PromptPackRef, type Usage } from '../events.ts';
import { LOCAL_CHARS } from './rlm-python-locals.ts';
import { ENVIRONMENT_TYPES, type Obj, parsePyTimestamp, type RlmPythonMetadata } from './rlm-python-format.ts';

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const asObj = (v: unknown): Obj => (isObj(v) ? v : {});
export const asArr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const asStr = (v: unknown, d = ''): string => (typeof v === 'string' ? v : v === null || v === undefined ? d : JSON.stringify(v));
export const asNum = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function asMessage(v: unknown): ChatMessage {
  const o = asObj(v);
  const role = o['role'] === 'system' || o['role'] === 'assistant' ? o['role'] : 'user';
  return { role, content: asStr(o['content']) };
}

/** A final answer: a string, the legacy `[kind, text]` pair (text wins), or null. */
export function asAnswer(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.length >= 2) return asStr(v[1]);
  if (v === null || v === undefined) return null;
  return asStr(v);
}

export function sameMessage(a: ChatMessage | undefined, b: ChatMessage | undefined): boolean {
  return a !== undefined && b !== undefined && a.role === b.role && a.content === b.content;
}

export function commonPrefix(a: ChatMessage[], b: ChatMessage[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && sameMessage(a[i], b[i])) i++;
  return i;
}

/** Usage of one `usage_summary`: all models summed; cost from `total_cost` where given. */
export function usageOf(summary: unknown): Usage & { calls: number } {
  const s = asObj(summary);
  let inputTokens = 0;
  let outputTokens = 0;
  let calls = 0;
  let modelCost: number | null = null;
  for (const m of Object.values(asObj(s['model_usage_summaries']))) {
    const u = asObj(m);
    inputTokens += asNum(u['total_input_tokens']) ?? 0;
    outputTokens += asNum(u['total_output_tokens']) ?? 0;
    calls += asNum(u['total_calls']) ?? 0;
    const c = asNum(u['total_cost']);
    if (c !== null) modelCost = (modelCost ?? 0) + c;
  }
  const costUsd = asNum(s['total_cost']) ?? modelCost;
  return { inputTokens, outputTokens, costUsd, calls };
}

const CONTEXT_TYPES: Record<string, ContextType> = { str: 'string', list: 'array', dict: 'object', tuple: 'array' };

/** Context shape from the metadata message ("Your context is a str of 1364 total characters…"). */
export function contextFromMessages(messages: ChatMessage[]): ContextMeta {
  for (const m of messages.slice(0, 4)) {
    const r = /context is an? (\w+) (?:of|with) ([\d,]+) total characters/.exec(m.content);
    if (!r) continue;
    const totalChars = Number((r[2] ?? '0').replace(/,/g, ''));
    const chunks = /chunks of char lengths: \[([\d,\s]*)\]/.exec(m.content);
    const chunkLengths =
      chunks && chunks[1]
        ? chunks[1]
            .split(',')
            .map((x) => Number(x.trim()))
            .filter((x) => Number.isFinite(x))
        : [totalChars];
    return { type: CONTEXT_TYPES[r[1] ?? ''] ?? 'string', totalChars, chunkLengths };
  }
  return { type: 'string', totalChars: 0, chunkLengths: [] };
}

export function queryFromMessages(messages: ChatMessage[]): string | null {
  for (const m of messages.slice(0, 4)) {
    if (m.role !== 'user') continue;
    const r = /^Answer the following: ([\s\S]*?)\n\n/.exec(m.content);
    if (r) return r[1] ?? null;
  }
  return null;
}

/** `TypeError: …` from a Python traceback tail; the last such line wins. */
export function errorFromStderr(stderr: string): { name: string; message: string } | null {
  const text = stderr.trim();
  if (text === '') return null;
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const r = /^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Timeout|Iteration))(?::\s?(.*))?$/.exec((lines[i] ?? '').trim());
    if (r) return { name: (r[1] ?? 'Error').split('.').pop() ?? 'Error', message: r[2] ?? '' };
  }
  return { name: 'Error', message: text.length > 500 ? `${text.slice(0, 500)}…` : text };
}

export function variablesOf(locals: unknown): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(asObj(locals))) {
    if (k.startsWith('_')) continue;
    // Modules, functions and other non-simple values are serialised as "<kind 'name'>".
    if (typeof v === 'string' && /^<[\w.]+ /.test(v) && v.endsWith('>')) continue;
    out.push(k);
  }
  return out;
}

/**
 * The JSON of `v`, rendered only until it passes `limit` characters: the text so far, and
 * whether it is the whole value (a 40 MB context is never rendered in full).
 */
function jsonHead(v: unknown, limit: number): { text: string; whole: boolean } {
  const parts: string[] = [];
  let used = 0;
  const put = (t: string): boolean => {
    parts.push(t);
    used += t.length;
    return used <= limit;
  };
  const walk = (x: unknown): boolean => {
    if (x === null || typeof x === 'boolean' || typeof x === 'number') return put(JSON.stringify(x) ?? 'null');
    // A longer string is cut past the limit: the text is then too long, so never whole.
    if (typeof x === 'string') return put(JSON.stringify(x.length > limit ? x.slice(0, limit + 1) : x));
    if (Array.isArray(x)) {
      if (!put('[')) return false;
      for (let i = 0; i < x.length; i++) if ((i > 0 && !put(',')) || !walk(x[i])) return false;
      return put(']');
    }
    if (typeof x === 'object') {
      if (!put('{')) return false;
      let first = true;
      for (const k in x as Obj) {
        if (!Object.hasOwn(x, k)) continue;
        if ((!first && !put(',')) || !put(`${JSON.stringify(k)}:`) || !walk((x as Obj)[k])) return false;
        first = false;
      }
      return put('}');
    }
    return put('null');
  };
  const whole = walk(v);
  return { text: parts.join(''), whole };
}

/** One logged local, kept whole when short (see the header comment). */
function shortLocal(v: unknown): unknown {
  if (typeof v === 'string') return v.length <= LOCAL_CHARS ? v : `${v.slice(0, LOCAL_CHARS)}\u2026`;
  const head = jsonHead(v, LOCAL_CHARS);
  return head.whole ? v : `${head.text.slice(0, LOCAL_CHARS - 1)}\u2026`;
}

export function localsField(locals: unknown): { locals?: Record<string, unknown> } {
  if (!isObj(locals)) return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(locals))
    Object.defineProperty(out, k, { value: shortLocal(v), enumerable: true, writable: true, configurable: true });
  return { locals: out };
}

/** The pack our export wrote in `rlm_studio.prompts`, when it is whole. */
function packRef(ext: unknown): PromptPackRef | null {
  const p = isObj(ext) ? ext['prompts'] : null;
  return isObj(p) && typeof p['name'] === 'string' && typeof p['hash'] === 'string' ? { name: p['name'], hash: p['hash'] } : null;
}

export function readMetadata(o: Obj): RlmPythonMetadata {
  return {
    timestamp: typeof o['timestamp'] === 'string' ? o['timestamp'] : null,
    rootModel: asStr(o['root_model'], 'unknown'),
    maxDepth: asNum(o['max_depth']) ?? 1,
    maxIterations: asNum(o['max_iterations']) ?? 30,
    backend: asStr(o['backend'], 'openai'),
    repl: o['environment_type'] === ENVIRONMENT_TYPES.javascript ? 'javascript' : 'python',
    prompts: packRef(o['rlm_studio']),
    raw: o,
  };
}

export interface Entry {
  iteration: number;
  timestampMs: number | null;
  prompt: ChatMessage[];
  response: string;
  blocks: Obj[];
  finalAnswer: string | null;
  /** Seconds; null for the default-answer entry. */
  iterationTime: number | null;
  /** Our own export's extension: exact usage and latency of the reply. */
  studio: Obj | null;
}

export function readEntry(o: Obj): Entry {
  return {
    iteration: asNum(o['iteration']) ?? 0,
    timestampMs: parsePyTimestamp(o['timestamp']),
    prompt: asArr(o['prompt']).map(asMessage),
    response: asStr(o['response']),
    blocks: asArr(o['code_blocks']).map(asObj),
    finalAnswer: asAnswer(o['final_answer']),
    iterationTime: asNum(o['iteration_time']),
    studio: isObj(o['rlm_studio']) ? o['rlm_studio'] : null,
  };
}

export const isDefaultAnswer = (e: Entry): boolean => e.iterationTime === null && e.blocks.length === 0 && e.finalAnswer !== null;
