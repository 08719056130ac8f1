// Which language a session's code is in. Decided per session from what was recorded: the
// native log's header (or, for a host session, the same header from `subscribe`), and the
// format it was read from: the reference library's logs are always Python. Older native
// logs name no language; they are JavaScript, the only REPL there was.
import type { LogHeader } from '../../src-shared/events.ts';
import type { ReplLanguageInput } from '../../src-shared/protocol.ts';
import type { SessionEntry } from '../store/studio.ts';
import type { z } from 'zod';

export type ReplLanguage = z.infer<typeof ReplLanguageInput>;

export const REPL_LABEL: Record<ReplLanguage, string> = { javascript: 'JavaScript', python: 'Python' };
/** Short tags for dense places (tree rows). */
export const REPL_TAG: Record<ReplLanguage, string> = { javascript: 'js', python: 'py' };

function fromHeader(header: LogHeader | null): ReplLanguage | null {
  const repl: unknown = header ? (header as LogHeader & { repl?: unknown }).repl : undefined;
  return repl === 'python' || repl === 'javascript' ? repl : null;
}

export function replLanguageOf(entry: Pick<SessionEntry, 'header' | 'format' | 'summary'> | undefined): ReplLanguage {
  if (!entry) return 'javascript';
  const recorded = fromHeader(entry.header);
  if (recorded) return recorded;
  const format = entry.summary?.format ?? entry.format;
  return format === 'rlm-python' ? 'python' : 'javascript';
}
