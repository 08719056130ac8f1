// The first layout of the run view cost ~70 ms more on a fresh page than on a warm one
// (measured in a trace: the first view's layout 71 ms, against 10 ms once any log had been
// shown): the first use of each font, weight and fallback glyph is looked up and shaped
// then. Laying out a hidden sample of them while the page is idle pays that before a log
// is opened, not in the middle of its first view.

/** Every non-ASCII character the views draw (a unit test checks the sources against it). */
export const UI_GLYPHS = '·…—–−×▾◀▶⏸⤼⟲✗✓⚠☾☀◆▸▴▢■⏮⏭≥≈≠⇲↘→↑“”’✎';

const FACES = ['', 'font-weight:600', 'font-weight:700', 'font-style:italic'] as const;

const TAGS = ['span', 'pre', 'code'] as const;

/** Lays out one face (regular, semibold, bold or italic) of the app's fonts in every size, in the given tags, off screen. */
function layOutFace(doc: Document, face: string, tags: readonly string[] = TAGS): void {
  const box = doc.createElement('div');
  box.setAttribute('aria-hidden', 'true');
  box.style.cssText = 'position:absolute;left:-10000px;top:0;visibility:hidden;pointer-events:none;contain:strict;width:600px;height:200px';
  const sample = `Run iteration 0123456789 $0.0042 tokens ${UI_GLYPHS}`;
  // The sizes and faces styles.css uses.
  for (const tag of tags) {
    for (const size of [11, 12, 13, 14, 15]) {
      const el = doc.createElement(tag);
      el.setAttribute('style', `font-size:${size}px;${face}`);
      el.textContent = sample;
      box.appendChild(el);
    }
  }
  doc.body.appendChild(box);
  // Reading a size forces the layout (and the font lookups) now.
  void box.offsetWidth;
  for (const el of box.children) void (el as HTMLElement).offsetWidth;
  box.remove();
}

/**
 * The same warm-up as steps, one face of one tag each (all at once was a 100–200 ms task,
 * one face 30–190 ms), for a caller that runs them in separate idle moments (main.tsx, with
 * Monaco's prewarm).
 */
export function prewarmTextSteps(doc: Document = document): { name: string; run(): void; beforeLoad: true }[] {
  // Once a log is loading its view lays the text out itself: nothing left to warm.
  return FACES.flatMap((face, i) =>
    TAGS.map((tag) => ({ name: `text-${i}-${tag}`, run: () => layOutFace(doc, face, [tag]), beforeLoad: true as const })),
  );
}

/** Lays out the app's fonts (UI and monospace; regular, semibold, bold, italic) with its glyphs once, off screen. */
export function prewarmText(doc: Document = document): void {
  for (const face of FACES) layOutFace(doc, face);
}
