// What both Python REPLs (Pyodide's and CPython's) share on the host side, apart from where the
// interpreter runs: tool names checked as Python names, tool calls made from runtime.py's JSON,
// runtime.py's setup config, the reset error's Python terms, and a block's outcome read back with
// every field checked. No isolated-vm here: the CPython
// REPL runs in processes that must not load it.
import { toolError } from '../host-calls.ts';
import { checkToolNames, parseOutcomeFields, type ReplLimits, RESERVED_NAMES } from '../repl-support.ts';
import type { BlockTiming } from '../block-runner.ts';
import type { BlockState } from '../block-state.ts';
import type { ResetTerms } from '../reset-error.ts';
import type { ReplResetReason } from '../../../src-shared/events.ts';
import type { ReplTexts } from '../../../src-shared/repl-texts.ts';
import type { ExecResult, FinalVarRules, HostFunction, LocalValue, SandboxValue } from '../types.ts';
import type { PythonBlockOutcome } from './isolate-side.ts';
import { placeArguments, toolParameterNames } from './tool-arguments.ts';

/** How much output runtime.py holds back before sending it to the host, in characters. */
const FLUSH_CHARS = 64 * 1024;
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
  const v = JSON.parse(String(raw)) as Partial<Record<keyof PythonBlockOutcome, unknown>>;
  return {
    ...parseOutcomeFields(v),
    stdout: typeof v.stdout === 'string' ? v.stdout : '',
    stderr: typeof v.stderr === 'string' ? v.stderr : '',
    submitted: typeof v.submitted === 'string' ? v.submitted : null,
    outOfMemory: v.outOfMemory === true,
  };
}

/** runtime.py's `setup` config, the same for both Python REPLs (the CPython REPL adds its rlimits). */
export function pythonRuntimeConfig(
  limits: ReplLimits,
  tools: PythonTools,
  finalVar: FinalVarRules | null,
  compaction: boolean,
  texts: ReplTexts,
) {
  return {
    output_cap: limits.outputCapChars,
    flush_chars: FLUSH_CHARS,
    tool_functions: [...tools.functions.keys()],
    tool_values: JSON.stringify(tools.values),
    final_var: finalVar !== null,
    ...(finalVar === null
      ? {}
      : {
          final_var_not_found: finalVar.notFound,
          final_var_no_variables: finalVar.noVariables,
          final_var_block_start: finalVar.blockStart,
        }),
    compaction,
    show_vars: texts.showVars,
    show_vars_empty: texts.showVarsEmpty,
    empty_prompt: texts.emptyPrompt,
    bad_prompts: texts.badPrompts,
  };
}

/** Reads back a float the runtime tagged because JSON cannot hold it (`_host_json` in runtime.py). */
function nonFiniteFloats(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const tag = (value as Record<string, unknown>)['$float'];
  return keys.length === 1 && (tag === 'NaN' || tag === 'Infinity' || tag === '-Infinity') ? Number(tag) : value;
}

/** How a reset error words the limits in Python's terms (`memoryLimitMb`: the limit the interpreter had). */
export function pythonResetTerms(limits: ReplLimits, memoryLimitMb: number): ResetTerms {
  return {
    cpuLimitMs: limits.cpuLimitMs,
    wallLimitMs: limits.wallLimitMs,
    memoryLimitMb,
    memoryError: 'MemoryError',
    crashError: 'SystemError',
    crashed: 'The Python interpreter',
  };
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
