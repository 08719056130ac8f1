// Sections of bench/RESULTS.md that benches run on their own write (queue.ts with --write) or
// that were pasted in by hand, each between `<!-- bench:ID -->` and `<!-- /bench:ID -->`.
// `npm run bench` regenerates the rest of the file and carries these blocks over unchanged.

const BLOCK = /<!-- bench:([\w-]+) -->\n[\s\S]*?\n<!-- \/bench:\1 -->/g;

/** A section wrapped in its markers. */
export function markSection(id: string, markdown: string): string {
  if (!/^[\w-]+$/.test(id)) throw new Error(`a bench section id is letters, digits, _ and -: got "${id}"`);
  return `<!-- bench:${id} -->\n${markdown.trim()}\n<!-- /bench:${id} -->`;
}

/** Every marked section of a report, markers included, in the order they appear. */
export function markedSections(report: string): string[] {
  return [...report.matchAll(BLOCK)].map((m) => m[0]);
}

/** The report with section `id` replaced by `markdown`, or with it appended when the report has none. */
export function upsertSection(report: string, id: string, markdown: string): string {
  const block = markSection(id, markdown);
  let found = false;
  const replaced = report.replace(BLOCK, (whole, blockId: string) => {
    if (blockId !== id) return whole;
    found = true;
    return block;
  });
  return found ? replaced : `${report.trimEnd()}\n\n${block}\n`;
}

/** A fresh report followed by the marked sections of the one it replaces (those it lacks). */
export function carryOver(fresh: string, previous: string | null): string {
  const idOf = (block: string): string => /^<!-- bench:([\w-]+) -->/.exec(block)?.[1] ?? '';
  const present = new Set(markedSections(fresh).map(idOf));
  const kept = previous === null ? [] : markedSections(previous).filter((b) => !present.has(idOf(b)));
  return kept.length === 0 ? fresh : `${fresh.trimEnd()}\n\n${kept.join('\n\n')}\n`;
}
