// The bundled command line takes Node's built-in modules with `process.getBuiltinModule`
// instead of `import`. An ES module import of a built-in makes Node build its ES facade, which
// reads every export once, lazy getters included: `node:fs` thereby loads its streams,
// `fs/promises` and readline (~10-15 ms of a whole-process `run`'s start-up, none of it used).
// `process.getBuiltinModule` returns the CommonJS exports as they are.
import { builtinModules } from 'node:module';

const BUILTINS = new Set(builtinModules);

/** `node:fs`, `fs`, `fs/promises`… (the bundle leaves these outside, cli-build.ts). */
export function isBuiltin(spec: string): boolean {
  return spec.startsWith('node:') || BUILTINS.has(spec);
}

/** `a as b, c` (an import's named list) as declarations from `mod`: `{ a: b, c } = mod`, and `x = mod` for `default as x`. */
function fromNamed(named: string, mod: string): string[] {
  const specs = named
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s): [string, string] => {
      const m = /^(\S+)\s+as\s+(\S+)$/.exec(s);
      return m ? [m[1]!, m[2]!] : [s, s];
    });
  const defaults = specs.filter(([name]) => name === 'default').map(([, local]) => `${local} = ${mod}`);
  const rest = specs.filter(([name]) => name !== 'default').map(([name, local]) => (name === local ? name : `${name}: ${local}`));
  return [...defaults, ...(rest.length > 0 ? [`{ ${rest.join(', ')} } = ${mod}`] : [])];
}

// One import statement on its own line, as bundlers print them: default, namespace, named, or
// default and named together; or a bare `import "x";`.
const IMPORT = /^import\s+(?:\*\s+as\s+([\w$]+)|([\w$]+)\s*,\s*\{([^}]*)\}|([\w$]+)|\{([^}]*)\})\s+from\s+"([^"]+)";?\s*$/;
const BARE_IMPORT = /^import\s+"([^"]+)";?\s*$/;

function rewrite(line: string): string {
  const bare = BARE_IMPORT.exec(line);
  if (bare) return isBuiltin(bare[1]!) ? `globalThis.process.getBuiltinModule(${JSON.stringify(bare[1])});` : line;
  const m = IMPORT.exec(line);
  if (!m || !isBuiltin(m[6]!)) return line;
  const [, namespace, defWithNamed, namedWithDef, def, named, spec] = m;
  // globalThis: the chunk may bind a `process` of its own (`import process from "node:process"`).
  const get = `globalThis.process.getBuiltinModule(${JSON.stringify(spec)})`;
  const local = namespace ?? defWithNamed ?? def;
  if (local !== undefined) return `const ${[`${local} = ${get}`, ...fromNamed(namedWithDef ?? '', local)].join(', ')};`;
  return `const ${fromNamed(named ?? '', get).join(', ')};`;
}

/**
 * `code` (a bundle's chunk) with the static imports of built-ins in its leading import block
 * turned into `process.getBuiltinModule` calls. Only that block: a line further down that looks
 * like an import is a string's text.
 */
export function builtinImportsAtRuntime(code: string): string {
  const lines = code.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('import ')) lines[i] = rewrite(line);
    else if (!(line.trim() === '' || line.startsWith('//') || line.startsWith('#!'))) break;
  }
  return lines.join('\n');
}
