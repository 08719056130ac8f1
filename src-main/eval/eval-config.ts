// What defines an evaluation, and the record of it in DIR/eval.json: a resumed run (local or
// queued) with different settings is refused, and the queue derives its job ids from it.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { ToolSpec } from '../engine/config.ts';
import type { ConversationSettings, WorkedExample } from '../engine/index.ts';
import type { Sampling } from '../lm/sampling.ts';
import { packHash, type PromptPack } from '../lm/prompt-pack.ts';
import type { Dataset } from './dataset.ts';
import type { DatasetColumns } from './dataset-columns.ts';
import type { ScorerModule } from './scorer-module.ts';

export interface EvalDefinition extends ConversationSettings {
  /** Replaces the built-in system prompt of every task's session (`{tools}` filled in). */
  systemPrompt?: string;
  /** Custom tools for every task's session. */
  tools?: Record<string, ToolSpec>;
  /** Worked examples shown to every task's root run. */
  examples?: WorkedExample[];
  /** The prompt pack of every task's session. */
  prompts?: PromptPack;
  /** Scores every session instead of the task's own scorer (`--scorer FILE.mjs`). */
  scorer?: ScorerModule;
  /** The dataset is JSON lines or Parquet with these columns (`--question-column` …). */
  columns?: DatasetColumns;
  dataset: string;
  outDir: string;
  /** The sampling of each role, recorded in eval.json (a resumed run must not change them). */
  roles?: { sampling: Sampling; sub: { baseUrl: string; sampling: Sampling } | null };
  /** Recorded in eval.json so a resumed run can refuse a different configuration. */
  baseUrl: string;
  model: string;
  /** Sessions per task (default 1); raising it later runs only the new repeats. */
  repeat?: number;
  /** Run again the sessions whose result ended in an error; the new line supersedes the old one. */
  retryErrors?: boolean;
  /** One line per finished session, and what the runner is doing. */
  onProgress?: (line: string) => void;
  /** The progress bar's line (done/running/failed, rate, cost, time left), on every change. */
  onBar?: (line: string) => void;
  signal?: AbortSignal;
}

export class EvalConfigError extends Error {
  override name = 'EvalConfigError';
}

const short = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 16);

/** What must match for a resumed run to continue the same evaluation. */
export function configKey(o: EvalDefinition, dataset: Dataset): Record<string, unknown> {
  return {
    dataset: dataset.path,
    model: o.model,
    subModel: o.subModel ?? null,
    maxDepth: o.maxDepth ?? 1,
    maxIterations: o.maxIterations ?? null,
    childLlmModel: o.childLlmModel ?? 'sub',
    finalPatterns: o.finalPatterns ?? false,
    repl: o.repl ?? 'javascript',
    // Python in the machine's CPython (and which), or Pyodide (null): packages and threads differ.
    cpython: o.cpython ?? null,
    // The prompt by its hash (eval.json stays small), the tools by their names.
    systemPrompt: o.systemPrompt === undefined ? null : short(o.systemPrompt),
    tools: o.tools === undefined ? null : Object.keys(o.tools).sort(),
    // Each example by its file and the hash of its rendering (which the budget shapes).
    examples:
      o.examples === undefined || o.examples.length === 0 ? null : o.examples.map((e) => ({ source: e.source, text: short(e.text) })),
    // Absent (null) when unset, so evaluations recorded before these existed still resume.
    sampling: o.roles && Object.keys(o.roles.sampling).length > 0 ? o.roles.sampling : null,
    subCalls: o.roles?.sub ?? null,
    // Only when set, so evaluations recorded before packs and windows still resume.
    ...(o.prompts === undefined ? {} : { prompts: { name: o.prompts.name, hash: packHash(o.prompts) } }),
    ...(o.contextWindow === undefined ? {} : { contextWindow: o.contextWindow }),
    ...(o.scorer === undefined ? {} : { scorer: o.scorer.id }),
    ...(o.columns === undefined ? {} : { columns: o.columns }),
  };
}

/** What DIR/eval.json records, or why it cannot be read as such (it is never rewritten). */
function readRecord(metaPath: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(metaPath, 'utf8'));
  } catch (err) {
    throw new EvalConfigError(
      `${metaPath} is not an evaluation record (${err instanceof SyntaxError ? `not JSON: ${err.message}` : String(err)}); restore it, or use another --out`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new EvalConfigError(`${metaPath} is not an evaluation record (not a JSON object); restore it, or use another --out`);
  return value as Record<string, unknown>;
}

export function checkConfig(metaPath: string, key: Record<string, unknown>, baseUrl: string): void {
  if (!existsSync(metaPath)) {
    // Whole or not at all: a process killed mid-write must not leave a record that stops every resume.
    const tmp = `${metaPath}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ ...key, baseUrl, createdAt: new Date().toISOString() }, null, 2)}\n`);
    renameSync(tmp, metaPath);
    return;
  }
  // Evaluations recorded before Python ran JavaScript (and routed a child's llm_query to the sub model).
  const prev: Record<string, unknown> = { repl: 'javascript', childLlmModel: 'sub', ...readRecord(metaPath) };
  const diff = Object.keys(key).filter((k) => JSON.stringify(prev[k] ?? null) !== JSON.stringify(key[k] ?? null));
  if (diff.length > 0) {
    throw new EvalConfigError(
      `${metaPath} records a different evaluation (${diff.map((k) => `${k}: ${JSON.stringify(prev[k] ?? null)} there, ${JSON.stringify(key[k] ?? null)} now`).join('; ')}); resume with the same settings or use another --out`,
    );
  }
}

/** Refused up front, not session by session: every session would fail the same way. */
export function checkDefinition(o: EvalDefinition): void {
  if ((o.examples?.length ?? 0) > 0 && o.maxDepth === 0)
    throw new EvalConfigError('worked examples need a REPL: maxDepth 0 is a direct call with no code to write');
  if (o.repeat !== undefined && (!Number.isInteger(o.repeat) || o.repeat < 1))
    throw new EvalConfigError('repeat must be a positive integer');
}
