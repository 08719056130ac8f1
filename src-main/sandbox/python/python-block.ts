// What both Python REPLs (Pyodide's and CPython's) share on the host side, apart from where the
// interpreter runs: tool names checked as Python names, tool calls made from runtime.py's JSON,
// and a block's outcome read back with every field checked. No isolated-vm here: the CPython
// REPL runs in processes that must not load it.
import { toolError } from '../host-calls.ts';
import { checkToolNames, parseLocals, RESERVED_NAMES } from '../repl-support.ts';
import type { BlockState } from '../block-state.ts';
import type { ReplResetReason } from '../../../src-shared/events.ts';
import type { ExecResult, HostFunction, LocalValue, SandboxValue } from '../types.ts';
import type { PythonBlockOutcome } from './isolate-side.ts';
import { placeArguments, toolParameterNames } from './tool-arguments.ts';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PYTHON_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);
/** The types a block's result lists, as the reference's `REPL variables:` does. */
export const SIMPLE_TYPES = new Set(['str', 'int', 'float', 'bool', 'list', 'dict', 'tuple']);

export interface PythonTools {
  functions: Map<string, { fn: HostFunction; params: string[] | null }>;
  values: Record<string, SandboxValue>;
}

/** The tools split into functions and values; throws if a name is reserved or not a Python identifier. */
export function pythonTools(tools: Record<string, HostFunction | SandboxValue>): PythonTools {
  const reserved = new Set<string>([...RESERVED_NAMES, 'FINAL_VAR', 'FINAL']);
  checkToolNames(Object.keys(tools), reserved, (name) => IDENTIFIER.test(name) && !PYTHON_KEYWORDS.has(name), 'Python');
  const out: PythonTools = { functions: new Map(), values: {} };
  for (const [name, tool] of Object.entries(tools)) {
    if (typeof tool === 'function') out.functions.set(name, { fn: tool, params: toolParameterNames(tool) });
    else out.values[name] = tool;
  }
  return out;
}

/** Calls a tool with runtime.py's JSON arguments; answers `{ok}` or `{err}` as JSON. */
export async function callPythonTool(tools: PythonTools, name: string, payload: string): Promise<string> {
  const tool = tools.functions.get(name);
  if (!tool) return JSON.stringify({ err: { name: 'NameError', message: `${name} is not a tool` } });
  try {
    const { args, kwargs } = JSON.parse(payload, nonFiniteFloats) as { args: SandboxValue[]; kwargs: Record<string, SandboxValue> };
    const placed = placeArguments(name, tool.params, args, kwargs);
    if ('error' in placed) return JSON.stringify({ err: { name: 'TypeError', message: placed.error } });
    const value = await tool.fn(...(placed.args as SandboxValue[]));
    return value === undefined ? '{}' : JSON.stringify({ ok: value });
  } catch (err) {
    return toolError(err);
  }
}

/** The interpreter's outcome, its `locals` read back as JSON values. */
export type ParsedPythonOutcome = Omit<PythonBlockOutcome, 'locals'> & { locals?: Record<string, LocalValue> };

export function parseOutcome(raw: unknown): ParsedPythonOutcome {
  const v = JSON.parse(String(raw)) as Partial<PythonBlockOutcome>;
  const e = v.error;
  const error =
    e && typeof e === 'object' && typeof e.name === 'string' && typeof e.message === 'string' ? { name: e.name, message: e.message } : null;
  const d = Array.isArray(v.dropped) ? v.dropped : [0, 0];
  const num = (n: unknown): number => (typeof n === 'number' && Number.isFinite(n) ? n : 0);
  const locals = parseLocals(v.locals);
  return {
    stdout: typeof v.stdout === 'string' ? v.stdout : '',
    stderr: typeof v.stderr === 'string' ? v.stderr : '',
    dropped: [num(d[0]), num(d[1])],
    error,
    variables: Array.isArray(v.variables) ? v.variables.filter((x): x is string => typeof x === 'string') : [],
    ...(locals ? { locals } : {}),
    submitted: typeof v.submitted === 'string' ? v.submitted : null,
    outOfMemory: v.outOfMemory === true,
  };
}

/** Reads back a float the runtime tagged because JSON cannot hold it (`_host_json` in runtime.py). */
function nonFiniteFloats(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const tag = (value as Record<string, unknown>)['$float'];
  return keys.length === 1 && (tag === 'NaN' || tag === 'Infinity' || tag === '-Infinity') ? Number(tag) : value;
}

/** How long a block took: wall time and the interpreter's CPU time. */
export interface BlockTiming {
  durationMs: number;
  cpuMs: number;
}

/** A block the interpreter finished: its output appended to what streamed, as both Python REPLs report it. */
export function finishedBlockResult(
  block: BlockState,
  outcome: ParsedPythonOutcome,
  timing: BlockTiming,
  replReset: ReplResetReason | null,
): ExecResult {
  block.stdout.append(outcome.stdout, outcome.dropped[0]);
  block.stderr.append(outcome.stderr, outcome.dropped[1]);
  return {
    ...timing,
    stdout: block.stdout.text(),
    stderr: block.stderr.text(),
    error: outcome.error,
    variables: outcome.variables,
    ...(outcome.locals ? { locals: outcome.locals } : {}),
    submitted: outcome.submitted,
    replReset,
  };
}

/** A block whose REPL was disposed while it ran. */
export function disposedBlockResult(block: BlockState, timing: BlockTiming): ExecResult {
  return {
    ...timing,
    stdout: block.stdout.text(),
    stderr: block.stderr.text(),
    error: { name: 'RuntimeError', message: 'The REPL was disposed while the block ran.' },
    variables: [],
    submitted: null,
    replReset: null,
  };
}
