// One evaluation task as a dataset line holds it, and what a generator returns.
import type { SandboxValue } from '../../sandbox/types.ts';

/** The generated kinds; a dataset may carry others (a real benchmark converted to JSONL). */
export const TASK_KINDS = ['sniah', 'oolong', 'oolong-pairs', 'browsecomp'] as const;
export type TaskKind = (typeof TASK_KINDS)[number];

export const SCORERS = ['exact', 'contains', 'numeric', 'pairs-f1'] as const;
export type ScorerName = (typeof SCORERS)[number];

/** What a scorer compares against: a string, a number, or a list (pairs). */
export type Expected = string | number | string[];

/** One JSONL line of a dataset. Exactly one of `context` and `contextFile` is set. */
export interface EvalTask {
  id: string;
  kind: string;
  query: string;
  expected: Expected;
  scorer: ScorerName;
  context?: SandboxValue;
  /** Relative to the dataset file's directory; `.json` is parsed, anything else is text. */
  contextFile?: string;
  /** Nominal size (≈ 4 characters per token). */
  sizeTokens?: number;
  seed?: number;
}

export interface GeneratedTask {
  kind: TaskKind;
  query: string;
  expected: Expected;
  scorer: ScorerName;
  context: string | SandboxValue[];
  sizeTokens: number;
  seed: number;
}

/** The chars-per-token ratio every size in this folder assumes. */
export const CHARS_PER_TOKEN = 4;
