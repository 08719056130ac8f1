// Source transform that gives a JavaScript block REPL semantics (see README.md).
//
// Each block is evaluated as global code in the isolate. Plain script semantics would make a
// second `const x` in a later block a SyntaxError and would lose `let`/`const` inside an async
// wrapper, so every declaration that would bind a name in the block's top-level scope becomes an
// assignment to a global property instead; the sandbox runtime pre-creates those properties
// (`names`) before evaluating, so the assignments also work under "use strict".
import { parse } from 'acorn';
import type { Node, Pattern, Program, VariableDeclaration } from 'acorn';

export interface TransformedBlock {
  ok: true;
  /** Code to evaluate with an indirect eval; if `isAsync`, it evaluates to a Promise. */
  code: string;
  /** The block uses top-level `await` and is wrapped in an async arrow function. */
  isAsync: boolean;
  /** Names the block declares at its top level; they must exist on globalThis beforehand. */
  names: string[];
}

interface TransformSyntaxError {
  ok: false;
  error: { name: 'SyntaxError'; message: string; line: number; column: number };
}

export type TransformResult = TransformedBlock | TransformSyntaxError;

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Nodes with their own `var` scope. */
const SCOPE_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression', 'StaticBlock']);

/**
 * A block with the syntax models' code is made of. Parsed once while the REPL waits for its first
 * block, it has the parser's code compiled before that block comes: parsed cold, each of a
 * run's first two blocks took 2-4 ms more (measured in a fresh process, compile cache or not).
 */
const WARM_UP_BLOCK = `const lines = context.split('\\n').filter((l) => /ERROR|magic number is (\\d+)/.test(l));
let total = 0, seen = {};
for (const [i, line] of lines.entries()) { if (i > 2) break; total += line.length; seen[line.slice(0, 8)] = \`\${i}: \${line}\`; }
async function ask(part) { return await llm_query(\`Count: \${part}\`); }
const parts = Array.from({ length: 3 }, (_, k) => context.slice(k * 10, (k + 1) * 10));
const answers = await Promise.all(parts.map(ask));
class Tally { n = 0; add(x) { this.n += Number(x) || 0; return this; } }
const t = answers.reduce((acc, a) => acc.add(a), new Tally());
print(JSON.stringify({ total, n: t.n, keys: Object.keys(seen) }), typeof answer === 'object' ? answer.ready : null);`;

let warmed = false;

/** Transforms WARM_UP_BLOCK the first time it is called in a process (its result), then does nothing (null). */
export function warmUpTransform(): TransformResult | null {
  if (warmed) return null;
  warmed = true;
  return transformBlock(WARM_UP_BLOCK);
}

export function transformBlock(source: string): TransformResult {
  // A hashbang is only legal at offset 0, which the async wrapper would move.
  const code = source.startsWith('#!') ? `//${source.slice(2)}` : source;
  let program: Program;
  try {
    program = parse(code, {
      ecmaVersion: 'latest',
      sourceType: 'script',
      allowAwaitOutsideFunction: true,
      locations: true,
    });
  } catch (err) {
    return syntaxError(err);
  }

  const isAsync = containsTopLevelAwait(program);
  const names: string[] = [];
  const seen = new Set<string>();
  const addName = (name: string): void => {
    if (!seen.has(name)) {
      seen.add(name);
      names.push(name);
    }
  };
  const edits: Edit[] = [];
  const hoisted: string[] = [];

  for (const stmt of program.body) {
    if (stmt.type === 'FunctionDeclaration') {
      const fn = stmt;
      addName(fn.id.name);
      // Hoisted to the start of the block, like a declaration, but as a global assignment.
      hoisted.push(`${fn.id.name} = ${code.slice(fn.start, fn.end)};\n`);
      edits.push({ start: fn.start, end: fn.end, text: keepNewlines(code.slice(fn.start, fn.end)) });
    } else if (stmt.type === 'ClassDeclaration') {
      const cls = stmt;
      addName(cls.id.name);
      edits.push({ start: cls.start, end: cls.start, text: `void (${cls.id.name} = ` });
      edits.push({ start: cls.end, end: cls.end, text: ');' });
    } else if (stmt.type === 'VariableDeclaration') {
      rewriteDeclaration(stmt, null, code, edits, addName);
    }
  }
  // `var` anywhere outside functions is also top-level scope (it would be local to the async
  // wrapper, or to a strict-mode eval), so nested ones are rewritten too.
  walk(program, null, null, (node, parent, key) => {
    if (node.type !== 'VariableDeclaration') return;
    const decl = node as VariableDeclaration;
    if (decl.kind !== 'var' || parent === program) return;
    rewriteDeclaration(decl, forHeadKey(parent, key), code, edits, addName);
  });

  edits.sort((a, b) => a.start - b.start || a.end - b.end);
  let body = '';
  let pos = 0;
  for (const edit of edits) {
    body += code.slice(pos, edit.start) + edit.text;
    pos = edit.end;
  }
  body += code.slice(pos);
  const prelude = hoisted.join('');
  const out = isAsync ? `(async () => {${prelude}${body}\n})()` : `${prelude}${body}`;
  return { ok: true, code: out, isAsync, names };
}

/** `const a = 1, {b} = o;` → `void (a = 1, {b} = o);`; in a for-head just drops the keyword. */
function rewriteDeclaration(
  decl: VariableDeclaration,
  inForHead: boolean | null,
  code: string,
  edits: Edit[],
  addName: (name: string) => void,
): void {
  if (decl.kind !== 'var' && decl.kind !== 'let' && decl.kind !== 'const') return; // `using` stays block-scoped
  for (const d of decl.declarations) collectNames(d.id, addName);
  const kwEnd = decl.start + decl.kind.length;
  if (inForHead) {
    edits.push({ start: decl.start, end: kwEnd, text: '' });
    return;
  }
  // `void (` cannot continue the previous line's expression, so ASI-reliant code stays correct,
  // and unlike a leading `;` it is safe as the lone body of an `if`/loop.
  edits.push({ start: decl.start, end: kwEnd, text: 'void (' });
  for (const d of decl.declarations) {
    if (!d.init && decl.kind === 'let') edits.push({ start: d.end, end: d.end, text: ' = void 0' });
  }
  const last = decl.declarations[decl.declarations.length - 1];
  if (!last) return;
  const endsWithSemicolon = code.slice(last.end, decl.end).includes(';');
  edits.push({ start: last.end, end: last.end, text: endsWithSemicolon ? ')' : ');' });
}

function forHeadKey(parent: Node | null, key: string | null): boolean {
  if (!parent) return false;
  if (parent.type === 'ForStatement') return key === 'init';
  if (parent.type === 'ForInStatement' || parent.type === 'ForOfStatement') return key === 'left';
  return false;
}

function collectNames(pattern: Pattern, add: (name: string) => void): void {
  switch (pattern.type) {
    case 'Identifier':
      add(pattern.name);
      return;
    case 'ObjectPattern':
      for (const prop of pattern.properties) {
        if (prop.type === 'RestElement') collectNames(prop.argument, add);
        else collectNames(prop.value, add);
      }
      return;
    case 'ArrayPattern':
      for (const el of pattern.elements) if (el) collectNames(el, add);
      return;
    case 'RestElement':
      collectNames(pattern.argument, add);
      return;
    case 'AssignmentPattern':
      collectNames(pattern.left, add);
      return;
    default:
      return; // MemberExpression targets cannot appear in declarations.
  }
}

/** Visits every node outside nested functions and static blocks (their scopes are their own). */
function walk(
  node: Node,
  parent: Node | null,
  key: string | null,
  visit: (node: Node, parent: Node | null, key: string | null) => void,
): void {
  visit(node, parent, key);
  for (const [childKey, value] of Object.entries(node)) {
    if (childKey === 'loc') continue;
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item) && !SCOPE_TYPES.has(item.type)) walk(item, node, childKey, visit);
    } else if (isNode(value) && !SCOPE_TYPES.has(value.type)) {
      walk(value, node, childKey, visit);
    }
  }
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

function containsTopLevelAwait(program: Program): boolean {
  let found = false;
  walk(program, null, null, (node) => {
    if (node.type === 'AwaitExpression') found = true;
    if (node.type === 'ForOfStatement' && (node as Node & { await?: boolean }).await) found = true;
    if (node.type === 'VariableDeclaration' && (node as VariableDeclaration).kind === 'await using') found = true;
  });
  return found;
}

function keepNewlines(text: string): string {
  return text.replace(/[^\n]/g, '');
}

function syntaxError(err: unknown): TransformSyntaxError {
  const loc = (err as { loc?: { line?: unknown; column?: unknown } }).loc;
  const line = typeof loc?.line === 'number' ? loc.line : 0;
  const column = typeof loc?.column === 'number' ? loc.column + 1 : 0;
  const raw = err instanceof Error ? err.message : String(err);
  // acorn appends "(line:col)" with a 0-based column; say it in words, 1-based.
  const base = raw.replace(/\s*\(\d+:\d+\)\s*$/, '');
  const message = line > 0 ? `${base} (line ${line}, column ${column})` : base;
  return { ok: false, error: { name: 'SyntaxError', message, line, column } };
}
