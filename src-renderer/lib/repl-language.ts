// Which language a session's and a run's code is in, from what was recorded: a run's
// `run.start` names it, and so does a native log's header (also sent by `subscribe`); the
// reference library's logs, and re-executions of them, are always Python. Logs written before Python name none: they
// are JavaScript, the only REPL there was.
import type { LogFormat } from '../../src-shared/codecs/detect.ts';
import { languageOfChoice, type LogHeader, type ReplChoice, type ReplLanguage, type RunStartEvent } from '../../src-shared/events.ts';
import type { SessionSummary } from '../../src-shared/protocol.ts';

export type { ReplChoice, ReplLanguage };
export { languageOfChoice };

export const REPL_LABEL: Record<ReplLanguage, string> = { javascript: 'JavaScript', python: 'Python' };
/** The REPLs a form offers, by what they are called there. */
export const REPL_CHOICE_LABEL: Record<ReplChoice, string> = {
  javascript: 'JavaScript',
  python: 'Python (Pyodide)',
  cpython: "Python (this machine's CPython, OS sandbox)",
};

/** A form's select value as a REPL choice (anything unknown is JavaScript). */
export function replChoiceOf(value: string): ReplChoice {
  return value === 'python' || value === 'cpython' ? value : 'javascript';
}

/** Short tags for dense places (tree rows). */
export const REPL_TAG: Record<ReplLanguage, string> = { javascript: 'js', python: 'py' };

/** What a session records of its language: the parts of its store entry `sessionLanguage` reads. */
export interface LanguageRecord {
  header: LogHeader | null;
  /** The format a local file was read as; a host session's is in `summary`. */
  format: LogFormat | null;
  summary: Pick<SessionSummary, 'format'> | null;
}

export function sessionLanguage(entry: LanguageRecord | undefined): ReplLanguage {
  if (!entry) return 'javascript';
  if (entry.header?.repl) return entry.header.repl;
  // A re-execution of a reference-library log ran its Python, whether or not its header says so.
  if (entry.header?.rerunOf?.format === 'rlm-python') return 'python';
  const format = entry.summary?.format ?? entry.format;
  return format === 'rlm-python' ? 'python' : 'javascript';
}

/** A run's own record first (children of a session share its language, but say so themselves). */
export function runLanguage(start: RunStartEvent | null, session: ReplLanguage): ReplLanguage {
  return start?.repl ?? session;
}
