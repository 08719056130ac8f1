// The idle-time text warm-up covers every non-ASCII glyph the views draw: a glyph it misses
// is looked up (a font fallback search) during a log's first view instead.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prewarmText, UI_GLYPHS } from '../../../src-renderer/lib/prewarm-text.ts';

const ROOT = join(import.meta.dirname, '../../../src-renderer');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : /\.(tsx?|css)$/.test(d.name) ? [join(dir, d.name)] : [],
  );
}

describe('prewarmText', () => {
  it('knows every non-ASCII character in the renderer’s sources (comments aside)', () => {
    const missing = new Set<string>();
    for (const file of sources(ROOT)) {
      if (file.endsWith('prewarm-text.ts') || file.includes('/monaco/')) continue;
      // Comments are prose, never drawn.
      const code = readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
      for (const ch of code.match(/[^\p{ASCII}]/gu) ?? []) if (!UI_GLYPHS.includes(ch)) missing.add(`${ch} (${file.slice(ROOT.length)})`);
    }
    expect([...missing]).toEqual([]);
  });

  it('lays its sample out and leaves nothing behind', () => {
    const before = document.body.childElementCount;
    prewarmText();
    expect(document.body.childElementCount).toBe(before);
  });
});
