// The context a session ran on, when the host knows it: the recipe of a live session it
// started (or the recipe written beside a saved log), a re-execution's context, or, for a
// saved log of an evaluation, its task's context (from the dataset its eval.json names). The
// app's coverage map reads it from here instead of asking the user to pick the file again.
// Only what a recipe or a dataset names is ever served, never a path a client sends; a client
// holding the token could already run a session on any file the host can read.
import { statSync } from 'node:fs';
import { demoContext, type DemoName } from './demo.ts';
import type { SessionContext } from './endpoint.ts';
import { knownContext } from './launch-plans.ts';
import type { Session } from './session-state.ts';

/**
 * A built-in demo's context as text (a list as JSON, as a `json` context is served), made once:
 * the needle's 2 MB take a few hundred milliseconds to generate, and every HEAD asks.
 */
const demoTexts = new Map<DemoName, SessionContext>();
function demoSessionContext(name: DemoName): SessionContext {
  let c = demoTexts.get(name);
  if (!c) {
    const value = demoContext(name);
    c =
      typeof value === 'string'
        ? { kind: 'text', text: value, name: `demo-${name}.txt` }
        : { kind: 'text', text: JSON.stringify(value), name: `demo-${name}.json` };
    demoTexts.set(name, c);
  }
  return c;
}

/** What a session's context is, or null when the host does not know it (a dropped log, a file gone since). */
export function sessionContext(s: Session): SessionContext | null {
  const c = knownContext(s);
  if (!c) return null;
  // An evaluation task's inline context is named after its task.
  const base = s.taskContext?.source === c ? s.taskContext.taskId.replace(/[^\w.-]+/g, '_') : 'context';
  if (c.kind === 'text') return { kind: 'text', text: c.text, name: `${base}.txt` };
  if (c.kind === 'json') return { kind: 'text', text: c.json, name: `${base}.json` };
  if (c.kind === 'demo') return demoSessionContext(c.name);
  try {
    if (!statSync(c.path).isFile()) return null;
  } catch {
    return null;
  }
  return { kind: 'file', path: c.path, name: c.path.split(/[\\/]/).at(-1) ?? 'context' };
}
