// Half-open character ranges [start, end) of a context: union, length and complement.

export interface Range {
  start: number;
  end: number;
}

/** The union of `ranges` as sorted, disjoint, non-touching ranges. */
export function mergeRanges(ranges: Iterable<Range>): Range[] {
  const sorted = [...ranges].filter((r) => r.end > r.start).sort((a, b) => a.start - b.start || a.end - b.end);
  const out: Range[] = [];
  for (const r of sorted) {
    const last = out.at(-1);
    if (last && r.start <= last.end) last.end = Math.max(last.end, r.end);
    else out.push({ start: r.start, end: r.end });
  }
  return out;
}

/** Characters covered by merged (disjoint) ranges. */
export function coveredChars(merged: readonly Range[]): number {
  let n = 0;
  for (const r of merged) n += r.end - r.start;
  return n;
}

/** What of [0, length) merged (sorted, disjoint) ranges leave out. */
export function complementRanges(merged: readonly Range[], length: number): Range[] {
  const out: Range[] = [];
  let at = 0;
  for (const r of merged) {
    if (r.start > at) out.push({ start: at, end: Math.min(r.start, length) });
    at = Math.max(at, r.end);
  }
  if (at < length) out.push({ start: at, end: length });
  return out;
}
