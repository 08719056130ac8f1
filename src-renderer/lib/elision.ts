// The contract between the parse worker, which leaves long prompts out of a big native log
// (workers/elide.ts), and the page, which keeps previews in their place and reads the whole
// texts back when it shows them: where a left-out string is, the marker a preview ends with,
// and the paths into an event. Pure: imported by the worker, the page's parser and the store.

/** Where a left-out string is: byte offsets in the file of its JSON token, quotes included. */
export interface Cut {
  start: number;
  end: number;
}

/** A cut as the parse worker reports it: also the 1-based number of the line it was made in. */
export interface LineCut extends Cut {
  line: number;
}

/** A left-out string inside one event: the path to it, and its bytes in the file. */
export interface Elision extends Cut {
  path: (string | number)[];
}

/**
 * Ends a preview inside the parsed string; the cut's index follows. Not expected in real
 * text (it begins with NUL and SOH), and only an index of a cut actually made is restored.
 */
export const MARK = '\u0000\u0001rlm-elided:';
/**
 * Replaces the marked previews in a parsed event by the plain preview and returns where
 * they were (null when the event has none): `cuts` are all the cuts made so far, by index.
 * Only strings are looked into.
 */
export function restoreMarks(event: object, cuts: readonly Cut[]): Elision[] | null {
  let found: Elision[] | null = null;
  const path: (string | number)[] = [];
  const visit = (node: Record<string | number, unknown>, key: string | number): void => {
    const v = node[key];
    if (typeof v === 'string') {
      if (v.length < MARK.length) return;
      const at = v.indexOf(MARK);
      if (at < 0) return;
      const cut = cuts[Number(v.slice(at + MARK.length))];
      if (!cut) return;
      node[key] = v.slice(0, at);
      (found ??= []).push({ path: [...path, key], start: cut.start, end: cut.end });
    } else if (v !== null && typeof v === 'object') {
      path.push(key);
      walk(v as Record<string | number, unknown>);
      path.pop();
    }
  };
  const walk = (node: Record<string | number, unknown>): void => {
    if (Array.isArray(node)) for (let i = 0; i < node.length; i++) visit(node, i);
    else for (const key in node) visit(node, key);
  };
  walk(event as Record<string, unknown>);
  return found;
}

/** The value at `path` inside `target` (undefined where there is none). */
export function getAt(target: object, path: readonly (string | number)[]): unknown {
  let node: unknown = target;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}

/** Sets the string at `path` inside `target` (a left-out text coming back). */
export function setAt(target: object, path: readonly (string | number)[], value: string): void {
  let node = target as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i++) {
    const next = node[path[i] as string | number];
    if (next === null || typeof next !== 'object') return;
    node = next as Record<string | number, unknown>;
  }
  const last = path[path.length - 1];
  if (last !== undefined) node[last] = value;
}
