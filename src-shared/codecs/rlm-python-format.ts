// The reference Python library's log (alexzhang13/rlm `RLMLogger` JSONL, RLM-SPEC §13):
// a metadata line, then one line per iteration of each completion, child RLM trajectories
// nested in `code_blocks[].result.rlm_calls[].metadata`. `rlm-python-import.ts` turns it into
// our events (each nested trajectory a child run); `rlm-python-export.ts` writes it back from
// events. This module holds what both directions agree on: timestamps, the metadata line and
// the names of our REPLs in it.
import type { PromptPackRef, ReplLanguage } from '../events.ts';

/** A JSON object of the reference format, read or written field by field. */
export type Obj = Record<string, unknown>;

/** Python `datetime.isoformat()` (no zone, up to microseconds) → epoch ms, read as UTC. */
export function parsePyTimestamp(s: unknown): number | null {
  if (typeof s !== 'string') return null;
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?/.exec(s);
  if (!m) return null;
  const base = Date.parse(`${m[1]}Z`);
  if (Number.isNaN(base)) return null;
  const frac = m[2] ? Number(`0.${m[2]}`) * 1000 : 0;
  return base + frac;
}

/** Epoch ms → the reference's timestamp shape (no zone, microseconds). */
export function formatPyTimestamp(ms: number): string {
  const whole = Math.floor(ms);
  const iso = new Date(whole).toISOString().slice(0, 19);
  const micros = Math.round((ms - Math.floor(ms / 1000) * 1000) * 1000);
  return micros === 0 ? iso : `${iso}.${String(Math.min(micros, 999_999)).padStart(6, '0')}`;
}

// --- the metadata line ----------------------------------------------------------------------

export interface RlmPythonMetadata {
  timestamp: string | null;
  rootModel: string;
  maxDepth: number;
  maxIterations: number;
  backend: string;
  /** The REPL the runs used: "javascript" for our export of a JavaScript run, else Python. */
  repl: ReplLanguage;
  /** The prompt pack our export names (`rlm_studio.prompts`); null in the reference's own logs. */
  prompts: PromptPackRef | null;
  raw: Obj;
}

/** What we write as `environment_type` for each of our REPLs (see `runMetadata` in rlm-python-export.ts). */
export const ENVIRONMENT_TYPES: Record<ReplLanguage, string> = { python: 'local', javascript: 'javascript' };
