// The eval-task policies behind one Policy: a root run is matched to its task by phrases
// of the generated queries (src-main/eval/tasks/), sub-LM prompts by their TASK name.
// Anything else goes to the fallback (the built-in scenarios), so existing behaviour holds.
import { BROWSE_QUERY_MARK } from '../../eval/tasks/browsecomp.ts';
import { OOLONG_QUERY_MARK, PAIRS_QUERY_MARK } from '../../eval/tasks/oolong.ts';
import { SNIAH_QUERY_MARK } from '../../eval/tasks/sniah.ts';
import type { TaskKind } from '../../eval/tasks/types.ts';
import { classify, lastTag, type Classified, type Policy, type PolicyRequest } from '../policy.ts';
import { browseTurn } from './eval-browse.ts';
import { oolongTurn, pairsTurn } from './eval-oolong.ts';
import { sniahTurn } from './eval-sniah.ts';
import { evalSubLmReply } from './eval-sub-lm.ts';

/** Which eval task a root query is, by the phrases its generator writes; null for none. */
function evalTaskFor(query: string | null): TaskKind | null {
  if (query === null) return null;
  const q = query.toLowerCase();
  if (q.includes(SNIAH_QUERY_MARK.toLowerCase())) return 'sniah';
  if (q.includes(BROWSE_QUERY_MARK.toLowerCase())) return 'browsecomp';
  if (q.includes(OOLONG_QUERY_MARK.toLowerCase())) return q.includes(PAIRS_QUERY_MARK.toLowerCase()) ? 'oolong-pairs' : 'oolong';
  return null;
}

function turnFor(kind: TaskKind, c: Classified): string {
  switch (kind) {
    case 'sniah':
      return sniahTurn(c);
    case 'oolong':
      return oolongTurn(c);
    case 'oolong-pairs':
      return pairsTurn(c);
    case 'browsecomp':
      return browseTurn(c);
  }
}

/** The plain-text last-chance answer: the best intermediate result printed so far. */
function finalFor(c: Classified): string {
  for (const [scope, step] of [
    ['sniah', 'candidate'],
    ['oolong', 'count'],
    ['browse', 'city'],
  ] as const) {
    const v = lastTag(c, scope, step);
    if (v !== null) return v;
  }
  return 'I could not finish within the turn limit.';
}

/**
 * `force`: play that task for every root query whatever its wording (`mock-llm --policy
 * sniah`), for datasets whose queries are not the generator's. Child RLMs (no query of
 * their own) are still left to the fallback, as in auto mode.
 */
export function evalTasksPolicy(fallback: Policy, force: TaskKind | null = null): Policy {
  return (req: PolicyRequest): string => {
    const c = classify(req);
    if (c.kind === 'sub') return evalSubLmReply(c.lastUser) ?? fallback(req);
    const kind = force !== null && c.query !== null ? force : evalTaskFor(c.query);
    if (kind === null) return fallback(req);
    if (c.kind === 'rlm') return turnFor(kind, c);
    if (c.kind === 'final') return finalFor(c);
    return fallback(req);
  };
}
