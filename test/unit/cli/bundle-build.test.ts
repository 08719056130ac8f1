// Inlining the bundle viewer's script and stylesheet into one page (src-main/cli/bundle-build.ts).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { inlineAssets } from '../../../src-main/cli/bundle-build.ts';
import { LOG_ELEMENT, splitTemplate } from '../../../src-shared/bundle-template.ts';

const page = (body = '') =>
  `<html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src __RLM_SCRIPT_HASHES__">` +
  `<script type="module" crossorigin src="../assets/a.js"></script><link rel="stylesheet" crossorigin href="../assets/a.css"></head>` +
  `<body>${body}${LOG_ELEMENT}</body></html>`;

describe('inlineAssets', () => {
  it('inlines the script with "</script" escaped, and allows exactly that script by hash', () => {
    const js = 'const s = "</script><script>alert(1)</SCRIPT>"; console.log(s);';
    const out = inlineAssets(page(), (ref) => (ref.endsWith('.js') ? js : 'body{color:red}'));
    const inlined = /<script type="module">([\s\S]*?)<\/script>/.exec(out)![1]!;
    expect(inlined).toBe('const s = "<\\/script><script>alert(1)<\\/SCRIPT>"; console.log(s);');
    expect(out).toContain(`script-src 'sha256-${createHash('sha256').update(inlined).digest('base64')}'`);
    expect(out).toContain('<style>body{color:red}</style>');
    expect(out).not.toContain('__RLM_SCRIPT_HASHES__');
    expect(() => splitTemplate(out)).not.toThrow();
  });

  it('refuses a script that opens an HTML comment', () => {
    expect(() => inlineAssets(page(), (ref) => (ref.endsWith('.js') ? 'x = "<!--";' : ''))).toThrow(/<!--/);
  });

  it('refuses a page that would still load a file, or lost its log element', () => {
    expect(() => inlineAssets(page('<img src="x.png">'.replace('img', 'script')), () => '')).toThrow(/still loads a file/);
    expect(() => inlineAssets(page().replace(LOG_ELEMENT, ''), () => '')).toThrow(/not a bundle template/);
  });

  it('refuses a script that holds a template mark (it would be filled with the log)', () => {
    expect(() => inlineAssets(page(), (ref) => (ref.endsWith('.js') ? 'const m = "__RLM_STUDIO_BUNDLE_LOG__";' : ''))).toThrow(
      /not a bundle template/,
    );
  });
});
