// What both REPLs need around their own engine: limits read from the options, tool names
// checked, operations run one at a time, and listed variables read back from JSON.
import type { BlockError } from '../../src-shared/events.ts';
import type { LocalValue, ReplOptions, VariableInfo } from './types.ts';

/** Names the code relies on; tools may not take them and blocks cannot keep them overwritten. */
export const RESERVED_NAMES = [
  'context',
  'llm_query',
  'llm_query_batched',
  'rlm_query',
  'rlm_query_batched',
  'SHOW_VARS',
  'answer',
  'history',
  'print',
] as const;

export interface ReplLimits {
  memoryLimitMb: number;
  cpuLimitMs: number;
  wallLimitMs: number;
  outputCapChars: number;
}

/** The options' limits, each checked, with the REPL's own defaults. */
export function replLimits(options: ReplOptions, defaults: ReplLimits): ReplLimits {
  return {
    memoryLimitMb: positive(options.memoryLimitMb, defaults.memoryLimitMb, 'memoryLimitMb'),
    cpuLimitMs: positive(options.cpuLimitMs, defaults.cpuLimitMs, 'cpuLimitMs'),
    wallLimitMs: positive(options.wallLimitMs, defaults.wallLimitMs, 'wallLimitMs'),
    outputCapChars: positive(options.outputCapChars, defaults.outputCapChars, 'outputCapChars'),
  };
}

/** Throws unless every tool name is free (not reserved) and usable in the REPL's language. */
export function checkToolNames(names: string[], reserved: Set<string>, usable: (name: string) => boolean, language: string): void {
  const conflicts = names.filter((name) => reserved.has(name));
  if (conflicts.length > 0) throw new Error(`Custom tool names conflict with reserved REPL names: ${conflicts.join(', ')}`);
  const invalid = names.filter((name) => !usable(name));
  if (invalid.length > 0) throw new Error(`Custom tool names must be ${language} identifiers: ${invalid.join(', ')}`);
}

/** Runs operations one at a time (an isolate has one thread and a block's state is global). */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();
  readonly #closed: () => boolean;

  constructor(closed: () => boolean) {
    this.#closed = closed;
  }

  run<T>(op: () => Promise<T>): Promise<T> {
    const next = this.#tail.then(() => {
      if (this.#closed()) throw new Error('The REPL has been disposed.');
      return op();
    });
    this.#tail = next.catch(() => undefined);
    return next;
  }
}

/** An isolate's control function, as both REPLs hold it (ops in runtime.ts and python/isolate-side.ts). */
interface Control {
  apply(receiver: undefined, args: [op: string, arg: string], options: { timeout: number }): Promise<unknown>;
}

/** The variables the isolate behind `control` lists (its `list` op), each field checked; none when it cannot answer. */
export async function listVariablesOf(control: Control, timeoutMs: number): Promise<VariableInfo[]> {
  try {
    return parseListed(await control.apply(undefined, ['list', ''], { timeout: timeoutMs }));
  } catch {
    return [];
  }
}

/** The REPL's JSON list of variables, each field checked. */
export function parseListed(raw: unknown): VariableInfo[] {
  const value = JSON.parse(String(raw)) as unknown;
  if (!Array.isArray(value)) return [];
  const out: VariableInfo[] = [];
  for (const item of value as Partial<VariableInfo>[]) {
    if (!item || typeof item.name !== 'string') continue;
    out.push({
      name: item.name,
      type: typeof item.type === 'string' ? item.type : 'unknown',
      size: typeof item.size === 'number' ? item.size : null,
      preview: typeof item.preview === 'string' ? item.preview.slice(0, 200) : '',
    });
  }
  return out;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${value}`);
  return value;
}

export function checkIndex(index: number): void {
  if (!Number.isInteger(index) || index < 0) throw new Error(`index must be a non-negative integer, got ${index}`);
}

/** A block's `locals` from the REPL's JSON outcome (so JSON values); names are kept as data. */
function parseLocals(raw: unknown): Record<string, LocalValue> | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const out: Record<string, LocalValue> = {};
  for (const [name, value] of Object.entries(raw as Record<string, LocalValue>)) {
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The fields of a block's JSON outcome that every REPL's runtime reports. */
export interface OutcomeFields {
  error: BlockError | null;
  variables: string[];
  /** Characters of stdout and stderr the runtime did not send. */
  dropped: [number, number];
  locals?: Record<string, LocalValue>;
}

/** Those fields of an outcome the runtime wrote as JSON, each checked. */
export function parseOutcomeFields(value: Partial<Record<keyof OutcomeFields, unknown>>): OutcomeFields {
  const e = value.error as Partial<BlockError> | null | undefined;
  const error =
    e && typeof e === 'object' && typeof e.name === 'string' && typeof e.message === 'string' ? { name: e.name, message: e.message } : null;
  const variables = Array.isArray(value.variables) ? value.variables.filter((v): v is string => typeof v === 'string') : [];
  const d: unknown[] = Array.isArray(value.dropped) ? value.dropped : [0, 0];
  const num = (n: unknown): number => (typeof n === 'number' && Number.isFinite(n) ? n : 0);
  const locals = parseLocals(value.locals);
  return { error, variables, ...(locals ? { locals } : {}), dropped: [num(d[0]), num(d[1])] };
}
