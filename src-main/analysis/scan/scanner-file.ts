// Scanner files (`scan --scanner FILE`): a JSON rule (a JSONata condition over a scope of the
// session document), a JSON model scanner (a question for a model about each trajectory), or
// an ES module whose `scan` function returns findings — loaded like `--scorer` modules. The
// scanner's hash (sha256 of the file's bytes) goes with every finding, so a finding always says
// which version of the scanner made it.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import jsonata from 'jsonata';
import { compileQuery, QueryError, type CompiledQuery } from '../../../src-shared/analysis/query.ts';
import { SCANNER_ID } from '../../../src-shared/analysis/scan-findings.ts';
import { fileErrorText } from '../../../src-shared/file-errors.ts';
import type { ScanDocument } from './scan-document.ts';

export class ScannerFileError extends Error {
  override name = 'ScannerFileError';
}

/** Where a rule's condition is evaluated: once on the session, or on each run, iteration or sub-call. */
type RuleScope = 'session' | 'run' | 'iteration' | 'call';
const SCOPES: readonly RuleScope[] = ['session', 'run', 'iteration', 'call'];

/** What a module's `scan` may return for one finding. */
export interface ModuleFinding {
  target?: string;
  explanation?: string;
  evidence?: string[];
}

interface Common {
  id: string;
  path: string;
  hash: string;
  description: string | null;
}

interface RuleScanner extends Common {
  kind: 'rule';
  /** The expression run over the session document (the condition wrapped for its scope). */
  query: CompiledQuery;
  scope: RuleScope | 'query';
}

interface ModuleScanner extends Common {
  kind: 'module';
  scan: (doc: ScanDocument) => Promise<unknown>;
}

interface ModelScanner extends Common {
  kind: 'model';
  question: string;
  /** The trajectory's rendering is kept within this many characters. */
  budgetChars: number;
}

export type Scanner = RuleScanner | ModuleScanner | ModelScanner;

const DEFAULT_BUDGET_CHARS = 24_000;

function hashOf(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 16);
}

function checkId(id: unknown, path: string, from: string): string {
  if (typeof id !== 'string' || !SCANNER_ID.test(id))
    throw new ScannerFileError(
      `--scanner ${path}: ${from} must be a scanner id of 1-40 letters, digits, "-" or "_" (it names labels scan.ID.confirmed), got ${JSON.stringify(id)}`,
    );
  return id;
}

function fileId(abs: string): string {
  return basename(abs).replace(/\.(scanner\.)?(json|mjs|js)$/i, '');
}

/** The expression that evaluates `condition` in `scope`; its syntax is checked alone first, so errors point into the user's text. */
function ruleQuery(path: string, scope: RuleScope, condition: string): CompiledQuery {
  try {
    jsonata(condition);
  } catch (err) {
    const e = err as { message?: string; position?: number };
    throw new ScannerFileError(
      `--scanner ${path}: bad "when" condition${typeof e.position === 'number' ? ` at character ${e.position}` : ''}: ${e.message ?? String(err)}`,
    );
  }
  const wrapped = {
    session: `(${condition}) ? true : false`,
    run: `runs[${condition}]`,
    iteration: `runs.iterations[${condition}]`,
    call: `calls[${condition}]`,
  }[scope];
  return compileQuery(wrapped);
}

function loadJson(abs: string, path: string, bytes: Buffer): Scanner {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new ScannerFileError(`--scanner ${path}: not JSON (${(err as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ScannerFileError(`--scanner ${path}: a scanner file holds one JSON object`);
  const o = value as Record<string, unknown>;
  const known = new Set(['id', 'kind', 'description', 'scope', 'when', 'query', 'question', 'budgetChars']);
  const extra = Object.keys(o).filter((k) => !known.has(k));
  if (extra.length > 0)
    throw new ScannerFileError(`--scanner ${path}: unknown field(s) ${extra.join(', ')} (known: ${[...known].join(', ')})`);
  const id = o['id'] === undefined ? checkId(fileId(abs), path, 'its file name (no "id" given)') : checkId(o['id'], path, '"id"');
  const description = o['description'];
  if (description !== undefined && typeof description !== 'string')
    throw new ScannerFileError(`--scanner ${path}: "description" must be a string`);
  const common = { id, path: abs, hash: hashOf(bytes), description: description ?? null };
  if (o['kind'] === 'rule') {
    const when = o['when'];
    const query = o['query'];
    if ((when === undefined) === (query === undefined))
      throw new ScannerFileError(
        `--scanner ${path}: a rule has either "when" (a condition, with "scope") or "query" (an expression as for rlm-studio query)`,
      );
    if (query !== undefined) {
      if (typeof query !== 'string' || query.trim() === '')
        throw new ScannerFileError(`--scanner ${path}: "query" must be a JSONata expression`);
      try {
        return { ...common, kind: 'rule', scope: 'query', query: compileQuery(query) };
      } catch (err) {
        if (err instanceof QueryError) throw new ScannerFileError(`--scanner ${path}: ${err.message}`);
        throw err;
      }
    }
    if (typeof when !== 'string' || when.trim() === '') throw new ScannerFileError(`--scanner ${path}: "when" must be a JSONata condition`);
    const scope = o['scope'] ?? 'session';
    if (!SCOPES.includes(scope as RuleScope))
      throw new ScannerFileError(`--scanner ${path}: "scope" must be one of ${SCOPES.join(', ')}, got ${JSON.stringify(scope)}`);
    return { ...common, kind: 'rule', scope: scope as RuleScope, query: ruleQuery(path, scope as RuleScope, when) };
  }
  if (o['kind'] === 'model') {
    const question = o['question'];
    if (typeof question !== 'string' || question.trim() === '')
      throw new ScannerFileError(`--scanner ${path}: a model scanner needs "question", what to ask the model about each trajectory`);
    const budget = o['budgetChars'] ?? DEFAULT_BUDGET_CHARS;
    if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < 2000)
      throw new ScannerFileError(`--scanner ${path}: "budgetChars" must be a whole number of at least 2000`);
    return { ...common, kind: 'model', question, budgetChars: budget };
  }
  throw new ScannerFileError(
    `--scanner ${path}: "kind" must be "rule" or "model" (a module scanner is an .mjs file), got ${JSON.stringify(o['kind'])}`,
  );
}

async function loadModule(abs: string, path: string, bytes: Buffer): Promise<ModuleScanner> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(abs).href)) as Record<string, unknown>;
  } catch (err) {
    const e = err as Error;
    throw new ScannerFileError(`--scanner ${path} could not be loaded: ${e.name === 'Error' ? '' : `${e.name}: `}${e.message}`);
  }
  const named = mod['scan'];
  const fallback = mod['default'];
  if (named !== undefined && typeof fallback === 'function')
    throw new ScannerFileError(`--scanner ${path}: export the scanning function once, as \`scan\` or as the default export, not both`);
  const fn = named ?? fallback;
  if (typeof fn !== 'function')
    throw new ScannerFileError(
      `--scanner ${path}: export a function \`scan(session)\` returning findings (export function scan(…) or export default function(…))`,
    );
  const id =
    mod['name'] === undefined ? checkId(fileId(abs), path, 'its file name (no `name` export)') : checkId(mod['name'], path, '`name`');
  const description = mod['description'];
  const scan = fn as (doc: ScanDocument) => unknown;
  return {
    id,
    path: abs,
    hash: hashOf(bytes),
    description: typeof description === 'string' ? description : null,
    kind: 'module',
    scan: async (doc) => scan(doc),
  };
}

export async function loadScanner(path: string): Promise<Scanner> {
  const abs = resolve(path);
  let bytes: Buffer;
  try {
    if (!statSync(abs).isFile()) throw new ScannerFileError(`--scanner ${path} is not a file`);
    bytes = readFileSync(abs);
  } catch (err) {
    if (err instanceof ScannerFileError) throw err;
    throw new ScannerFileError(`--scanner ${path}: cannot read it: ${fileErrorText(err)}`);
  }
  if (/\.json$/i.test(abs)) return loadJson(abs, path, bytes);
  if (/\.(mjs|js)$/i.test(abs)) return loadModule(abs, path, bytes);
  throw new ScannerFileError(`--scanner ${path}: expected a .json scanner (a rule or a model question) or an ES module (.mjs)`);
}
