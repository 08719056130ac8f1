// Scorers from a user's ES module (`--scorer FILE.mjs`, for `eval` and `score`), in the style
// of `--tools` modules: the module exports `score` (by name, or as its default export), a
// function given one session's answer and task that returns a number in [0, 1] or
// `{ score, correct?, detail? }` (synchronously or as a promise), and optionally `name`, the
// scorer's id in results and scores.jsonl (default: the file's name without its extension).
import { statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fileErrorText } from '../../src-shared/file-errors.ts';
import type { Score } from './tasks/scorers.ts';
import type { Expected } from './tasks/types.ts';

export class ScorerModuleError extends Error {
  override name = 'ScorerModuleError';
}

/** What a scorer is given for one session. */
export interface ScorerInput {
  /** The answer as submitted; null when the session gave none (an error, a limit). */
  answer: string | null;
  expected: Expected;
  task: { id: string; kind: string; query: string | null; repeat: number };
}

export interface ScorerModule {
  /** The scorer's id: its `name` export, else the file's name. */
  id: string;
  path: string;
  score: (input: ScorerInput) => Promise<Score>;
}

/** A scorer id: what scores.jsonl and `--scores` name it by. */
const SCORER_ID = /^[\w.-]{1,80}$/;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as object | null;
  return proto === Object.prototype || proto === null;
}

/** The scorer's return value as a Score, or a message saying what is wrong with it. */
function toScore(value: unknown): Score | string {
  const range = (n: number): string | null =>
    Number.isFinite(n) && n >= 0 && n <= 1 ? null : `a score must be a number from 0 to 1, got ${n}`;
  if (typeof value === 'number') {
    const why = range(value);
    return why ?? { score: value, correct: value === 1, detail: `scored ${value}` };
  }
  if (typeof value === 'boolean') return { score: value ? 1 : 0, correct: value, detail: value ? 'correct' : 'incorrect' };
  if (!isPlainObject(value))
    return `a scorer returns a number from 0 to 1 or { score, correct?, detail? }, got ${value === null ? 'null' : typeof value}`;
  const s = value['score'];
  if (typeof s !== 'number') return `\`score\` must be a number from 0 to 1, got ${typeof s}`;
  const why = range(s);
  if (why) return why;
  const c = value['correct'];
  if (c !== undefined && typeof c !== 'boolean') return `\`correct\` must be true or false, got ${typeof c}`;
  const d = value['detail'];
  if (d !== undefined && typeof d !== 'string') return `\`detail\` must be a string, got ${typeof d}`;
  return { score: s, correct: c ?? s === 1, detail: d ?? `scored ${s}` };
}

export async function loadScorerModule(path: string): Promise<ScorerModule> {
  const abs = resolve(path);
  let isFile: boolean;
  try {
    isFile = statSync(abs).isFile();
  } catch (err) {
    throw new ScorerModuleError(`--scorer ${path}: cannot read it: ${fileErrorText(err)}`);
  }
  if (!isFile) throw new ScorerModuleError(`--scorer ${path} is not a file`);
  if (!/\.(mjs|js)$/i.test(abs)) throw new ScorerModuleError(`--scorer ${path}: expected an ES module (.mjs)`);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(abs).href)) as Record<string, unknown>;
  } catch (err) {
    const e = err as Error;
    throw new ScorerModuleError(`--scorer ${path} could not be loaded: ${e.name === 'Error' ? '' : `${e.name}: `}${e.message}`);
  }
  const named = mod['score'];
  const fallback = mod['default'];
  if (named !== undefined && fallback !== undefined && typeof fallback === 'function')
    throw new ScorerModuleError(`--scorer ${path}: export the scoring function once, as \`score\` or as the default export, not both`);
  const fn = named ?? fallback;
  if (typeof fn !== 'function')
    throw new ScorerModuleError(
      `--scorer ${path}: export a function \`score({ answer, expected, task })\` (export function score(…) or export default function(…))`,
    );
  const name = mod['name'];
  if (name !== undefined && (typeof name !== 'string' || !SCORER_ID.test(name)))
    throw new ScorerModuleError(`--scorer ${path}: \`name\` must be a short id (letters, digits, _ . -), got ${JSON.stringify(name)}`);
  const id = typeof name === 'string' ? name : basename(abs).replace(/\.(mjs|js)$/i, '');
  if (!SCORER_ID.test(id))
    throw new ScorerModuleError(`--scorer ${path}: the file name is no usable scorer id; export \`name\` (letters, digits, _ . -)`);
  const scoreFn = fn as (input: ScorerInput) => unknown;
  return {
    id,
    path: abs,
    score: async (input) => {
      let value: unknown;
      try {
        value = await scoreFn(input);
      } catch (err) {
        throw new ScorerModuleError(`scorer ${id} threw on task ${input.task.id}: ${(err as Error).message}`);
      }
      const s = toScore(value);
      if (typeof s === 'string') throw new ScorerModuleError(`scorer ${id} on task ${input.task.id}: ${s}`);
      return s;
    },
  };
}
