// Python calls tools with keyword arguments (`convert_currency(12.5, to="USD")`); a tool is a
// JavaScript function with positional parameters. Its parameter names, read from its source,
// say where each keyword goes.
import { parseExpressionAt } from 'acorn';
import type { Node, Pattern } from 'acorn';
import type { HostFunction, SandboxValue } from '../types.ts';

/** Parameter names declared for stand-ins whose own source says nothing (`withParameterNames`). */
const declared = new WeakMap<HostFunction, string[]>();

/**
 * `fn`, a stand-in for a tool elsewhere (a sandbox process calls its parent's tools through
 * `(...args) => …`), with that tool's parameter names, so keyword arguments find their place.
 */
export function withParameterNames(fn: HostFunction, names: string[]): HostFunction {
  declared.set(fn, names);
  return fn;
}

/** The names of a function's leading simple parameters, or null when they cannot be read. */
export function toolParameterNames(fn: HostFunction): string[] | null {
  const known = declared.get(fn);
  if (known) return known;
  const source = Function.prototype.toString.call(fn);
  // Method shorthand (`convert(a, b) {…}`) is not an expression; as an object member it is.
  for (const text of [`(${source})`, `({${source}})`]) {
    try {
      const node = parseExpressionAt(text, 0, { ecmaVersion: 'latest' }) as Node;
      const fnNode = unwrap(node);
      if (fnNode) return namesOf(fnNode.params);
    } catch {
      // try the next reading
    }
  }
  return null;
}

interface FunctionLike {
  params: Pattern[];
}

function unwrap(node: Node): FunctionLike | null {
  if (node.type === 'FunctionExpression' || node.type === 'ArrowFunctionExpression') return node as unknown as FunctionLike;
  if (node.type === 'ObjectExpression') {
    const first = (node as unknown as { properties: { value?: Node }[] }).properties[0];
    if (first?.value && first.value.type === 'FunctionExpression') return first.value as unknown as FunctionLike;
  }
  return null;
}

function namesOf(params: Pattern[]): string[] {
  const names: string[] = [];
  for (const p of params) {
    if (p.type === 'Identifier') names.push(p.name);
    else if (p.type === 'AssignmentPattern' && p.left.type === 'Identifier') names.push(p.left.name);
    else break;
  }
  return names;
}

/** Positional arguments with each keyword put in its parameter's place (gaps left undefined). */
export function placeArguments(
  tool: string,
  params: string[] | null,
  args: SandboxValue[],
  kwargs: Record<string, SandboxValue>,
): { args: (SandboxValue | undefined)[] } | { error: string } {
  const keys = Object.keys(kwargs);
  if (keys.length === 0) return { args };
  const placed: (SandboxValue | undefined)[] = [...args];
  for (const key of keys) {
    const at = params ? params.indexOf(key) : -1;
    if (at < 0) return { error: `${tool}() got an unexpected keyword argument '${key}'` };
    if (at < args.length) return { error: `${tool}() got multiple values for argument '${key}'` };
    while (placed.length < at) placed.push(undefined);
    placed[at] = kwargs[key];
  }
  return { args: placed };
}
