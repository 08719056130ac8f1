// One line for a query's result, the same in `rlm-studio query` and the app: how many matches,
// in how many sessions, of how many searched ("N match(es) in M session(s)" counted the
// sessions searched, so 3 matches in 1 of 40 sessions read as spread over all 40).
import type { QueryMatch } from './query.ts';

export function querySummary(r: { sessions: number; matches: readonly QueryMatch[] }): string {
  const matched = new Set(r.matches.map((m) => `${m.file}\t${m.sessionId ?? ''}`)).size;
  return `${r.matches.length} match(es) in ${matched} of ${r.sessions} session(s) searched`;
}
