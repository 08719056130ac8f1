// Custom tools from a user's ES module (`--tools FILE.mjs`): every named export is a tool
// named after it, either a value (a function, or JSON-like data) or `{ fn, description }`
// (`{ value, description }` for described data). The same tools serve both REPLs.
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fileErrorText } from '../../src-shared/file-errors.ts';
import type { HostFunction, SandboxValue } from '../sandbox/types.ts';
import type { ToolSpec } from './config.ts';

export class ToolsModuleError extends Error {
  override name = 'ToolsModuleError';
}

/** A name both REPLs can bind: a JavaScript and a Python identifier. */
const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Why `value` cannot be copied into a sandbox, or null when it can. */
function whyNotData(value: unknown, path: string, seen: Set<object>): string | null {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return null;
  if (typeof value === 'number') return Number.isFinite(value) ? null : `${path} is ${value}, which JSON cannot carry`;
  if (typeof value === 'function') return `${path} is a function; only top-level exports may be functions`;
  if (typeof value !== 'object') return `${path} is a ${typeof value}, which cannot be copied into the REPL`;
  if (seen.has(value)) return `${path} refers back to itself`;
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const why = whyNotData(value[i], `${path}[${i}]`, seen);
        if (why) return why;
      }
      return null;
    }
    const proto = Object.getPrototypeOf(value) as object | null;
    if (proto !== Object.prototype && proto !== null) {
      return `${path} is a ${value.constructor?.name ?? 'non-plain'} object; use plain objects, arrays, strings, numbers, booleans and null`;
    }
    for (const [k, v] of Object.entries(value)) {
      const why = whyNotData(v, `${path}.${k}`, seen);
      if (why) return why;
    }
    return null;
  } finally {
    seen.delete(value);
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as object | null;
  return proto === Object.prototype || proto === null;
}

/** One export as a tool, or a message saying what is wrong with it. */
function toTool(name: string, exported: unknown, file: string): ToolSpec {
  const fail = (why: string): never => {
    throw new ToolsModuleError(`--tools ${file}: export \`${name}\`: ${why}`);
  };
  if (!TOOL_NAME.test(name)) fail('the name must be a plain identifier (letters, digits, _; no $), usable from JavaScript and Python');
  if (typeof exported === 'function') return { value: exported as HostFunction };
  if (isPlainObject(exported)) {
    const keys = Object.keys(exported);
    const described = keys.includes('description') && keys.every((k) => k === 'fn' || k === 'value' || k === 'description');
    if (described && keys.length === 2) {
      const description = exported['description'];
      if (typeof description !== 'string' || description.trim() === '') fail('`description` must be a non-empty string');
      if ('fn' in exported) {
        if (typeof exported['fn'] !== 'function') fail(`\`fn\` must be a function, got ${typeof exported['fn']}`);
        return { value: exported['fn'] as HostFunction, description: description as string };
      }
      const why = whyNotData(exported['value'], `${name}.value`, new Set());
      if (why) fail(why);
      return { value: exported['value'] as SandboxValue, description: description as string };
    }
    if (keys.includes('fn')) fail('a tool object has exactly `fn` and `description` (a non-empty string)');
  }
  if (exported === undefined) fail('it is undefined');
  const why = whyNotData(exported, name, new Set());
  if (why) fail(why);
  return { value: exported as SandboxValue };
}

/**
 * Imports `path` and returns its exports as tools. A default export that is a plain object
 * counts as more named exports; any other default export is refused (a tool needs a name).
 */
export async function loadToolsModule(path: string): Promise<Record<string, ToolSpec>> {
  const abs = resolve(path);
  let isFile: boolean;
  try {
    isFile = statSync(abs).isFile();
  } catch (err) {
    throw new ToolsModuleError(`--tools ${path}: cannot read it: ${fileErrorText(err)}`);
  }
  if (!isFile) throw new ToolsModuleError(`--tools ${path} is not a file`);
  if (!/\.(mjs|js)$/i.test(abs)) throw new ToolsModuleError(`--tools ${path}: expected an ES module (.mjs)`);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(abs).href)) as Record<string, unknown>;
  } catch (err) {
    const e = err as Error;
    throw new ToolsModuleError(`--tools ${path} could not be loaded: ${e.name === 'Error' ? '' : `${e.name}: `}${e.message}`);
  }
  const entries: [string, unknown][] = Object.entries(mod).filter(([k]) => k !== 'default');
  if ('default' in mod) {
    const d = mod['default'];
    if (!isPlainObject(d)) {
      throw new ToolsModuleError(
        `--tools ${path}: the default export must be a plain object of tools; export each tool by name instead (export const name = …)`,
      );
    }
    for (const [k, v] of Object.entries(d)) {
      if (k in mod && k !== 'default')
        throw new ToolsModuleError(`--tools ${path}: \`${k}\` is both a named export and a key of the default export`);
      entries.push([k, v]);
    }
  }
  if (entries.length === 0) throw new ToolsModuleError(`--tools ${path} exports nothing; export each tool by name (export const name = …)`);
  return Object.fromEntries(entries.map(([name, v]) => [name, toTool(name, v, path)]));
}
